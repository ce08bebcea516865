#include <cuda_runtime.h>

__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadI