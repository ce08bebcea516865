// CFM's "region vs single statement" case: one side has an if-then region
// the other lacks; the region stays guarded, the rest merges around it.
// It is SB1 of the CFM shapes with a region added: the execution model
// predicts a gain where lanes disagree every iteration (t % 2), so it is
// applied although nvcc's code grows (the merged loop gets unrolled).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
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

// REMARK: meld: if-else at line {{[0-9]+}} is divergent {{.*}}; 1 statement pair merged, 2 then- and 1 else-statements kept under guards, 1 operand selects; model (fuse): issue slots per warp {{.*}} region at 256 threads: 100.0% of warps mixed (evaluated lane by lane at 256 threads per block), predicted {{[0-9.]+}}x; {{.*}}applied [WW4001]
