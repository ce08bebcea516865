// Alias facts from the host (issue 10): kernels with plain pointer
// parameters are split when every launch in the file passes distinct
// allocations: cudaMalloc'd variables, copies of them (`cur = d_in`), a
// wrapper function's parameters whose every call passes distinct buffers.
// The analysis is flow- and context-insensitive: a pointer points wherever
// any assignment, swap or call argument may aim it. So a kernel is declined
// when a launch passes the same allocation twice, an offset into another
// argument's buffer, a pointer of unknown origin, two pointers std::swap
// exchanged (either may point to either buffer), or a pointer a callee may
// re-aim through a reference. A query naming a kernel is no launch. Math
// calls in the branch are pure (rules/callees.json), and a __device__
// function template is a known callee, not an indirect call.
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
#include <cuda_runtime.h>
#include <utility>

template <typename T> __device__ T heavy(T v) {
  T r = v;
  for (int k = 0; k < 16; ++k)
    r = r * (T)1.0001 + (T)0.5;
  return r;
}

__global__ void distinct(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + __fsqrt_rn(v) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void same_buffer(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void offset_into(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void unknown_origin(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void through_wrapper(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void swapped(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void reseated(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

void reseat(float *&p, float *to);

static void wrapper(const float *src, float *dst, int n) {
  through_wrapper<<<(n + 255) / 256, 256>>>(src, dst, n);
}

float *from_elsewhere(int n);

int main() {
  int n = 1 << 20;
  float *d_in = nullptr, *d_out = nullptr, *d_tmp;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMalloc((void **)&d_tmp, 2 * n * sizeof(float));
  float *cur = d_in, *next = d_out;
  for (int step = 0; step < 4; ++step) {
    distinct<<<(n + 255) / 256, 256>>>(d_tmp, next, n);
    distinct<<<(n + 255) / 256, 256>>>(cur, d_tmp + n, n);
    float *t = cur;
    cur = next;
    next = t;
  }
  same_buffer<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  same_buffer<<<(n + 255) / 256, 256>>>(d_out, d_out, n);
  offset_into<<<(n + 255) / 256, 256>>>(d_tmp, d_tmp + n, n);
  unknown_origin<<<(n + 255) / 256, 256>>>(from_elsewhere(n), d_out, n);
  float *a = d_in, *b = d_tmp;
  for (int step = 0; step < 2; ++step) {
    swapped<<<(n + 255) / 256, 256>>>(a, b, n);
    std::swap(a, b);
  }
  float *c = d_in, *d = d_out;
  reseat(d, c);
  reseated<<<(n + 255) / 256, 256>>>(c, d, n);
  wrapper(d_in, d_out, n);
  wrapper(d_tmp, d_out, n);
  // A query names a kernel without launching it: the facts stand.
  cudaFuncSetCacheConfig(distinct, cudaFuncCachePreferL1);
  return 0;
}

// CHECK: split: if-else at line 30 of `distinct` is divergent {{.*}}literal split applied because it was forced (--split-form literal) (legal because every launch in this file (lines 125, 126) passes its pointer parameters distinct allocations) [WW4003]
// CHECK: split: if-else at line 42 of `same_buffer` is divergent, but it cannot be split: the condition's inputs are read through `in`, which may alias `out` that the branch writes (neither is __restrict__); the second kernel could see the first one's writes [WW3003]
// CHECK: split: if-else at line 54 of `offset_into` is divergent, but it cannot be split: the condition's inputs are read through `in`, which may alias `out`
// CHECK: split: if-else at line 66 of `unknown_origin` is divergent, but it cannot be split: the condition's inputs are read through `in`, which may alias `out`
// CHECK: split: if-else at line 78 of `through_wrapper` is divergent {{.*}}literal split applied because it was forced (--split-form literal) (legal because every launch in this file (line 112) passes its pointer parameters distinct allocations) [WW4003]
// CHECK: split: if-else at line 90 of `swapped` is divergent, but it cannot be split: the condition's inputs are read through `in`, which may alias `out`
// CHECK: split: if-else at line 102 of `reseated` is divergent, but it cannot be split: the condition's inputs are read through `in`, which may alias `out`
