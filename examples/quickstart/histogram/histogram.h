// Host API of the byte-histogram kernels: count how often each of the 256
// byte values occurs.
//
// `data` is a device pointer to n bytes, `bins` a device pointer to kBins
// counters. The counting functions ADD to `bins`; call clear first (or
// cudaMemset the bins) for a fresh histogram. Each function enqueues one
// kernel on the default stream and returns the launch status
// (cudaGetLastError); errors raised while the kernel runs surface at the next
// synchronizing call, e.g. cudaDeviceSynchronize.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace histogram {

constexpr int kBins = 256;

// bins[b] = 0 for every bin.
cudaError_t clear(unsigned int* bins);

// Every thread adds straight into the global bins with atomicAdd.
cudaError_t count_global(const unsigned char* data, std::size_t n, unsigned int* bins);

// Each block counts into a private shared-memory histogram, then merges it
// into the global bins: far fewer contended global atomics.
cudaError_t count_shared(const unsigned char* data, std::size_t n, unsigned int* bins);

}  // namespace histogram
