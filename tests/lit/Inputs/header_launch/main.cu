#include "launch.cuh"

int main() {
  float *p;
  cudaMalloc(&p, 1024 * 1024 * sizeof(float));
  runHalve(p, 1024, 1024);
  cudaDeviceSynchronize();
  return 0;
}
