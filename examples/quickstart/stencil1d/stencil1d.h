// Host API of the 1D stencil kernels.
//
// out[i] = sum over k in [-kRadius, kRadius] of weights[k + kRadius] * in[i + k],
// where elements outside [0, n) count as zero.
//
// `in` and `out` are device pointers to n floats and must not overlap. The
// apply functions enqueue one kernel on the default stream and return the
// launch status (cudaGetLastError); errors raised while the kernel runs
// surface at the next synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace stencil1d {

constexpr int kRadius = 3;
constexpr int kWidth = 2 * kRadius + 1;

// Copies kWidth weights from host memory into the kernels' constant memory.
cudaError_t set_weights(const float* host_weights);

// Straightforward version: every thread reads its kWidth inputs from global memory.
cudaError_t apply_naive(const float* in, float* out, std::size_t n);

// Tiled version: each block stages its inputs plus a halo in shared memory.
cudaError_t apply_shared(const float* in, float* out, std::size_t n);

}  // namespace stencil1d
