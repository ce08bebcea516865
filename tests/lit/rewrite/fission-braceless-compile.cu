// Loop fission of a brace-less loop body, the shapes whose old output did
// not compile (issue 26): the split-off loop uses the outer loop's counter
// (it landed outside that loop), and a do-while's body (the second loop
// landed between the body and the `while`). With braces both compile and
// compute the same; a `#pragma unroll` between the outer and the inner loop
// goes to each copy, inside the braces, and stays with its loop when the
// next pass splits the outer loop too.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms fission --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>

__global__ void nest_pragma(const float *__restrict__ a,
                            const float *__restrict__ b,
                            float *__restrict__ out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f, u = 0.f;
  for (int i = 0; i < 3; ++i)
#pragma unroll 1
    for (int j = 0; j < n; ++j) {
      s += a[t * n + j] * i;
      u += b[t * n + j] * i;
    }
  out[t] = s + 2.f * u;
}

__global__ void do_body(const float *__restrict__ a,
                        const float *__restrict__ b, float *__restrict__ out,
                        const int *__restrict__ len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = len[0];
  float s = 1.f, u = 1.f;
  int k = 0;
  do
    for (int j = 0; j < n; ++j) {
      s += a[t * n + j] * k;
      u += b[t * n + j] * k;
    }
  while (++k < 3);
  out[t] = s + 2.f * u;
}

int main() {
  const int n = 8, threads = 4;
  float ha[n * threads], hb[n * threads], ho[threads];
  for (int j = 0; j < n * threads; ++j) {
    ha[j] = 1.f + j % 5;
    hb[j] = 2.f + j % 3;
  }
  float *a, *b, *o;
  int *len;
  cudaMalloc((void **)&len, sizeof n);
  cudaMemcpy(len, &n, sizeof n, cudaMemcpyHostToDevice);
  cudaMalloc((void **)&a, sizeof ha);
  cudaMalloc((void **)&b, sizeof hb);
  cudaMalloc((void **)&o, sizeof ho);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  for (int which = 0; which < 2; ++which) {
    if (which == 0)
      nest_pragma<<<1, threads>>>(a, b, o, n);
    else
      do_body<<<1, threads>>>(a, b, o, len);
    cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost);
    for (int t = 0; t < threads; ++t)
      printf(" %g", ho[t]);
    printf("\n");
  }
  return 0;
}

// REMARK-COUNT-2: remark: fission: loop at line {{[0-9]+}} splits into 2 independent loops; applied because of --force-transforms (occupancy was not checked) [WW4002]
// REMARK-NEXT: remark: fission: loop at line {{[0-9]+}} splits into 2 independent loops; applied because of --force-transforms (occupancy was not checked) (pass 2: {{.*}}) [WW4002]

// CHECK-LABEL: __global__ void nest_pragma(
// CHECK:      for (int i = 0; i < 3; ++i) {
// CHECK-NEXT: // warpwise WW4002 fission.nest_pragma.{{[0-9]+}}:
// CHECK-NEXT: // {{.*}}
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     s += a[t * n + j] * i;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: for (int i = 0; i < 3; ++i) {
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     u += b[t * n + j] * i;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: out[t] = s + 2.f * u;

// CHECK-LABEL: __global__ void do_body(
// CHECK:      do {
// CHECK-NEXT:   // warpwise WW4002 fission.do_body.{{[0-9]+}}:
// CHECK-NEXT:   // {{.*}}
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     s += a[t * n + j] * k;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     u += b[t * n + j] * k;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: while (++k < 3);

// --fmad=false: at nvcc's default this rewrite is declined, as nvcc rounds
// its float arithmetic differently (e.g. `2.f * u` as u + u after it);
// this test is about the rewritten text (fmad-contraction.cu is about that).
