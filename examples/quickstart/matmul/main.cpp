// matmul_check: multiplies two small matrices whose sizes are not multiples
// of the 16 x 16 tile with both kernels, transposes one, and compares every
// element with a CPU reference.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "matmul.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "matmul";

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

// Compares a rows x cols matrix exactly (see main for why that is safe).
// Prints the first few mismatches; returns true if none.
bool matches(const char* what, const std::vector<float>& expected, const std::vector<float>& actual, int cols) {
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (actual[i] != expected[i]) {
            if (++mismatches <= 5) {
                std::fprintf(stderr, "%s: %s mismatch at (%zu, %zu): expected %g, got %g\n", kName, what,
                             i / cols, i % cols, expected[i], actual[i]);
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

    // Odd sizes, so every kernel handles partial tiles on every edge.
    const int m = 67, k = 45, n = 53;

    // Small integers: every product and partial sum is an integer far below
    // 2^24, so float arithmetic is exact in any order (with or without FMA)
    // and the results can be compared exactly.
    std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>((i * 7) % 9) - 4);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>((i * 5) % 11) - 5);

    std::vector<float> expected_c(static_cast<std::size_t>(m) * n);
    for (int r = 0; r < m; ++r) {
        for (int c = 0; c < n; ++c) {
            float acc = 0.0f;
            for (int i = 0; i < k; ++i) acc += a[static_cast<std::size_t>(r) * k + i] * b[static_cast<std::size_t>(i) * n + c];
            expected_c[static_cast<std::size_t>(r) * n + c] = acc;
        }
    }
    std::vector<float> expected_at(a.size());  // A transposed: k x m
    for (int r = 0; r < m; ++r) {
        for (int c = 0; c < k; ++c) expected_at[static_cast<std::size_t>(c) * m + r] = a[static_cast<std::size_t>(r) * k + c];
    }

    DeviceBuffer<float> d_a(a.size()), d_b(b.size()), d_c(expected_c.size()), d_at(a.size());
    d_a.upload(a);
    d_b.upload(b);

    bool ok = true;

    check_kernel(matmul::multiply_naive(d_a.get(), d_b.get(), d_c.get(), m, n, k), "matmul::multiply_naive");
    ok &= matches("multiply_naive", expected_c, d_c.download(), n);

    // Poison the output (all bits set is a NaN) so stale results cannot pass.
    check(cudaMemset(d_c.get(), 0xff, expected_c.size() * sizeof(float)), "cudaMemset");
    check_kernel(matmul::multiply_tiled(d_a.get(), d_b.get(), d_c.get(), m, n, k), "matmul::multiply_tiled");
    ok &= matches("multiply_tiled", expected_c, d_c.download(), n);

    check_kernel(matmul::transpose(d_a.get(), d_at.get(), m, k), "matmul::transpose");
    ok &= matches("transpose", expected_at, d_at.download(), m);

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
