// lanes.cuh - a kernel in a project header, found through the target's
// include directories. The build splits it (--split-form ww_lanes=literal):
// the rewritten header goes into the build tree, never over this file.
#pragma once

__device__ inline float ww_heavy(float v) {
  float r = v;
  for (int k = 0; k < 16; ++k)
    r = r * 1.0001f + 0.5f;
  return r;
}

static __global__ void ww_lanes(const float *__restrict__ in,
                                float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + ww_heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}
