// Element-wise vector kernels. Every kernel uses a grid-stride loop, so any
// grid size covers any n; the launch helpers cap the grid at kMaxBlocks.
#include "vector_add.h"

namespace vector_add {
namespace {

constexpr unsigned kBlockSize = 256;
constexpr unsigned kMaxBlocks = 256;

// Blocks needed to give each element its own thread, at most kMaxBlocks.
unsigned grid_for(std::size_t n) {
    std::size_t blocks = (n + kBlockSize - 1) / kBlockSize;
    return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

__device__ std::size_t global_thread_index() {
    return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ std::size_t grid_stride() {
    return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

__global__ void fill_kernel(float* out, float value, std::size_t n) {
    for (std::size_t i = global_thread_index(); i < n; i += grid_stride()) {
        out[i] = value;
    }
}

__global__ void add_kernel(const float* a, const float* b, float* out, std::size_t n) {
    for (std::size_t i = global_thread_index(); i < n; i += grid_stride()) {
        out[i] = a[i] + b[i];
    }
}

__global__ void multiply_kernel(const float* a, const float* b, float* out, std::size_t n) {
    for (std::size_t i = global_thread_index(); i < n; i += grid_stride()) {
        out[i] = a[i] * b[i];
    }
}

}  // namespace

cudaError_t fill(float* out, float value, std::size_t n) {
    if (n == 0) return cudaSuccess;
    fill_kernel<<<grid_for(n), kBlockSize>>>(out, value, n);
    return cudaGetLastError();
}

cudaError_t add(const float* a, const float* b, float* out, std::size_t n) {
    if (n == 0) return cudaSuccess;
    add_kernel<<<grid_for(n), kBlockSize>>>(a, b, out, n);
    return cudaGetLastError();
}

cudaError_t multiply(const float* a, const float* b, float* out, std::size_t n) {
    if (n == 0) return cudaSuccess;
    multiply_kernel<<<grid_for(n), kBlockSize>>>(a, b, out, n);
    return cudaGetLastError();
}

}  // namespace vector_add
