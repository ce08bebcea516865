// Loop fission of a loop that is the whole, brace-less body of another
// statement (issue 26): the split loops are wrapped in braces, so that all of
// them stay inside the outer loop, the else branch, the case or the label.
// Before, only the first loop stayed there and the others ran once, after
// it: this program then printed other numbers (`u` summed once instead of
// four times). fission-braceless-compile.cu has the shapes whose old output
// did not compile.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
// RUN: FileCheck %s --check-prefix=OUT --input-file %t.split.out
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite %t.cu --transforms fission --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>

// The outer loop runs 4 times. Both copies read `len`, so the outer loop
// stays one loop in the next pass.
__global__ void nest(const float *__restrict__ a, const float *__restrict__ b,
                     float *__restrict__ out, const int *__restrict__ len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = len[0];
  float s = 0.f, u = 0.f;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < len[0]; ++j) {
      s += a[t * n + j];
      u += b[t * n + j];
    }
  out[t] = s + 2.f * u;
}

// The else branch, a case and a label.
__global__ void holders(const float *__restrict__ a,
                        const float *__restrict__ b, float *__restrict__ out,
                        const int *__restrict__ len, int pick) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = len[0];
  float s = 1.f, u = 1.f;
  if (pick < 0)
    s = 0.f;
  else
    for (int j = 0; j < n; ++j) {
      s += a[t * n + j];
      u += b[t * n + j];
    }
  switch (pick) {
  case 1:
    for (int j = 0; j < n; ++j) {
      s += a[t * n + j];
      u -= b[t * n + j];
    }
    break;
  default:
    break;
  }
  if (pick > 5)
    goto done;
again:
  for (int j = 0; j < n; ++j) {
    s *= 0.5f;
    u *= 0.75f;
  }
  if (++pick < 3)
    goto again;
done:
  out[t] = s + 2.f * u;
}

static void run(int which, int pick) {
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
  if (which == 0)
    nest<<<1, threads>>>(a, b, o, len);
  else
    holders<<<1, threads>>>(a, b, o, len, pick);
  cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost);
  printf("%d %d:", which, pick);
  for (int t = 0; t < threads; ++t)
    printf(" %g", ho[t]);
  printf("\n");
  cudaFree(a);
  cudaFree(b);
  cudaFree(o);
  cudaFree(len);
}

int main() {
  run(0, 0);
  for (int pick = -1; pick < 3; ++pick)
    run(1, pick);
  return 0;
}

// REMARK-COUNT-4: remark: fission: loop at line {{[0-9]+}} splits into 2 independent loops; applied because of --force-transforms {{.*}}[WW4002]
// REMARK-NOT: remark: fission

// CHECK-LABEL: __global__ void nest(
// CHECK:      for (int i = 0; i < 4; ++i) {
// CHECK-NEXT:   // warpwise WW4002 fission.nest.{{[0-9]+}}: a loop split into 2 loops with no
// CHECK-NEXT:   // dependence between them; forced: profitability was not checked
// CHECK-NEXT:   for (int j = 0; j < len[0]; ++j) {
// CHECK-NEXT:     s += a[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int j = 0; j < len[0]; ++j) {
// CHECK-NEXT:     u += b[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: out[t] = s + 2.f * u;

// CHECK-LABEL: __global__ void holders(
// CHECK:      s = 0.f;
// CHECK-NEXT: else {
// CHECK-NEXT:   // warpwise WW4002 fission.holders.{{[0-9]+}}:
// CHECK-NEXT:   // {{.*}}
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     s += a[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     u += b[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: switch (pick) {
// CHECK-NEXT: case 1: {
// CHECK-NEXT:   // warpwise WW4002 fission.holders.{{[0-9]+}}:
// CHECK-NEXT:   // {{.*}}
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     s += a[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     u -= b[t * n + j];
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: break;
// CHECK:      again: {
// CHECK-NEXT:   // warpwise WW4002 fission.holders.{{[0-9]+}}:
// CHECK-NEXT:   // {{.*}}
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     s *= 0.5f;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (int j = 0; j < n; ++j) {
// CHECK-NEXT:     u *= 0.75f;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: if (++pick < 3)

// OUT:      0 0: 268 292 296 276
