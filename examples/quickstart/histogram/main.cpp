// histogram_check: builds the histogram of a skewed byte sequence with both
// counting kernels and compares every bin with a CPU count.
//
// Exit status: 0 all results match, 1 a mismatch or a CUDA error,
// 2 no CUDA device is visible.
#include "histogram.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

namespace {

constexpr const char* kName = "histogram";

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

// Compares every bin. Prints the first few mismatches; returns true if none.
bool matches(const char* what, const std::vector<unsigned int>& expected, const std::vector<unsigned int>& actual) {
    std::size_t mismatches = 0;
    for (std::size_t b = 0; b < expected.size(); ++b) {
        if (actual[b] != expected[b]) {
            if (++mismatches <= 5) {
                std::fprintf(stderr, "%s: %s mismatch in bin %zu: expected %u, got %u\n", kName, what, b,
                             expected[b], actual[b]);
            }
        }
    }
    if (mismatches > 0) {
        std::fprintf(stderr, "%s: %s: %zu of %zu bins differ\n", kName, what, mismatches, expected.size());
    }
    return mismatches == 0;
}

}  // namespace

int main() {
    require_device();

    // More bytes than the capped grid has threads (128 x 256). One value in
    // seven is 42, so that bin sees heavy atomic contention; the rest are
    // scattered by a multiplicative hash. Value 0 never occurs, so that bin
    // must stay empty.
    const std::size_t n = 1000003;
    std::vector<unsigned char> data(n);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned hashed = (static_cast<unsigned>(i) * 2654435761u) >> 24;
        data[i] = static_cast<unsigned char>(i % 7 == 0 ? 42u : hashed == 0 ? 1u : hashed);
    }
    std::vector<unsigned int> expected(histogram::kBins, 0);
    for (unsigned char byte : data) ++expected[byte];

    DeviceBuffer<unsigned char> d_data(n);
    DeviceBuffer<unsigned int> d_bins(histogram::kBins);
    d_data.upload(data);

    bool ok = true;

    // Poison the bins first so the test also shows that clear works.
    check(cudaMemset(d_bins.get(), 0xff, histogram::kBins * sizeof(unsigned int)), "cudaMemset");
    check_kernel(histogram::clear(d_bins.get()), "histogram::clear");
    check_kernel(histogram::count_global(d_data.get(), n, d_bins.get()), "histogram::count_global");
    ok &= matches("count_global", expected, d_bins.download());

    check(cudaMemset(d_bins.get(), 0xff, histogram::kBins * sizeof(unsigned int)), "cudaMemset");
    check_kernel(histogram::clear(d_bins.get()), "histogram::clear");
    check_kernel(histogram::count_shared(d_data.get(), n, d_bins.get()), "histogram::count_shared");
    ok &= matches("count_shared", expected, d_bins.download());

    if (!ok) {
        std::fprintf(stderr, "%s: FAILED\n", kName);
        return 1;
    }
    std::printf("%s: OK\n", kName);
    return 0;
}
