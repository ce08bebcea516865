// An initialised variable-length array in host code: a GCC extension nvcc's
// host compiler accepts.
#include <cuda_runtime.h>

__global__ void touch(cudaSurfaceObject_t s) {}

void launchAll(int planes) {
  cudaSurfaceObject_t surfaces[planes] = {0};
  for (int i = 0; i < planes; ++i)
    touch<<<1, 32>>>(surfaces[i]);
}
