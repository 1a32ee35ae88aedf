// vector_add_check: runs the vector_add kernels on a small input and compares
// every element with a CPU reference.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "vector_add.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "vector_add";

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

// Compares exactly (all inputs are small multiples of 0.5, so every result is
// exact in float). Prints the first few mismatches; returns true if none.
bool matches(const char* what, const std::vector<float>& expected, const std::vector<float>& actual) {
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (actual[i] != expected[i]) {
            if (++mismatches <= 5) {
                std::fprintf(stderr, "%s: %s mismatch at [%zu]: expected %g, got %g\n", kName, what, i,
                             expected[i], actual[i]);
            }
        }
    }
    if (mismatches > 0) {
        std::fprintf(stderr, "%s: %s: %zu of %zu elements differ\n", kName, what, mismatches, expected.size());
    }
    return mismatches == 0;
}

}  // namespace

int main() {
    require_device();

    // Larger than the capped grid (256 blocks x 256 threads), so the
    // grid-stride loops run more than once, and not a multiple of the block.
    const std::size_t n = 100003;
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 101) - 50.0f;
        b[i] = static_cast<float>(i % 13) * 0.5f;
    }

    DeviceBuffer<float> d_a(n), d_b(n), d_out(n);
    d_a.upload(a);
    d_b.upload(b);

    bool ok = true;

    check_kernel(vector_add::fill(d_out.get(), 3.5f, n), "vector_add::fill");
    ok &= matches("fill", std::vector<float>(n, 3.5f), d_out.download());

    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];
    // Poison the output (all bits set is a NaN) so stale results cannot pass.
    check(cudaMemset(d_out.get(), 0xff, n * sizeof(float)), "cudaMemset");
    check_kernel(vector_add::add(d_a.get(), d_b.get(), d_out.get(), n), "vector_add::add");
    ok &= matches("add", expected, d_out.download());

    for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] * b[i];
    check(cudaMemset(d_out.get(), 0xff, n * sizeof(float)), "cudaMemset");
    check_kernel(vector_add::multiply(d_a.get(), d_b.get(), d_out.get(), n), "vector_add::multiply");
    ok &= matches("multiply", expected, d_out.download());

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
