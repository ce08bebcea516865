#include <cuda_runtime.h>

#include "kernels.cuh"

// `ka` gets distinct buffers (it can be split here), `kb` one buffer twice.
void run_a(int n) {
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  ka<<<n / 256, 256>>>(x, y, n);
  kb<<<n / 256, 256>>>(x, x, n);
}
