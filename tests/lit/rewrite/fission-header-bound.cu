// A statement after the loop that consumes one group's result moves up
// between the copies only if it changes nothing the loop header reads: here
// `n = (int)s` would change the second copy's trip count, so it stays after
// both loops (issue 10). The rewritten program computes what the original
// does (CPU executor).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
#include <cstdio>
#include <cuda_runtime.h>

__global__ void bound_changed(const float *x, const float *y, float *out,
                              int n) {
  float s = 0.0f, t = 0.0f;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    t += y[i];
  }
  n = (int)s;
  out[0] = t + n;
}

int main() {
  const int n = 64;
  float h[n];
  for (int i = 0; i < n; ++i)
    h[i] = 0.25f * i;
  float *x, *y, *out;
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&y, sizeof h);
  cudaMalloc(&out, sizeof(float));
  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(y, h, sizeof h, cudaMemcpyHostToDevice);
  bound_changed<<<1, 1>>>(x, y, out, n);
  float r;
  cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("%a\n", r);
  return 0;
}

// CHECK:      for (int i = 0; i < n; ++i) {
// CHECK-NEXT:   s += x[i];
// CHECK-NEXT: }
// CHECK-NEXT: for (int i = 0; i < n; ++i) {
// CHECK-NEXT:   t += y[i];
// CHECK-NEXT: }
// CHECK-NEXT: n = (int)s;
// CHECK-NEXT: out[0] = t + n;
