// AXPY and SCAL kernels. Each thread handles one element; the grid is sized
// to cover n.
#include "saxpy.h"

namespace saxpy {
namespace {

constexpr unsigned kBlockSize = 256;

unsigned blocks_for(std::size_t n) {
    return static_cast<unsigned>((n + kBlockSize - 1) / kBlockSize);
}

__device__ std::size_t global_thread_index() {
    return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// One template, instantiated for float and double below.
template <typename T>
__global__ void axpy_kernel(std::size_t n, T a, const T* __restrict__ x, T* __restrict__ y) {
    std::size_t i = global_thread_index();
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_kernel(std::size_t n, float a, float* x) {
    std::size_t i = global_thread_index();
    if (i < n) x[i] *= a;
}

template <typename T>
cudaError_t launch_axpy(std::size_t n, T a, const T* x, T* y) {
    if (n == 0) return cudaSuccess;
    axpy_kernel<T><<<blocks_for(n), kBlockSize>>>(n, a, x, y);
    return cudaGetLastError();
}

}  // namespace

cudaError_t axpy(std::size_t n, float a, const float* x, float* y) { return launch_axpy(n, a, x, y); }

cudaError_t axpy(std::size_t n, double a, const double* x, double* y) { return launch_axpy(n, a, x, y); }

cudaError_t scale(std::size_t n, float a, float* x) {
    if (n == 0) return cudaSuccess;
    scale_kernel<<<blocks_for(n), kBlockSize>>>(n, a, x);
    return cudaGetLastError();
}

}  // namespace saxpy
