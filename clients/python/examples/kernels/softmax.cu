// Row-wise softmax, compiled by a command job straight to a fat binary (nvcc --fatbin), the
// way JIT libraries build a module that Python loads with cuModuleLoadData (CuPy RawModule,
// cuda-python). One block per row; blockDim.x must be a power of two <= 1024.
extern "C" __global__ void softmax_rows(const float *in, float *out, int cols) {
    extern __shared__ float scratch[];
    const float *row = in + static_cast<long long>(blockIdx.x) * cols;
    float *dst = out + static_cast<long long>(blockIdx.x) * cols;

    float local_max = -3.402823466e38f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        local_max = fmaxf(local_max, row[c]);
    }
    scratch[threadIdx.x] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
        }
        __syncthreads();
    }
    const float row_max = scratch[0];
    __syncthreads();

    float local_sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        local_sum += __expf(row[c] - row_max);
    }
    scratch[threadIdx.x] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            scratch[threadIdx.x] += scratch[threadIdx.x + s];
        }
        __syncthreads();
    }
    const float row_sum = scratch[0];

    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        dst[c] = __expf(row[c] - row_max) / row_sum;
    }
}
