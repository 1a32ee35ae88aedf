// Two block-wide reductions: a sum using a shared-memory tree, and a maximum
// using warp shuffles. Both read their input with a grid-stride loop, so a
// single block can reduce any number of elements; that is what the second
// pass relies on.
#include "reduction.h"

#include <climits>

namespace reduction {
namespace {

constexpr unsigned kBlockSize = 256;  // a power of two, required by sum_kernel
constexpr unsigned kMaxBlocks = 256;  // first-pass blocks = partial results
constexpr unsigned kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// Sums in[0..n) per block; block b writes its sum to out[b].
__global__ void sum_kernel(const int* __restrict__ in, std::size_t n, int* __restrict__ out) {
    __shared__ int partial[kBlockSize];

    // Each thread first accumulates its strided share of the input.
    int acc = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        acc += in[i];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();

    // Tree reduction in shared memory: halve the active threads each step.
    for (unsigned active = kBlockSize / 2; active > 0; active /= 2) {
        if (threadIdx.x < active) partial[threadIdx.x] += partial[threadIdx.x + active];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// Maximum across the 32 lanes of a warp; lane 0 ends up with the result.
__device__ int warp_max(int value) {
    for (unsigned offset = kWarpSize / 2; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(kFullMask, value, offset);
        value = other > value ? other : value;
    }
    return value;
}

// Maximum of in[0..n) per block; block b writes its maximum to out[b].
__global__ void max_kernel(const int* __restrict__ in, std::size_t n, int* __restrict__ out) {
    __shared__ int warp_results[kBlockSize / kWarpSize];

    int acc = INT_MIN;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        acc = in[i] > acc ? in[i] : acc;
    }

    // Reduce within each warp, then let the first warp reduce the warp results.
    const unsigned lane = threadIdx.x % kWarpSize;
    const unsigned warp = threadIdx.x / kWarpSize;
    acc = warp_max(acc);
    if (lane == 0) warp_results[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < kBlockSize / kWarpSize ? warp_results[lane] : INT_MIN;
        acc = warp_max(acc);
        if (lane == 0) out[blockIdx.x] = acc;
    }
}

using ReduceKernel = void (*)(const int*, std::size_t, int*);

unsigned first_pass_blocks(std::size_t n) {
    std::size_t blocks = (n + kBlockSize - 1) / kBlockSize;
    if (blocks == 0) return 1;
    return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

// Pass 1: n elements -> one partial per block. Pass 2: partials -> 1 value.
cudaError_t two_pass(ReduceKernel kernel, const int* in, std::size_t n, int* scratch, int* result) {
    const unsigned blocks = first_pass_blocks(n);
    kernel<<<blocks, kBlockSize>>>(in, n, scratch);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    kernel<<<1, kBlockSize>>>(scratch, blocks, result);
    return cudaGetLastError();
}

}  // namespace

std::size_t scratch_size(std::size_t n) { return first_pass_blocks(n); }

cudaError_t sum(const int* in, std::size_t n, int* scratch, int* result) {
    return two_pass(sum_kernel, in, n, scratch, result);
}

cudaError_t maximum(const int* in, std::size_t n, int* scratch, int* result) {
    return two_pass(max_kernel, in, n, scratch, result);
}

}  // namespace reduction
