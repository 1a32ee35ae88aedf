// Host API of the dense matrix kernels. Matrices are row-major float arrays in
// device memory; C must not overlap A or B, nor `out` overlap `in`.
//
// Each function enqueues one kernel on the default stream and returns the
// launch status (cudaGetLastError); errors raised while the kernel runs
// surface at the next synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cuda_runtime_api.h>

namespace matmul {

// C (m x n) = A (m x k) * B (k x n), one thread per element of C.
cudaError_t multiply_naive(const float* a, const float* b, float* c, int m, int n, int k);

// Same product, computed from 16 x 16 tiles staged in shared memory.
cudaError_t multiply_tiled(const float* a, const float* b, float* c, int m, int n, int k);

// out (cols x rows) = transpose of in (rows x cols).
cudaError_t transpose(const float* in, float* out, int rows, int cols);

}  // namespace matmul
