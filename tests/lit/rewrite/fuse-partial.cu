// Partial alignment: statements without a counterpart stay under guards in
// their order; a guarded declaration used after its guard is declared first,
// under a fresh name, and assigned in the guard. (Its similarity is just
// under the threshold, so the rewrite is forced here to show its shape.)
// REQUIRES: nvcc
// --fmad=false: the fused kernels here compute floats that nvcc contracts differently once fused (declined at its default); this test is not about that (fmad-contraction.cu is).
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void partial(const float *in, float *out, float *log, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float v = in[tid];
  float r;
  if (v > 0.5f) {
    float s = v * v;
    float t = s * v;
    float w = t * 3.0f + s;
    r = w / (s + 1.0f);
  } else {
    float s = v * v;
    float t = s * 2.0f;
    log[tid] = t;
    r = t / (s + 1.0f);
  }
  out[tid] = r;
}

// CHECK:      const bool ww_cond_[[L:[0-9]+]] = v > 0.5f;
// CHECK-NEXT: float w_then;
// CHECK-NEXT: float s = v * v;
// CHECK-NEXT: float t = s * (ww_cond_[[L]] ? v : 2.0f);
// CHECK-NEXT: if (ww_cond_[[L]]) {
// CHECK-NEXT:   w_then = t * 3.0f + s;
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[L]]) {
// CHECK-NEXT:   log[tid] = t;
// CHECK-NEXT: }
// CHECK-NEXT: r = (ww_cond_[[L]] ? w_then : t) / (s + 1.0f);
// CHECK-NEXT: }
// CHECK-NEXT: out[tid] = r;
