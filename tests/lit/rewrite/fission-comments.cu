// Loop fission keeps every user comment of the loop it splits (issue 26):
// - a comment on the lines above a statement, and one after it on its line,
//   go with the statement into the loop it lands in (a replicated
//   declaration's into every loop that has it);
// - comments attached to no statement (on the `{` line, after the last
//   statement) stay in the first loop;
// - a comment inside a statement (`x = y /* why */;`) stays in it;
// - the statements moved up behind a loop keep theirs, and a comment on the
//   loop's `}` line stays on the last loop's;
// - warpwise's decision comment stays a block of its own under a user's
//   comment right above the loop, one too long for the formatting step's
//   column limit (clang-format used to reflow the two into one);
// - a preprocessor line between the statements of the body cannot keep its
//   place in the split loops: not split.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.split
// RUN: %t.orig > %t.orig.out && %t.split > %t.split.out
// RUN: diff %t.orig.out %t.split.out
// Every comment of the input is in the output (a replicated declaration's
// once per copy).
// RUN: python3 %inputs/comments_kept.py %s %t.cu
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite %t.cu --transforms fission --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>

__global__ void sums(const float *__restrict__ a, const float *__restrict__ b,
                     float *__restrict__ sa, float *__restrict__ sb, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f, u = 0.f;
  // both sums in one pass over the rows: this comment runs past the 80 columns limit
  for (int j = 0; j < n; ++j) { // rows
    // the row of this thread
    const int o = j * 4 + t; // shared index
    // first sum
    s += a[o]; // a's part
    /* second */
    u += b[o] /* b's part */;
    // after the last statement
  } // rows done
  // a's result
  sa[t] = s; // stored early
  sb[t] = u; /* stored late */
  // after the moved statements
}

__global__ void directive(const float *__restrict__ a,
                          const float *__restrict__ b, float *__restrict__ sa,
                          float *__restrict__ sb, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.f, u = 0.f;
  for (int j = 0; j < n; ++j) {
    s += a[j * 4 + t];
#if 1
    u += b[j * 4 + t];
#endif
  }
  sa[t] = s;
  sb[t] = u;
}

int main() {
  const int n = 8, threads = 4;
  float ha[n * threads], hb[n * threads], hs[threads], hu[threads];
  for (int j = 0; j < n * threads; ++j) {
    ha[j] = 1.f + j % 5;
    hb[j] = 2.f + j % 3;
  }
  float *a, *b, *sa, *sb;
  cudaMalloc((void **)&a, sizeof ha);
  cudaMalloc((void **)&b, sizeof hb);
  cudaMalloc((void **)&sa, sizeof hs);
  cudaMalloc((void **)&sb, sizeof hu);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  for (int k = 0; k < 2; ++k) {
    if (k == 0)
      sums<<<1, threads>>>(a, b, sa, sb, n);
    else
      directive<<<1, threads>>>(a, b, sa, sb, n);
    cudaMemcpy(hs, sa, sizeof hs, cudaMemcpyDeviceToHost);
    cudaMemcpy(hu, sb, sizeof hu, cudaMemcpyDeviceToHost);
    for (int t = 0; t < threads; ++t)
      printf("%g %g\n", hs[t], hu[t]);
  }
  return 0;
}

// REMARK: remark: fission: loop at line {{[0-9]+}} splits into 2 independent loops; applied {{.*}}[WW4002]
// REMARK: remark: fission: loop at line {{[0-9]+}}: its body has `#if 1` at line {{[0-9]+}} between statements, which the split loops could not keep in place; not split [WW3002]

// CHECK-LABEL: __global__ void sums(
// CHECK:      float s = 0.f, u = 0.f;
// CHECK-NEXT: // both sums in one pass over the rows: this comment runs past the 80 columns limit
// CHECK-NEXT: // warpwise WW4002 fission.sums.{{[0-9]+}}: a loop split into 2 loops with no
// CHECK-NEXT: // dependence between them; forced: profitability was not checked
// CHECK-NEXT: for (int j = 0; j < n; ++j) { // rows
// CHECK-NEXT:   // the row of this thread
// CHECK-NEXT:   const int o = j * 4 + t; // shared index
// CHECK-NEXT:   // first sum
// CHECK-NEXT:   s += a[o]; // a's part
// CHECK-NEXT:   // after the last statement
// CHECK-NEXT: }
// CHECK-NEXT: // a's result
// CHECK-NEXT: sa[t] = s; // stored early
// CHECK-NEXT: for (int j = 0; j < n; ++j) {
// CHECK-NEXT:   // the row of this thread
// CHECK-NEXT:   const int o = j * 4 + t; // shared index
// CHECK-NEXT:   /* second */
// CHECK-NEXT:   u += b[o] /* b's part */;
// CHECK-NEXT: } // rows done
// CHECK-NEXT: sb[t] = u; /* stored late */
// CHECK-NEXT: // after the moved statements
// CHECK-NEXT: }
