// Host API of the reduction kernels: the sum and the maximum of an int array.
//
// Each reduction runs in two passes: the first writes one partial result per
// block into `scratch`, the second reduces those partials into `*result`.
// All pointers are device pointers; `scratch` must hold scratch_size(n) ints.
// The functions enqueue the kernels on the default stream and return the
// launch status (cudaGetLastError); errors raised while the kernels run
// surface at the next synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace reduction {

// Number of ints of scratch space a reduction of n elements needs.
std::size_t scratch_size(std::size_t n);

// *result = in[0] + ... + in[n-1]   (0 when n == 0; the caller avoids overflow)
cudaError_t sum(const int* in, std::size_t n, int* scratch, int* result);

// *result = max(in[0], ..., in[n-1])   (INT_MIN when n == 0)
cudaError_t maximum(const int* in, std::size_t n, int* scratch, int* result);

}  // namespace reduction
