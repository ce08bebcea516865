#include <cuda_runtime.h>

#include "kernels.cuh"

int main() {
  const int n = 1 << 20;
  float *in, *out, *sum, *sq;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&sum, n * sizeof(float));
  cudaMalloc(&sq, n * sizeof(float));
  ka<<<n / 256, 256>>>(in, out, n);
  reduce2<<<n / 256, 256>>>(in, out, sum, sq, n / 4, 4);
  cudaDeviceSynchronize();
  return 0;
}
