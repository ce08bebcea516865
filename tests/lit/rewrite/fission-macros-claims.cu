// Loop fission and macros, and fission next to a branch fusion rewrote.
// - `ACC(v, a[o]);`, a statement written as a macro call, keeps exactly one
//   `;` in the split loops (the statement ends inside the expansion);
// - the statements after a loop that fission may move up stop at a branch
//   that fuse already rewrote: moving `sum[i] = s0;` over it would overlap
//   that rewrite (WW1008, and nothing written).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse,fission --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
// RUN: %warpwise rewrite %t.cu --transforms fuse,fission --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>

#define ACC(s, x) s += (x)
#define BUMP(s, x)                                                            \
  do {                                                                         \
    s += (x);                                                                  \
  } while (0)

__global__ void macro_statements(const float *__restrict__ a,
                                 const float *__restrict__ b,
                                 float *__restrict__ sum,
                                 float *__restrict__ sq, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0, w = 0;
  for (int r = 0; r < rows; ++r) {
    const int o = r * 64 + i;
    ACC(v, a[o]);
    BUMP(w, b[o] * b[o]);
  }
  sum[i] = v;
  sq[i] = w;
}

__global__ void before_fused(const float *__restrict__ a,
                             const float *__restrict__ b,
                             float *__restrict__ sum, float *__restrict__ sq,
                             float *__restrict__ out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, q0 = 0;
  for (int r = 0; r < rows; ++r) {
    s0 += a[r * 64 + i];
    q0 += b[r * 64 + i] * b[r * 64 + i];
  }
  float x;
  if (threadIdx.x % 2) {
    x = a[i] * 2.0f;
  } else {
    x = a[i] * 3.0f;
  }
  sum[i] = s0;
  sq[i] = q0;
  out[i] = x;
}

int main() {
  float a[256], b[256], res[5][64];
  for (int i = 0; i < 256; ++i) {
    a[i] = 0.5f * (i % 17) - 2.0f;
    b[i] = 0.25f * (i % 13) + 1.0f;
  }
  float *d_a, *d_b, *d_r;
  cudaMalloc((void **)&d_a, sizeof a);
  cudaMalloc((void **)&d_b, sizeof b);
  cudaMalloc((void **)&d_r, sizeof res);
  cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice);
  macro_statements<<<2, 32>>>(d_a, d_b, d_r, d_r + 64, 4);
  before_fused<<<2, 32>>>(d_a, d_b, d_r + 128, d_r + 192, d_r + 256, 4);
  cudaMemcpy(res, d_r, sizeof res, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 64; ++i)
      printf("%d %d %.6f\n", k, i, res[k][i]);
  return 0;
}

// CHECK-LABEL: __global__ void macro_statements(
// CHECK:      // warpwise WW4002 fission.macro_statements.{{[0-9]+}}: a loop split into 2 loops with
// CHECK-NOT:  {{^ *[^ /]}}
// CHECK:      for (int r = 0; r < rows; ++r) {
// CHECK-NEXT:   const int o = r * 64 + i;
// CHECK-NEXT:   ACC(v, a[o]);
// CHECK-NEXT: }
// CHECK-NEXT: sum[i] = v;
// CHECK-NEXT: for (int r = 0; r < rows; ++r) {
// CHECK-NEXT:   const int o = r * 64 + i;
// CHECK-NEXT:   BUMP(w, b[o] * b[o]);
// CHECK-NEXT: }
// CHECK-NEXT: sq[i] = w;
// CHECK-LABEL: __global__ void before_fused(
// CHECK:      // warpwise WW4002 fission.before_fused.{{[0-9]+}}: a loop split into 2 loops with no
// CHECK-NOT:  {{^ *[^ /]}}
// CHECK:      for (int r = 0; r < rows; ++r) {
// CHECK-NEXT:   s0 += a[r * 64 + i];
// CHECK-NEXT: }
// CHECK-NEXT: for (int r = 0; r < rows; ++r) {
// CHECK-NEXT:   q0 += b[r * 64 + i] * b[r * 64 + i];
// CHECK-NEXT: }
// CHECK-NEXT: float x;
// CHECK-NEXT: {
// CHECK-NEXT:   // warpwise WW4001 fuse.before_fused.{{[0-9]+}}: fused the two sides of a divergent
// CHECK:      sum[i] = s0;
// CHECK-NEXT: sq[i] = q0;
// CHECK-NEXT: out[i] = x;

// REMARK-NOT: WW1008
// REMARK-NOT: error
