#include <cuda_runtime.h>

__global__ void broken(int *a) {
  a[threadIdx.x] = undeclared_value;
}
