#include <cuda_runtime.h>

#include "kernels.cuh"

// The other way round: `kb` can be split here, `ka` cannot.
void run_b(int n) {
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  ka<<<n / 256, 256>>>(y, y, n);
  kb<<<n / 256, 256>>>(x, y, n);
}
