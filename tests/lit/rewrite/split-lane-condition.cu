// A branch directly on threadIdx.x is split (issue 10): reading a builtin
// index is not a side effect (Clang's HasSideEffects says it is: the accessor
// is a call), so the condition is re-evaluated in both kernels. The split
// program computes what the original does (CPU executor).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.cu
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
#include <cstdio>
#include <cuda_runtime.h>

static __global__ void lanes(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (threadIdx.x % 32 < 16) {
    float r = v;
    for (int j = 0; j < 32; ++j)
      r = r * 1.01f + 0.5f;
    out[i] = r;
  } else {
    out[i] = v * 0.5f;
  }
}

int main() {
  const int n = 200;
  float h[n];
  for (int i = 0; i < n; ++i)
    h[i] = 0.01f * i - 0.7f;
  float *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  lanes<<<(n + 63) / 64, 64>>>(in, out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    printf("%d %a\n", i, h[i]);
  return 0;
}

// CHECK:      static __global__ void lanes_ww_then(const float *in, float *out, int n) {
// CHECK:        if (!(threadIdx.x % 32 < 16))
// CHECK-NEXT:     return;
// CHECK:      static __global__ void lanes_ww_else(const float *in, float *out, int n) {
// CHECK:        if (threadIdx.x % 32 < 16)
// CHECK-NEXT:     return;
// CHECK:      lanes_ww_then<<<(n + 63) / 64, 64>>>(in, out, n); lanes_ww_else<<<(n + 63) / 64, 64>>>(in, out, n);
// REMARK: split: if-else at line 22 of `lanes` is divergent (the condition depends on `threadIdx.x`){{.*}}literal split applied because it was forced (--split-form literal) (legal because every launch in this file (line 41) passes its pointer parameters distinct allocations) [WW4003]
