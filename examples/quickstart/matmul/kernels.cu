// Matrix multiply (naive and shared-memory tiled) and a tiled transpose.
// All kernels use 2D blocks of kTile x kTile threads; x indexes columns and
// y indexes rows. Sizes need not be multiples of kTile.
#include "matmul.h"

#include <cstddef>

namespace matmul {
namespace {

constexpr int kTile = 16;

// Enough kTile x kTile blocks to cover a rows x cols grid.
dim3 grid_for(int rows, int cols) {
    return dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
}

__global__ void multiply_naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int m, int n, int k) {
    const int row = blockIdx.y * kTile + threadIdx.y;
    const int col = blockIdx.x * kTile + threadIdx.x;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int i = 0; i < k; ++i) {
        acc += a[static_cast<std::size_t>(row) * k + i] * b[static_cast<std::size_t>(i) * n + col];
    }
    c[static_cast<std::size_t>(row) * n + col] = acc;
}

__global__ void multiply_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int m, int n, int k) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];

    const int row = blockIdx.y * kTile + threadIdx.y;
    const int col = blockIdx.x * kTile + threadIdx.x;
    float acc = 0.0f;

    // Walk along the shared dimension one tile at a time. Each thread loads
    // one element of each tile (zero past the matrix edges), then every
    // thread accumulates a kTile-long slice of its dot product.
    for (int t = 0; t < k; t += kTile) {
        const int a_col = t + threadIdx.x;
        const int b_row = t + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] =
            (row < m && a_col < k) ? a[static_cast<std::size_t>(row) * k + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] =
            (b_row < k && col < n) ? b[static_cast<std::size_t>(b_row) * n + col] : 0.0f;
        __syncthreads();

        for (int i = 0; i < kTile; ++i) {
            acc += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
        }
        __syncthreads();  // before the next iteration overwrites the tiles
    }
    if (row < m && col < n) c[static_cast<std::size_t>(row) * n + col] = acc;
}

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    // The extra column shifts each row to another shared-memory bank, so the
    // column-wise reads below do not conflict.
    __shared__ float tile[kTile][kTile + 1];

    // Read one tile of `in` with coalesced row-wise accesses...
    int col = blockIdx.x * kTile + threadIdx.x;
    int row = blockIdx.y * kTile + threadIdx.y;
    if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[static_cast<std::size_t>(row) * cols + col];
    __syncthreads();

    // ...and write it to the mirrored tile of `out`, again row-wise.
    col = blockIdx.y * kTile + threadIdx.x;  // a column of out is a row of in
    row = blockIdx.x * kTile + threadIdx.y;
    if (row < cols && col < rows) out[static_cast<std::size_t>(row) * rows + col] = tile[threadIdx.x][threadIdx.y];
}

}  // namespace

cudaError_t multiply_naive(const float* a, const float* b, float* c, int m, int n, int k) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    multiply_naive_kernel<<<grid_for(m, n), dim3(kTile, kTile)>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

cudaError_t multiply_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
    if (m <= 0 || n <= 0) return cudaSuccess;
    multiply_tiled_kernel<<<grid_for(m, n), dim3(kTile, kTile)>>>(a, b, c, m, n, k);
    return cudaGetLastError();
}

cudaError_t transpose(const float* in, float* out, int rows, int cols) {
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    transpose_kernel<<<grid_for(rows, cols), dim3(kTile, kTile)>>>(in, out, rows, cols);
    return cudaGetLastError();
}

}  // namespace matmul
