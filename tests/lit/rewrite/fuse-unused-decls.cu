// A forced fuse of arms that each declare a variable nothing reads (found by
// the fuzz campaign, batch D: seed 8110's `tf4_i1_2` and `tf4_e1_0`): the two
// declarations stay apart, each under its arm's guard, so that nvcc warns
// about the variables the user wrote, not about a merged `p_q`. The used
// statements still fuse.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms fuse --fmad=false -o %t.cu 2> /dev/null
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_90 -c %s -o %t.orig.o 2>&1 | grep -o 'variable "[a-z_]*" was declared but never referenced' | sort > %t.orig.warn
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o 2>&1 | grep -o 'variable "[a-z_]*" was declared but never referenced' | sort > %t.new.warn
// RUN: cmp %t.orig.warn %t.new.warn
// RUN: FileCheck %s --check-prefix=WARN --input-file %t.new.warn
// RUN: %warpwise rewrite %t.cu --force-transforms --transforms fuse --fmad=false -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu

__global__ void k(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = a[i];
  float s = 0.0f;
  if (v < 0.0f) {
    float p = (v - v);
    s = s * 0.25f + v * 1.5f;
  } else {
    float q = v;
    s = s * 0.5f + v;
  }
  out[i] = s;
}

// CHECK: const bool ww_cond_[[L:[0-9]+]] = v < 0.0f;
// CHECK: if (ww_cond_[[L]]) {
// CHECK-NEXT: float p = (v - v);
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[L]]) {
// CHECK-NEXT: float q = v;
// CHECK-NEXT: }
// CHECK-NEXT: s = s * (ww_cond_[[L]] ? 0.25f : 0.5f) +
// CHECK-NOT: p_q
// WARN: variable "p" was declared but never referenced
// WARN-NEXT: variable "q" was declared but never referenced
