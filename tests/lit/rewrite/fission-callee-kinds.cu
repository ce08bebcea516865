// Call summaries for the callees real kernels use (issue 10): a lambda that
// writes a captured variable, a member function that writes its object, a
// function that writes a __device__ global (which a kernel pointer could
// reach), and sincosf, which stores through its pointer arguments. Each
// write orders the statements that depend on it; the rewritten program
// computes what the original does (CPU executor).
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

struct Acc {
  float s;
  __device__ void add(float v) { s += v; }
};
__device__ float g_total;
__device__ void bump(float v) { g_total += v; }
__device__ void sc(float v, float *o) {
  float sn, cs;
  sincosf(v, &sn, &cs);
  *o = sn + cs;
}

__global__ void lambda_capture(const float *a, const float *b, float *x,
                               float *y, int n) {
  int i = threadIdx.x;
  float s1 = 0, s2 = 0;
  auto addTo1 = [&](float v) { s1 += v; };
  for (int r = 0; r < n; ++r) {
    addTo1(a[r * 32 + i]);
    s2 += b[r * 32 + i];
  }
  x[i] = s1;
  y[i] = s2;
}

__global__ void member(const float *a, const float *b, float *x, float *y,
                       int n) {
  int i = threadIdx.x;
  Acc p{0}, q{0};
  for (int r = 0; r < n; ++r) {
    p.add(a[r * 32 + i]);
    q.add(b[r * 32 + i]);
  }
  x[i] = p.s;
  y[i] = q.s;
}

__global__ void global_and_pointer(const float *a, const float *b, float *x,
                                   float *y, int n) {
  int i = threadIdx.x;
  float s2 = 0, t = 0, u = 0;
  for (int r = 0; r < n; ++r) {
    bump(a[r * 32 + i]);
    s2 += b[r * 32 + i];
  }
  for (int r = 0; r < n; ++r) {
    sc(a[r * 32 + i], &t);
    u += t;
    s2 += b[r * 32 + i];
  }
  x[i] = u;
  y[i] = s2;
}

int main() {
  float h[256];
  for (int i = 0; i < 256; ++i)
    h[i] = 0.03f * i - 2.0f;
  float *a, *b, *x, *y;
  cudaMalloc(&a, sizeof h);
  cudaMalloc(&b, sizeof h);
  cudaMalloc(&x, sizeof h);
  cudaMalloc(&y, sizeof h);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
  float o[64];
  lambda_capture<<<1, 32>>>(a, b, x, y, 8);
  cudaMemcpy(o, x, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o + 32, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("lambda %d %a\n", i, o[i]);
  member<<<1, 32>>>(a, b, x, y, 8);
  cudaMemcpy(o, x, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o + 32, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("member %d %a\n", i, o[i]);
  global_and_pointer<<<1, 32>>>(a, b, x, y, 8);
  cudaMemcpy(o, x, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o + 32, y, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("global %d %a\n", i, o[i]);
  return 0;
}

// CHECK: fission: loop at line 35 splits into 2 independent loops
// CHECK: fission: loop at line 47 splits into 2 independent loops
// CHECK: fission: loop at line 59: its body is one dependence group (statements at lines 60 and 61 share memory through `g_total` and `b`); not split [WW3002]
// CHECK: fission: loop at line 63 splits into 2 independent loops
