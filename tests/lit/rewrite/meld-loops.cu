// Loops with matching structure on both sides: bounds and operands are
// selected, the bodies melded; a statement without a counterpart stays
// guarded inside the melded loop. Only the first of eight warps has lanes on
// both sides (t < 16 at 256 threads), and the constant-trip loop nvcc
// unrolls would run as a loop with selected bounds: the model declines it,
// so the rendering is checked forced.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.plain.cu 2> %t.plain.err
// RUN: cmp %s %t.plain.cu
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.plain.err
// RUN: %warpwise rewrite %s --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void strips(float *rows, float *cols, int n) {
  int t = threadIdx.x;
  float *row = rows + blockIdx.x * 64;
  float *col = cols + blockIdx.x * 64;
  if (t < 16) {
    for (int i = 1; i < 8; ++i) {
      float s = row[i * 8 + t % 8];
      row[i * 8 + t % 8] = s * 0.5f;
    }
  } else {
    for (int i = 0; i < n; ++i) {
      float s = col[(t % 8) * 8 + i];
      col[(t % 8) * 8 + i] = s * 0.25f;
    }
  }
}

// CHECK:      const bool ww_cond_[[L:[0-9]+]] = t < 16;
// CHECK-NEXT: for (int i = (ww_cond_[[L]] ? 1 : 0); i < (ww_cond_[[L]] ? 8 : n); ++i) {
// CHECK-NEXT:   float s = (ww_cond_[[L]] ? row : col)[(ww_cond_[[L]] ? i : (t % 8)) * 8 +
// CHECK-NEXT:             (ww_cond_[[L]] ? t % 8 : i)];
// CHECK-NEXT:   if (ww_cond_[[L]]) {
// CHECK-NEXT:     row[i * 8 + t % 8] = s * 0.5f;
// CHECK-NEXT:   }
// CHECK-NEXT:   if (!ww_cond_[[L]]) {
// CHECK-NEXT:     col[(t % 8) * 8 + i] = s * 0.25f;
// CHECK-NEXT:   }
// CHECK-NEXT: }

// REMARK: meld: if-else at line 21 is divergent; {{.*}}; model (meld): issue slots per warp {{.*}}; strips at 256 threads: 12.5% of warps mixed (evaluated lane by lane at 256 threads per block), predicted 0.{{[0-9]+}}x; 1 merged loop(s) that nvcc unrolled before get selected bounds and run as loops; the loop at line 27 is assumed to run 16 times (its bounds are not constants); declined: a case is predicted below 0.99x (rules/costs.json) [WW3001]
