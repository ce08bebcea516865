// Fusion through calls: where the two sides call two different __device__
// functions, their bodies are merged into one function that takes the
// branch condition first (defined before the kernel; the callees stay), and
// the sides' calls become one call of it. Only where every lane computes
// what its own callee did:
// - merged: `near`/`far` (other constants, parameters named apart), in a
//   loop with a macro after the call; `inner_a`/`inner_b` through
//   `outer_a`/`outer_b` (nested: merged first); in a template kernel (the
//   merged function goes before its template head);
// - not merged (the calls are selected whole, as before): a callee that
//   writes memory, one defined after the kernel, callees of other
//   signatures, a local named as the first callee's parameter, and a
//   __host__ __device__ caller (the merged function is device only).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -v -o %t.cu 2> %t.err
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

#define NEXT(v) ((v) * 0.5f + 0.25f)

__device__ float near(float x) {
  float y = x * 1.5f + 0.25f;
  y = y * y * 0.5f + 0.125f;
  return y * 0.75f + 1.0f;
}

__device__ float far(float t) {
  float y = t * 2.5f + 0.5f;
  y = y * y * 0.25f + 0.375f;
  return y * 0.5f + 2.0f;
}

__global__ void two_calls(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i], v = 0.0f;
  for (int k = 0; k < 4; ++k) {
    if ((i >> k) & 1) {
      v = near(x);
      x = NEXT(v);
    } else {
      v = far(x);
      x = NEXT(v);
    }
  }
  out[i] = x + v;
}

__device__ float inner_a(float x) { return x * 3.0f + 1.0f; }
__device__ float inner_b(float x) { return x * 5.0f + 2.0f; }
__device__ float outer_a(float x) {
  float y = inner_a(x);
  return y * y;
}
__device__ float outer_b(float x) {
  float y = inner_b(x);
  return y * y;
}

__global__ void nested(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  if (i & 1)
    r = outer_a(in[i]);
  else
    r = outer_b(in[i]);
  out[i] = r;
}

// The template kernel.
template <int K> __global__ void templated(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r;
  if (i % K)
    r = near(in[i]);
  else
    r = far(in[i]);
  out[i] = r;
}

__device__ float store_a(float x, float *p) {
  *p = x;
  return x * 2.0f;
}
__device__ float store_b(float x, float *p) { return x * 3.0f; }

__device__ float later_a(float x);
__device__ float later_b(float x);

__device__ float wide(double x) { return (float)(x * 2.0); }

__device__ float named_a(float x) { return x * 2.0f + 1.0f; }
__device__ float named_b(float y) {
  float x = y * 4.0f;
  return x + 1.0f;
}

__global__ void refused(const float *in, float *out, float *scratch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r, s, w, n;
  if (i & 1) {
    r = store_a(in[i], scratch + i);
    s = later_a(in[i]);
    w = near(in[i]);
    n = named_a(in[i]);
  } else {
    r = store_b(in[i], scratch + i);
    s = later_b(in[i]);
    w = wide(in[i]);
    n = named_b(in[i]);
  }
  out[i] = r + s + w + n;
}

__device__ float later_a(float x) { return x * 6.0f; }
__device__ float later_b(float x) { return x * 7.0f; }

__host__ __device__ float hd_a(float x) { return x * 2.0f + 1.0f; }
__host__ __device__ float hd_b(float x) { return x * 3.0f + 1.0f; }

__host__ __device__ float both(float x, int i) {
  float r;
  if (i & 1)
    r = hd_a(x);
  else
    r = hd_b(x);
  return r;
}

__global__ void host_device_caller(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = both(in[i], i);
}

int main() {
  const int n = 64;
  float in[n], out[5][n];
  for (int i = 0; i < n; ++i)
    in[i] = 0.03125f * i - 1.0f;
  float *d_in, *d_out, *d_scratch;
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMalloc((void **)&d_scratch, sizeof in);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  two_calls<<<2, 32>>>(d_in, d_out);
  nested<<<2, 32>>>(d_in, d_out + n);
  templated<3><<<2, 32>>>(d_in, d_out + 2 * n);
  refused<<<2, 32>>>(d_in, d_out + 3 * n, d_scratch);
  host_device_caller<<<2, 32>>>(d_in, d_out + 4 * n);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < n; ++i)
      printf("%d %d %.9g\n", k, i, out[k][i]);
  return 0;
}

// CHECK:      // warpwise: `near` and `far` merged for the branch at line [[L1:[0-9]+]] (ww_side:
// CHECK-NEXT: // `near`'s lanes)
// CHECK-NEXT: static __device__ float ww_near_or_far_[[L1]](bool ww_side, float x) {
// CHECK-NEXT:   float y = x * (ww_side ? 1.5f : 2.5f) + (ww_side ? 0.25f : 0.5f);
// CHECK-NEXT:   y = y * y * (ww_side ? 0.5f : 0.25f) + (ww_side ? 0.125f : 0.375f);
// CHECK-NEXT:   return y * (ww_side ? 0.75f : 0.5f) + (ww_side ? 1.0f : 2.0f);
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: __global__ void two_calls(
// CHECK:        const bool ww_cond_[[L1]] = (i >> k) & 1;
// CHECK-NEXT:   v = ww_near_or_far_[[L1]](ww_cond_[[L1]], x);
// CHECK-NEXT:   x = NEXT(v);
// CHECK-NEXT: }
// The nested pair first, then the pair that calls it; `far`'s parameter `t`
// is `x` in the merged function.
// CHECK:      static __device__ float ww_inner_a_or_inner_b_[[L2:[0-9]+]](bool ww_side, float x) {
// CHECK-NEXT:   return x * (ww_side ? 3.0f : 5.0f) + (ww_side ? 1.0f : 2.0f);
// CHECK:      static __device__ float ww_outer_a_or_outer_b_[[L2]](bool ww_side, float x) {
// CHECK-NEXT:   float y = ww_inner_a_or_inner_b_[[L2]](ww_side, x);
// CHECK-NEXT:   return y * y;
// CHECK:      __global__ void nested(
// CHECK:        r = ww_outer_a_or_outer_b_[[L2]](ww_cond_[[L2]], in[i]);
// CHECK:      static __device__ float ww_near_or_far_[[L3:[0-9]+]](bool ww_side, float x) {
// CHECK:      // The template kernel.
// CHECK-NEXT: template <int K> __global__ void templated(
// CHECK:        r = ww_near_or_far_[[L3]](ww_cond_[[L3]], in[i]);
// CHECK-NOT:  ww_store_a_or
// CHECK-NOT:  ww_later_a_or
// CHECK-NOT:  ww_named_a_or
// CHECK-NOT:  ww_hd_a_or
// CHECK:      __global__ void refused(
// CHECK-NEXT:   int i
// CHECK-NEXT:   float r, s, w, n;
// CHECK-NEXT:   if (i & 1) {
// CHECK:      __host__ __device__ float both(
// CHECK:        r = (ww_cond_{{[0-9]+}} ? hd_a(x) : hd_b(x));

// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `store_a` and `store_b`: `store_a` writes memory; `later_a` and `later_b`: `later_a` is not defined before `refused` in its file; `near` and `wide`: `near` and `wide` differ in their signatures; `named_a` and `named_b`: a local variable is named as a parameter of `named_a` (merging `named_a` and `named_b`)) [WW3001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `hd_a` and `hd_b`: `both` is also a host function) [WW4001]
