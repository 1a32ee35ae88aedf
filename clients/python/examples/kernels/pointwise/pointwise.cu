// A pointwise kernel with a C entry point that Python loads with ctypes.
// POINTWISE_DTYPE and POINTWISE_OP_<op> come from CMakeLists.txt (one build per variant).
#include <cuda_runtime.h>

#ifndef POINTWISE_DTYPE
#define POINTWISE_DTYPE float
#endif
typedef POINTWISE_DTYPE T;

__global__ void pointwise_kernel(int n, T a, const T *x, T *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
#if defined(POINTWISE_OP_scale)
        y[i] = a * x[i];
#else
        y[i] = a * x[i] + y[i];
#endif
    }
}

// x and y are device pointers; returns 0 or the cudaError_t of the launch.
extern "C" int pointwise_launch(int n, T a, const T *x, T *y) {
    pointwise_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return static_cast<int>(cudaGetLastError());
}
