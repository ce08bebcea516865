// Fission with calls (issue 10): a template helper that writes an array
// through a reference parameter (`acc(s1, ...)` in a template kernel, where
// the callee is only named, not resolved, in the pattern) writes s1, so the
// consumer `r1[t] = weigh(s1)` stays after the loop that fills s1; the math
// API is pure (rules/callees.json); a loop header that advances a variable
// declared outside the loop is not re-executable; `s *= (T)2` writes s even
// with an `operator*=` overload in scope. The pointers are plain: every
// launch passes distinct cudaMalloc buffers, and the remark says so. The
// rewritten program computes what the original does (CPU executor).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
// RUN: %warpwise rewrite %t.cu --transforms fission --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>
#include <cuda_runtime.h>

template <int K> __device__ void acc(float (&s)[K], float x) {
  for (int k = 0; k < K; ++k)
    s[k] += x * (k + 1);
}
template <int K> __device__ float weigh(const float (&s)[K]) {
  float w = 0;
  for (int k = 0; k < K; ++k)
    w += s[k] * (k + 1);
  return w;
}

template <int W>
__global__ void tmpl_acc(const float *a, const float *b, float *r1, float *r2,
                         int n) {
  int t = threadIdx.x;
  float s1[4] = {0, 0, 0, 0};
  float s2[4] = {0, 0, 0, 0};
  for (int j = 0; j < n; ++j) {
    acc(s1, a[j * W + t]);
    acc(s2, b[j * W + t]);
  }
  r1[t] = weigh(s1);
  r2[t] = weigh(s2);
}

__global__ void header_effect(const float *a, float *x, float *y, int steps,
                              int n) {
  int o = threadIdx.x;
  for (int t = 0; t < steps; t++, o += n) {
    x[o] = a[o] * 2.0f;
    y[o] = a[o] + 1.0f;
  }
}

struct V2 {
  float x, y;
};
__device__ V2 &operator*=(V2 &v, float f) {
  v.x *= f;
  v.y *= f;
  return v;
}

template <typename T>
__global__ void tmpl_scale(const T *a, T *x, T *y, int n) {
  int t = threadIdx.x;
  T s = a[t];
  T u = a[t + 32];
  for (int r = 0; r < n; ++r) {
    s *= (T)2;
    x[r * 32 + t] = s;
    y[r * 32 + t] = u + (T)r;
  }
}

__global__ void math_calls(const float *a, const float *b, float *x, float *y,
                           int n) {
  int i = threadIdx.x;
  float p = 0, q = 0;
  for (int r = 0; r < n; ++r) {
    p += sqrtf(fabsf(a[r * 32 + i]));
    q += __fsqrt_rn(fabsf(b[r * 32 + i])) + fminf(q, 1.0f);
  }
  x[i] = p;
  y[i] = q;
}

int main() {
  const int N = 32 * 8, Big = 32 * 8 * 8;
  float h[Big];
  for (int i = 0; i < Big; ++i)
    h[i] = 0.125f * (i % 17) - 1.0f;
  float *a, *b, *r1, *r2;
  cudaMalloc(&a, sizeof h);
  cudaMalloc(&b, sizeof h);
  cudaMalloc(&r1, sizeof h);
  cudaMalloc(&r2, sizeof h);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h + 5, sizeof h - 5 * sizeof(float), cudaMemcpyHostToDevice);
  float o1[N], o2[N];
  tmpl_acc<32><<<1, 32>>>(a, b, r1, r2, 8);
  cudaMemcpy(o1, r1, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o2, r2, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i)
    printf("acc %d %a %a\n", i, o1[i], o2[i]);
  tmpl_scale<float><<<1, 32>>>(a, r1, r2, 8);
  cudaMemcpy(o1, r1, N * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o2, r2, N * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < N; ++i)
    printf("scale %d %a %a\n", i, o1[i], o2[i]);
  math_calls<<<1, 32>>>(a, b, r1, r2, 8);
  cudaMemcpy(o1, r1, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o2, r2, 32 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i)
    printf("math %d %a %a\n", i, o1[i], o2[i]);
  header_effect<<<1, 32>>>(a, r1, r2, 8, 32);
  return 0;
}

// CHECK-LABEL: __global__ void tmpl_acc(
// CHECK:      for (int j = 0; j < n; ++j) {
// CHECK-NEXT:   acc(s1, a[j * W + t]);
// CHECK-NEXT: }
// CHECK-NEXT: r1[t] = weigh(s1);
// CHECK-NEXT: for (int j = 0; j < n; ++j) {
// CHECK-NEXT:   acc(s2, b[j * W + t]);
// CHECK-NEXT: }
// CHECK-NEXT: r2[t] = weigh(s2);
// CHECK-LABEL: __global__ void header_effect(
// CHECK-NEXT: int n) {
// CHECK-NEXT: int o = threadIdx.x;
// CHECK-NEXT: for (int t = 0; t < steps; t++, o += n) {
// CHECK-NEXT:   x[o] = a[o] * 2.0f;
// CHECK-NEXT:   y[o] = a[o] + 1.0f;
// CHECK-LABEL: __global__ void tmpl_scale(
// CHECK:      for (int r = 0; r < n; ++r) {
// CHECK-NEXT:   s *= (T)2;
// CHECK-NEXT:   x[r * 32 + t] = s;
// CHECK-NEXT: }
// CHECK-NEXT: for (int r = 0; r < n; ++r) {
// CHECK-NEXT:   y[r * 32 + t] = u + (T)r;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void math_calls(
// CHECK:      for (int r = 0; r < n; ++r) {
// CHECK-NEXT:   p += sqrtf(fabsf(a[r * 32 + i]));
// CHECK-NEXT: }
// CHECK-NEXT: x[i] = p;
// CHECK-NEXT: for (int r = 0; r < n; ++r) {
// CHECK-NEXT:   q += __fsqrt_rn(fabsf(b[r * 32 + i])) + fminf(q, 1.0f);
// CHECK-NEXT: }
// CHECK-NEXT: y[i] = q;

// REMARK: fission: loop at line 43 splits into 2 independent loops (every launch in this file (line 106) passes its pointer parameters distinct allocations); applied because of --force-transforms
// REMARK: fission: loop at line 54: its header changes `o`, declared outside the loop: every copy would change it again; not split [WW3002]
// REMARK: fission: loop at line 74 splits into 2 independent loops (every launch in this file (line 111) passes its pointer parameters distinct allocations)
// REMARK: fission: loop at line 85 splits into 2 independent loops (every launch in this file (line 116) passes its pointer parameters distinct allocations)
