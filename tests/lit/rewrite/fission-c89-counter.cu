// A counter declared before the loop and set by its initialiser
// (`int j; for (j = 0; ...)`, common in C-style kernels such as PolyBench's)
// starts again in every copy and ends with the same value, so the loop can be
// split; one that only the increment advances (`o` below) cannot. The
// rewritten program computes what the original does (CPU executor).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
#include <cstdio>
#include <cuda_runtime.h>

__global__ void c89(const float *a, const float *b, float *x, float *y, int n) {
  int i = threadIdx.x;
  int j;
  float s = 0, t = 0;
  for (j = 0; j < n; j++) {
    s += a[j * 32 + i];
    t += b[j * 32 + i] * 2.0f;
  }
  x[i] = s + j;
  y[i] = t;
}

__global__ void advanced(const float *a, const float *b, float *x, float *y,
                         int n) {
  int i = threadIdx.x;
  int j, o = i;
  float s = 0, t = 0;
  for (j = 0; j < n; j++, o += 32) {
    s += a[o];
    t += b[o] * 2.0f;
  }
  x[i] = s + o;
  y[i] = t;
}

int main() {
  float h[256];
  for (int i = 0; i < 256; ++i)
    h[i] = 0.05f * i - 3.0f;
  float *a, *b, *x, *y;
  cudaMalloc(&a, sizeof h);
  cudaMalloc(&b, sizeof h);
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&y, sizeof h);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
  float o[64];
  c89<<<1, 32>>>(a, b, x, y, 8);
  cudaMemcpy(o, x, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o + 32, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("c89 %d %a\n", i, o[i]);
  advanced<<<1, 32>>>(a, b, x, y, 8);
  return 0;
}

// CHECK: fission: loop at line 21 splits into 2 independent loops
// CHECK: fission: loop at line 34: its header changes `o`, declared outside the loop: every copy would change it again; not split [WW3002]
