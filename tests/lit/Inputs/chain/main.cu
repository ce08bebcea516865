// main.cu includes lib/mid.cuh, which includes lib/k.cuh, where the kernel
// is: k.cuh is rewritten, mid.cuh is not.
#include "lib/mid.cuh"

int main() {
  float *a, *b, *s, *q;
  cudaMalloc(&a, 64 * 64 * sizeof(float));
  cudaMalloc(&b, 64 * 64 * sizeof(float));
  cudaMalloc(&s, 64 * sizeof(float));
  cudaMalloc(&q, 64 * sizeof(float));
  two_sums<<<1, 64>>>(a, b, s, q, 64);
  diamond<<<1, 128>>>(a, s, 64, 3.0f);
  cudaDeviceSynchronize();
  return 0;
}
