// time() without <time.h>: nvcc's cuda_runtime.h includes it.
#include <cstdlib>

__global__ void seed(unsigned *p, unsigned s) { p[threadIdx.x] = s + threadIdx.x; }

int main() {
  unsigned *p;
  cudaMalloc(&p, 32 * sizeof(unsigned));
  seed<<<1, 32>>>(p, (unsigned)time(NULL));
  return 0;
}
