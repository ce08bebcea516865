#include <cuda_runtime.h>

#include "kernels.cuh"

void run_ka(int n) {
  float *src, *dst;
  cudaMalloc(&src, n * sizeof(float));
  cudaMalloc(&dst, n * sizeof(float));
  ka<<<(n + 255) / 256, 256>>>(src, dst, n);
}
