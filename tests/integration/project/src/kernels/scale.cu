// scale.cu - the second translation unit; WW_SCALE comes from a library the
// target links. Nothing here is rewritten.
#include "tile.h"

#ifndef WW_SCALE
#error "WW_SCALE is not defined: the linked library's definitions were not passed"
#endif

__global__ void scale(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= WW_SCALE;
}

// nvcc warns here (#177-D, an unused variable); warpwise changes nothing in
// this file, and the warning must name it, not the copy the build compiles.
void launch_scale(float *data, int n) {
  int ww_unused_here;
  scale<<<(n + 127) / (WW_TILE * 32), WW_TILE * 32>>>(data, n);
}
