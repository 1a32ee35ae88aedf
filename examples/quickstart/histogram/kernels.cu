// Byte-histogram kernels. The counting kernels read with a grid-stride loop
// over a capped grid, so each thread handles several bytes.
#include "histogram.h"

namespace histogram {
namespace {

constexpr unsigned kBlockSize = 256;
constexpr unsigned kMaxBlocks = 128;

unsigned grid_for(std::size_t n) {
    std::size_t blocks = (n + kBlockSize - 1) / kBlockSize;
    if (blocks == 0) return 1;
    return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

__global__ void clear_kernel(unsigned int* bins) {
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
}

__global__ void count_global_kernel(const unsigned char* __restrict__ data, std::size_t n, unsigned int* bins) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&bins[data[i]], 1u);
    }
}

__global__ void count_shared_kernel(const unsigned char* __restrict__ data, std::size_t n, unsigned int* bins) {
    __shared__ unsigned int local[kBins];
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();

    // Shared-memory atomics only contend within this block.
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();

    // One global atomic per non-empty bin per block.
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
    }
}

}  // namespace

cudaError_t clear(unsigned int* bins) {
    clear_kernel<<<1, kBlockSize>>>(bins);
    return cudaGetLastError();
}

cudaError_t count_global(const unsigned char* data, std::size_t n, unsigned int* bins) {
    if (n == 0) return cudaSuccess;
    count_global_kernel<<<grid_for(n), kBlockSize>>>(data, n, bins);
    return cudaGetLastError();
}

cudaError_t count_shared(const unsigned char* data, std::size_t n, unsigned int* bins) {
    if (n == 0) return cudaSuccess;
    count_shared_kernel<<<grid_for(n), kBlockSize>>>(data, n, bins);
    return cudaGetLastError();
}

}  // namespace histogram
