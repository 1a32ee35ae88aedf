// stencil1d_check: applies a 7-point stencil with both kernels and compares
// every output with a CPU reference, including the zero-padded edges.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "stencil1d.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "stencil1d";

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

// Compares with a small tolerance: the GPU may fuse multiply-adds (FMA) where
// the CPU rounds twice. Prints the first few mismatches; returns true if none.
bool matches(const char* what, const std::vector<float>& expected, const std::vector<float>& actual) {
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const float e = expected[i];
        const float g = actual[i];
        if (!(std::fabs(g - e) <= 1e-5f * std::fmax(1.0f, std::fabs(e)))) {  // also catches NaN
            if (++mismatches <= 5) {
                std::fprintf(stderr, "%s: %s mismatch at [%zu]: expected %.9g, got %.9g\n", kName, what, i, e, g);
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

    using stencil1d::kRadius;
    using stencil1d::kWidth;

    // Asymmetric weights, so a mirrored stencil would be caught.
    const float weights[kWidth] = {0.05f, -0.1f, 0.2f, 0.5f, 0.25f, 0.15f, -0.05f};

    const std::size_t n = 10001;  // several blocks, with a partial last block
    std::vector<float> in(n);
    for (std::size_t i = 0; i < n; ++i) {
        in[i] = std::sin(0.01f * static_cast<float>(i)) + static_cast<float>(i % 7) * 0.125f;
    }

    // CPU reference with the same zero padding and summation order as the kernels.
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = -kRadius; k <= kRadius; ++k) {
            const long long j = static_cast<long long>(i) + k;
            if (j >= 0 && j < static_cast<long long>(n)) acc += weights[k + kRadius] * in[j];
        }
        expected[i] = acc;
    }

    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    check(stencil1d::set_weights(weights), "stencil1d::set_weights");

    bool ok = true;
    check_kernel(stencil1d::apply_naive(d_in.get(), d_out.get(), n), "stencil1d::apply_naive");
    ok &= matches("apply_naive", expected, d_out.download());

    // Poison the output (all bits set is a NaN) so stale results cannot pass.
    check(cudaMemset(d_out.get(), 0xff, n * sizeof(float)), "cudaMemset");
    check_kernel(stencil1d::apply_shared(d_in.get(), d_out.get(), n), "stencil1d::apply_shared");
    ok &= matches("apply_shared", expected, d_out.download());

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
