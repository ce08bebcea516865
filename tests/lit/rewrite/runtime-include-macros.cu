// The runtime include (measured dispatch, split, refill) goes above the
// file's first macro definition, or above the outermost conditional around
// it, so that no macro of the program reaches the standard headers the
// runtime includes. A function-like `swap(A, B)` above the kernel broke
// <mutex>'s <tuple> when the include went right above the kernel (found on
// DARM's pcm_bitonic: WW1012, the dispatch dropped). A string literal that
// holds `/*` does not hide the macros that follow it.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse,dispatch --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.o
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms fuse,dispatch --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
// REMARK-NOT: WW1012
// REMARK: remark: dispatch: `pairs` keeps its original as `pairs_ww_original`
// REMARK-NOT: WW1012

// CHECK:      static_assert(sizeof("/* not a comment") > 1, "");
// CHECK-EMPTY:
// CHECK-NEXT: #include "warpwise_runtime.cuh" // warpwise's runtime (WW4006)
// CHECK-EMPTY:
// CHECK-NEXT: // The program's own macros follow.
// CHECK-NEXT: // A comment above the conditional stays with it.
// CHECK-NEXT: #ifndef ORDER
// A literal that opens no comment: the raw lexer reads the file.
static_assert(sizeof("/* not a comment") > 1, "");

// The program's own macros follow.
// A comment above the conditional stays with it.
#ifndef ORDER
#define ORDER 1
#endif
#define swap(A, B)                                                             \
  {                                                                            \
    float t = A;                                                               \
    A = B;                                                                     \
    B = t;                                                                     \
  }

__global__ void pairs(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 >= n)
    return;
  float a = data[2 * i], b = data[2 * i + 1];
  float r;
  if (i % 2 == ORDER) {
    float s = a * 2.0f;
    r = s + b;
  } else {
    float s = a * 3.0f;
    r = s + b;
  }
  if (r > 0.0f)
    swap(a, b);
  data[2 * i] = a;
  data[2 * i + 1] = r;
}

void run(float *data, int n) { pairs<<<(n / 2 + 255) / 256, 256>>>(data, n); }
