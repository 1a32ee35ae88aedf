// Host API of the vector_add kernels.
//
// All pointers are device pointers to n floats. Each function enqueues one
// kernel on the default stream and returns the launch status
// (cudaGetLastError); errors raised while the kernel runs surface at the next
// synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace vector_add {

// out[i] = value
cudaError_t fill(float* out, float value, std::size_t n);

// out[i] = a[i] + b[i]
cudaError_t add(const float* a, const float* b, float* out, std::size_t n);

// out[i] = a[i] * b[i]
cudaError_t multiply(const float* a, const float* b, float* out, std::size_t n);

}  // namespace vector_add
