// Alias facts must see every way a host pointer can be re-aimed (issue 10):
// through a reference to it (`float *&r = d_b; r = d_a;`), through std::swap
// with another pointer, and through a function taking it by reference. In
// each case the kernel's two pointers are the same allocation at its launch,
// so the loop, which stores through one and loads through the other, is not
// split. (The cases were found by running warpwise over small programs of
// our own after a survey of public code; an earlier build split them.)
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err
#include <cuda_runtime.h>
#include <utility>

__global__ void through_reference(float *a, float *b, float *c, int n) {
  for (int i = 0; i < n; i++) {
    c[i] = b[i];
    a[i + 1] = 5.0f;
  }
}

__global__ void through_swap(float *a, float *b, float *c, int n) {
  for (int i = 0; i < n; i++) {
    c[i] = b[i];
    a[i + 1] = 5.0f;
  }
}

__global__ void through_call(float *a, float *b, float *c, int n) {
  for (int i = 0; i < n; i++) {
    c[i] = b[i];
    a[i + 1] = 5.0f;
  }
}

void reaim(float *&p, float *to);

int main() {
  const int n = 8;
  float *d_a, *d_b, *d_c, *d_d, *d_e;
  cudaMalloc(&d_a, (n + 1) * sizeof(float));
  cudaMalloc(&d_b, (n + 1) * sizeof(float));
  cudaMalloc(&d_c, n * sizeof(float));
  cudaMalloc(&d_d, (n + 1) * sizeof(float));
  cudaMalloc(&d_e, (n + 1) * sizeof(float));
  float *&r = d_b;
  r = d_a;
  through_reference<<<1, 1>>>(d_a, d_b, d_c, n);
  float *t = d_a;
  std::swap(d_d, t);
  through_swap<<<1, 1>>>(d_a, d_d, d_c, n);
  reaim(d_e, d_a);
  through_call<<<1, 1>>>(d_a, d_e, d_c, n);
  return 0;
}

// CHECK: fission: loop at line 15: its body is one dependence group (statements at lines 16 and 17 share memory through `a` and `b`); not split [WW3002]
// CHECK: fission: loop at line 22: its body is one dependence group (statements at lines 23 and 24 share memory through `a` and `b`); not split [WW3002]
// CHECK: fission: loop at line 29: its body is one dependence group (statements at lines 30 and 31 share memory through `a` and `b`); not split [WW3002]
