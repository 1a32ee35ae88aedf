// reduction_check: runs the sum and maximum reductions on inputs of several
// sizes (including ones that are not multiples of the block size) and compares
// each result with a CPU reference.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "reduction.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "reduction";

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

// Reduces an input of n elements both ways and compares with the CPU.
bool test_size(std::size_t n) {
    // Values in [-1000, 1000] keep every sum well inside int range.
    std::vector<int> values(n);
    for (std::size_t i = 0; i < n; ++i) {
        values[i] = static_cast<int>((i * 7919u + 13u) % 2001u) - 1000;
    }
    // Plant the maximum in the last element: the ragged tail must be read too.
    values[n - 1] = 4242;

    const int expected_sum = std::accumulate(values.begin(), values.end(), 0);
    const int expected_max = *std::max_element(values.begin(), values.end());

    DeviceBuffer<int> d_in(n), d_scratch(reduction::scratch_size(n)), d_result(1);
    d_in.upload(values);

    bool ok = true;
    check_kernel(reduction::sum(d_in.get(), n, d_scratch.get(), d_result.get()), "reduction::sum");
    const int got_sum = d_result.download()[0];
    if (got_sum != expected_sum) {
        std::fprintf(stderr, "%s: sum of %zu elements: expected %d, got %d\n", kName, n, expected_sum, got_sum);
        ok = false;
    }

    check_kernel(reduction::maximum(d_in.get(), n, d_scratch.get(), d_result.get()), "reduction::maximum");
    const int got_max = d_result.download()[0];
    if (got_max != expected_max) {
        std::fprintf(stderr, "%s: maximum of %zu elements: expected %d, got %d\n", kName, n, expected_max,
                     got_max);
        ok = false;
    }
    return ok;
}

}  // namespace

int main() {
    require_device();

    // One element, around one block (256), and more than the 256 x 256 threads
    // of the capped first pass, so the grid-stride loops run several times.
    bool ok = true;
    for (std::size_t n : {1u, 255u, 256u, 257u, 100000u, 1000003u}) {
        ok &= test_size(n);
    }

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
