// Host API of the saxpy kernels (BLAS level-1 style).
//
// All array pointers are device pointers to n elements. Each function enqueues
// one kernel on the default stream and returns the launch status
// (cudaGetLastError); errors raised while the kernel runs surface at the next
// synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace saxpy {

// y[i] = a * x[i] + y[i], single precision (SAXPY)
cudaError_t axpy(std::size_t n, float a, const float* x, float* y);

// y[i] = a * x[i] + y[i], double precision (DAXPY)
cudaError_t axpy(std::size_t n, double a, const double* x, double* y);

// x[i] = a * x[i], single precision (SSCAL)
cudaError_t scale(std::size_t n, float a, float* x);

}  // namespace saxpy
