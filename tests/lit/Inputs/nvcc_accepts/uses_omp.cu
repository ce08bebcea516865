// A CUDA file whose host code uses OpenMP: nvcc finds the host compiler's
// omp.h.
#include <omp.h>

__global__ void add(float *p) { p[threadIdx.x] += 1.0f; }

int main() {
  int threads = omp_get_max_threads();
  float *p;
  cudaMalloc(&p, 64 * sizeof(float));
  add<<<1, 64>>>(p);
  return threads > 0 ? 0 : 1;
}
