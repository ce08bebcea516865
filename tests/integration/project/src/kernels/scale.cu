// scale.cu - the second translation unit; WW_SCALE comes from a library the
// target links.
#include "tile.h"

#ifndef WW_SCALE
#error "WW_SCALE is not defined: the linked library's definitions were not passed"
#endif

__global__ void scale(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= WW_SCALE;
}

void launch_scale(float *data, int n) {
  scale<<<(n + 127) / (WW_TILE * 32), WW_TILE * 32>>>(data, n);
}
