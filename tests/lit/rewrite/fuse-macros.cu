// Macros in the sides of a fused branch: each is rewritten correctly or the
// branch is declined with a remark that names the macro; never a crash.
// - MUL, an object-like macro naming an intrinsic, in both arms (this used
//   to crash in the declarator of `float a = MUL(u, u);`);
// - TWICE, whose argument is expanded twice: the argument is not replaced by
//   a select (that would change both uses), the statements stay guarded;
// - SCALE, a function-like macro whose expansion is more than its argument
//   or the whole invocation: nothing inside its expansion is selected; the
//   two statements that use it differently stay whole, under guards;
// - FACTOR, whose body names a variable of one side (which the rewrite may
//   have to rename): declined;
// - STEP, a macro holding two statements: declined.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.fused
// RUN: %t.orig > %t.orig.out && %t.fused > %t.fused.out
// RUN: diff %t.orig.out %t.fused.out
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite %t.cu --transforms fuse --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
#include <cstdio>

#define MUL __fmul_rn
#define TWICE(x) x + x
#define SCALE(v) (v * 2.0f)
#define FACTOR k
#define STEP(d, s) d = s; d = d + 1.0f

__global__ void object_like(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u = in[t];
  float r;
  if (threadIdx.x % 2) {
    float a = MUL(u, u);
    r = a + 1.0f;
  } else {
    float a = MUL(u, u);
    r = a + 2.0f;
  }
  out[t] = r;
}

__global__ void twice(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u = in[t], v = in[t] * 0.5f;
  float r;
  if (threadIdx.x % 2) {
    float a = u * 3.0f;
    r = TWICE(a);
  } else {
    float a = u * 3.0f;
    r = a + v;
  }
  out[t] = r;
}

__global__ void function_like(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u = in[t];
  float r;
  if (threadIdx.x % 2) {
    r = SCALE(u);
  } else {
    r = SCALE(u) + 1.0f;
  }
  out[t] = r;
}

__global__ void body_names_local(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u = in[t];
  float r;
  if (threadIdx.x % 2) {
    float k = u * 2.0f;
    r = u * FACTOR;
  } else {
    float k = u * 3.0f;
    r = u * FACTOR + 1.0f;
  }
  out[t] = r;
}

__global__ void two_statements(const float *in, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float u = in[t];
  float r;
  if (threadIdx.x % 2) {
    STEP(r, u);
  } else {
    r = u * 2.0f;
  }
  out[t] = r;
}

int main() {
  float in[64], out[5][64];
  for (int i = 0; i < 64; ++i)
    in[i] = 0.25f * i - 3.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  object_like<<<2, 32>>>(d_in, d_out);
  twice<<<2, 32>>>(d_in, d_out + 64);
  body_names_local<<<2, 32>>>(d_in, d_out + 128);
  two_statements<<<2, 32>>>(d_in, d_out + 192);
  function_like<<<2, 32>>>(d_in, d_out + 256);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 64; ++i)
      printf("%d %d %.6f\n", k, i, out[k][i]);
  return 0;
}

// CHECK-LABEL: __global__ void object_like(
// CHECK:      const bool ww_cond_[[L:[0-9]+]] = threadIdx.x % 2;
// CHECK-NEXT: float a = MUL(u, u);
// CHECK-NEXT: r = a + (ww_cond_[[L]] ? 1.0f : 2.0f);
// CHECK-LABEL: __global__ void twice(
// CHECK:      const bool ww_cond_[[T:[0-9]+]] = threadIdx.x % 2;
// CHECK-NEXT: float a = u * 3.0f;
// CHECK-NEXT: if (ww_cond_[[T]]) {
// CHECK-NEXT:   r = TWICE(a);
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[T]]) {
// CHECK-NEXT:   r = a + v;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void function_like(
// CHECK:      const bool ww_cond_[[S:[0-9]+]] = threadIdx.x % 2;
// CHECK-NEXT: if (ww_cond_[[S]]) {
// CHECK-NEXT:   r = SCALE(u);
// CHECK-NEXT: }
// CHECK-NEXT: if (!ww_cond_[[S]]) {
// CHECK-NEXT:   r = SCALE(u) + 1.0f;
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void body_names_local(
// CHECK-NEXT:   int t
// CHECK-NEXT:   float u
// CHECK-NEXT:   float r;
// CHECK-NEXT:   if (threadIdx.x % 2) {
// CHECK-LABEL: __global__ void two_statements(
// CHECK-NEXT:   int t
// CHECK-NEXT:   float u
// CHECK-NEXT:   float r;
// CHECK-NEXT:   if (threadIdx.x % 2) {

// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent, but cannot be merged: `k`, a variable of one side, is used inside the body of macro `FACTOR` (line {{[0-9]+}}), where warpwise cannot rewrite it; declined [WW3001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent, but cannot be merged: code at line {{[0-9]+}} lies partly inside macro `STEP`, so it cannot be rewritten in place [WW3001]
