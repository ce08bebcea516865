// Host code calling min and max with mixed argument types, as nvcc's
// overloads allow: int with unsigned, float with double, long with long.
#include <cstdio>

__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = max(i, 3);
}

int main() {
  int n = 1000;
  unsigned cap = 512;
  unsigned threads = min(n, cap);
  long blocks = max((n + 255L) / 256L, 1L);
  double scale = max(0.5f, 0.25);
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  fill<<<blocks, threads>>>(p, n);
  printf("%u %ld %g\n", threads, blocks, scale);
  return 0;
}
