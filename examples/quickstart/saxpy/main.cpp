// saxpy_check: runs the AXPY and SCAL kernels on a small input and compares
// every element with a CPU reference.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "saxpy.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "saxpy";

// Exits with status 1 when a CUDA runtime call failed.
void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s: %s failed: %s (%s)\n", kName, what, cudaGetErrorString(err),
                     cudaGetErrorName(err));
        std::exit(1);
    }
}

// Checks a kernel: its launch status, then any error raised while it ran.
void check_kernel(cudaError_t launch_status, const char* what) {
    check(launch_status, what);
    check(cudaDeviceSynchronize(), what);
}

// Exits with status 2 unless at least one CUDA device is visible.
void require_device() {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s: no CUDA device visible (cudaGetDeviceCount: %s: %s)\n", kName,
                     cudaGetErrorName(err), cudaGetErrorString(err));
        std::exit(2);
    }
    if (count == 0) {
        std::fprintf(stderr, "%s: no CUDA device visible (cudaGetDeviceCount: 0 devices)\n", kName);
        std::exit(2);
    }
}

// Owns a device array of n elements of T.
template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t n) : size_(n) {
        check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)), "cudaMalloc");
    }
    ~DeviceBuffer() { cudaFree(data_); }  // nothing useful to do with an error here
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return data_; }

    void upload(const std::vector<T>& host) {
        check(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice),
              "cudaMemcpy to device");
    }

    std::vector<T> download() const {
        std::vector<T> host(size_);
        check(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost),
              "cudaMemcpy to host");
        return host;
    }

private:
    T* data_ = nullptr;
    std::size_t size_;
};

// Compares with a relative tolerance: the GPU may fuse a * x + y into one FMA
// (a single rounding) where the CPU rounds twice. Prints the first few
// mismatches; returns true if none.
template <typename T>
bool matches(const char* what, const std::vector<T>& expected, const std::vector<T>& actual, double rel_tol) {
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        double e = expected[i];
        double g = actual[i];
        if (!(std::fabs(g - e) <= rel_tol * std::fmax(1.0, std::fabs(e)))) {  // also catches NaN
            if (++mismatches <= 5) {
                std::fprintf(stderr, "%s: %s mismatch at [%zu]: expected %.17g, got %.17g\n", kName, what, i, e, g);
            }
        }
    }
    if (mismatches > 0) {
        std::fprintf(stderr, "%s: %s: %zu of %zu elements differ\n", kName, what, mismatches, expected.size());
    }
    return mismatches == 0;
}

// Deterministic, irregular test values in [-1, 1).
double input_value(std::size_t i, unsigned salt) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u + salt * 40503u;
    return static_cast<double>(h >> 8) / static_cast<double>(1u << 23) - 1.0;
}

// Runs axpy for element type T on the device and checks it on the host.
template <typename T>
bool test_axpy(const char* what, std::size_t n, T a, double rel_tol) {
    std::vector<T> x(n), y(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<T>(input_value(i, 1));
        y[i] = static_cast<T>(input_value(i, 2));
        expected[i] = a * x[i] + y[i];
    }
    DeviceBuffer<T> d_x(n), d_y(n);
    d_x.upload(x);
    d_y.upload(y);
    check_kernel(saxpy::axpy(n, a, d_x.get(), d_y.get()), what);
    return matches(what, expected, d_y.download(), rel_tol);
}

}  // namespace

int main() {
    require_device();

    const std::size_t n = 10007;  // not a multiple of the block size
    bool ok = true;

    ok &= test_axpy<float>("saxpy::axpy(float)", n, 2.5f, 1e-6);
    ok &= test_axpy<double>("saxpy::axpy(double)", n, -0.75, 1e-14);

    // SCAL: multiplying by a power of two is exact, so this compares exactly.
    std::vector<float> x(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>(input_value(i, 3));
        expected[i] = x[i] * 0.125f;
    }
    DeviceBuffer<float> d_x(n);
    d_x.upload(x);
    check_kernel(saxpy::scale(n, 0.125f, d_x.get()), "saxpy::scale");
    ok &= matches("scale", expected, d_x.download(), 0.0);

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
