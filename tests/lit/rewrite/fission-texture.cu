// Texture fetches are reads of memory no kernel writes during its launch
// (rules/callees.json): they do not block fission, where Clang's
// implementation of them (inline asm) alone would.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
#include <cuda_runtime.h>

__global__ void fetch_two(cudaTextureObject_t ta, cudaTextureObject_t tb,
                          float *x, float *y, int n) {
  int i = threadIdx.x;
  float s = 0, t = 0;
  for (int r = 0; r < n; ++r) {
    s += tex1Dfetch<float>(ta, r * 32 + i);
    t += tex1Dfetch<float>(tb, r * 32 + i) * 2.0f;
  }
  x[i] = s;
  y[i] = t;
}

void run(cudaTextureObject_t ta, cudaTextureObject_t tb, int n) {
  float *x, *y;
  cudaMalloc(&x, 32 * sizeof(float));
  cudaMalloc(&y, 32 * sizeof(float));
  fetch_two<<<1, 32>>>(ta, tb, x, y, n);
}

// CHECK: fission: loop at line 14 splits into 2 independent loops; applied because of --force-transforms

// --fmad=false: at nvcc's default this rewrite is declined, as nvcc rounds
// its float arithmetic differently (e.g. `2.f * u` as u + u after it);
// this test is about the rewritten text (fmad-contraction.cu is about that).
