// Floating-point contraction (issue 10): nvcc contracts a product with the
// add that consumes it into one fma at its default -fmad=true. A select
// between them (`x * y + (c ? z : y * z)`) would change which product is
// contracted on the else side, and so the rounding: fusion selects a product
// only as part of the whole expression, here keeping `r`'s statements under
// guards, while the constant factor of `s` is still selected. With
// --fmad=false (the program is built without contraction) the product is
// selected, and the remark says on what condition that is exact.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.fused
// RUN: %t.orig > %t.orig.out && %t.fused > %t.fused.out
// RUN: diff %t.orig.out %t.fused.out
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms --fmad=false -o %t.nofma.cu 2> %t.nofma.err
// RUN: FileCheck %s --check-prefix=NOFMA --input-file %t.nofma.cu
// RUN: FileCheck %s --check-prefix=NOFMA-REMARK --input-file %t.nofma.err
// RUN: %nvcc -arch=sm_90 -fmad=false -c %t.nofma.cu -o %t.nofma.o
#include <cstdio>

__global__ void k(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[t], y = in[t + 64], z = in[t + 128];
  float r, s;
  if (t % 2) {
    r = x * y + z;
    s = x * 3.0f - z * y;
  } else {
    r = x * y + y * z;
    s = x * 5.0f - z * y;
  }
  out[t] = r + s;
}

int main() {
  float in[192], out[64];
  for (int i = 0; i < 192; ++i)
    in[i] = 0.37f * i - 11.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  k<<<2, 32>>>(d_in, d_out);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("%d %a\n", i, out[i]);
  return 0;
}

// CHECK:      const bool ww_cond_[[L:[0-9]+]] = t % 2;
// CHECK-NEXT: if (ww_cond_[[L]]) {
// CHECK-NEXT:   r = x * y + z;
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[L]]) {
// CHECK-NEXT:   r = x * y + y * z;
// CHECK-NEXT: }
// CHECK-NEXT: s = x * (ww_cond_[[L]] ? 3.0f : 5.0f) - z * y;
// CHECK-NOT:  ? z : y * z
// NOFMA:      r = x * y + (ww_cond_{{[0-9]+}} ? z : y * z);
// NOFMA-REMARK: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (1 select(s) of a floating-point product: bit-identical only when built with -fmad=false, as --fmad=false says) [WW4001]
