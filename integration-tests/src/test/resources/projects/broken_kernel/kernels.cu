// Deliberately broken: 'undeclared_value' does not exist, so nvcc must fail with an error naming this file.
__global__ void broken(float* out) {
    out[threadIdx.x] = undeclared_value;
}
