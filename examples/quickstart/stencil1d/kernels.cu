// 1D stencil kernels: a naive global-memory version and a shared-memory tiled
// version. The weights live in constant memory, which suits them: every thread
// of a warp reads the same weight at the same time. One thread per output.
#include "stencil1d.h"

namespace stencil1d {
namespace {

constexpr unsigned kBlockSize = 256;

__constant__ float c_weights[kWidth];

unsigned blocks_for(std::size_t n) {
    return static_cast<unsigned>((n + kBlockSize - 1) / kBlockSize);
}

__global__ void stencil_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = -kRadius; k <= kRadius; ++k) {
        const long long j = static_cast<long long>(i) + k;
        if (j >= 0 && j < static_cast<long long>(n)) acc += c_weights[k + kRadius] * in[j];
    }
    out[i] = acc;
}

__global__ void stencil_shared_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    // The block's kBlockSize inputs plus kRadius halo cells on each side.
    __shared__ float tile[kBlockSize + 2 * kRadius];

    const std::size_t block_start = static_cast<std::size_t>(blockIdx.x) * blockDim.x;

    // Cooperative load: tile[t] holds in[block_start + t - kRadius], or 0 outside [0, n).
    for (unsigned t = threadIdx.x; t < kBlockSize + 2 * kRadius; t += blockDim.x) {
        const long long src = static_cast<long long>(block_start) + t - kRadius;
        tile[t] = (src >= 0 && src < static_cast<long long>(n)) ? in[src] : 0.0f;
    }
    __syncthreads();

    const std::size_t i = block_start + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < kWidth; ++k) {
        acc += c_weights[k] * tile[threadIdx.x + k];
    }
    out[i] = acc;
}

}  // namespace

cudaError_t set_weights(const float* host_weights) {
    return cudaMemcpyToSymbol(c_weights, host_weights, sizeof(c_weights));
}

cudaError_t apply_naive(const float* in, float* out, std::size_t n) {
    if (n == 0) return cudaSuccess;
    stencil_naive_kernel<<<blocks_for(n), kBlockSize>>>(in, out, n);
    return cudaGetLastError();
}

cudaError_t apply_shared(const float* in, float* out, std::size_t n) {
    if (n == 0) return cudaSuccess;
    stencil_shared_kernel<<<blocks_for(n), kBlockSize>>>(in, out, n);
    return cudaGetLastError();
}

}  // namespace stencil1d
