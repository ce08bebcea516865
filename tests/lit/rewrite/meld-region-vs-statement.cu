// CFM's "region vs single statement" case: one side has an if-then region
// the other lacks; the region stays guarded, the rest merges around it.
// nvcc's code for it grows here, so warpwise declines unless forced.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.plain.cu 2> %t.plain.err
// RUN: cmp %s %t.plain.cu
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.plain.err
// RUN: %warpwise rewrite %s --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void region(float *a, float *b, int inner) {
  __shared__ float sa[128];
  __shared__ float sb[128];
  int t = threadIdx.x;
  sa[t] = a[t];
  sb[t] = b[t];
  for (int j = 0; j < inner; ++j) {
    if (t % 2 == 0) {
      float x = sa[t] * 0.75f + 0.125f;
      if (x > 0.25f) {
        x = x * x - 0.5f;
      }
      sa[t] = x;
    } else {
      float x = sb[t] * 0.75f + 0.125f;
      sb[t] = x;
    }
  }
  a[t] = sa[t];
  b[t] = sb[t];
}

// CHECK:      const bool ww_cond_[[L:[0-9]+]] = t % 2 == 0;
// CHECK-NEXT: float x = (ww_cond_[[L]] ? sa : sb)[t] * 0.75f + 0.125f;
// CHECK-NEXT: if (ww_cond_[[L]]) {
// CHECK-NEXT:   if (x > 0.25f) {
// CHECK-NEXT:     x = x * x - 0.5f;
// CHECK-NEXT:   }
// CHECK-NEXT:   sa[t] = x;
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[L]]) {
// CHECK-NEXT:   sb[t] = x;
// CHECK-NEXT: }

// REMARK: meld: if-else at line {{[0-9]+}} is divergent; similarity {{.*}}; but nvcc's code does not shrink (SASS instructions {{.*}}): it already shares that work; declined [WW3001]
