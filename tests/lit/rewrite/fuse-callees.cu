// Fusion through calls: where the two sides call two different __device__
// functions, their bodies are merged into one local function (a lambda at
// the head of the fused block) that takes the branch condition first (the
// callees stay), and the sides' calls become one call of it. Only where
// every lane computes what its own callee did:
// - merged: `near`/`far` (other constants, parameters named apart), in a
//   loop with a macro after the call; `inner_a`/`inner_b` through
//   `outer_a`/`outer_b` (nested: inside the outer lambda); in a template
//   kernel; two branches of one kernel; a local of one callee read only by
//   its return (declared ahead of its guard);
// - not merged (the calls are selected whole, or the branch declined, and
//   the remark says why): a callee that writes memory, one defined after
//   the kernel, callees of other signatures, a local named as the first
//   callee's parameter, a __host__ __device__ caller (the lambda is device
//   code), a global the second callee reads under the first one's
//   parameter name, an overload declared between the callees and the
//   kernel, a callee with a preprocessor line; and a branch that holds a
//   preprocessor line is declined (its rewrite would keep only what this
//   parse saw); copies that would read other things at the branch (a
//   template parameter named like a global they read, a using-directive
//   between, __LINE__), and static callees the merge would leave
//   unreferenced.
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


__device__ int ia3(int x) {
  int y = x * 3;
  return y + 1;
}
__device__ int ib5(int x) { return x * 5 + 2; }
__device__ int ic7(int x) { return x * 7 + 1; }
__device__ int id9(int x) { return x * 9 + 2; }

__global__ void ints(const float *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (int)(in[i] * 32.0f), r, s;
  if (i & 1)
    r = ia3(v);
  else
    r = ib5(v);
  if (i & 2)
    s = ic7(v + 1);
  else
    s = id9(v + 1);
  out[i] = r + s;
}

__device__ int k = 3;
__device__ int ka(int x, int k) { return x * 5 + k; }
__device__ int kb(int x, int m) { return x * 9 + m + k; }
__device__ int h(long v) { return (int)(v * 2); }
__device__ int oa(int x) { return x * 3 + h(x); }
__device__ int ob(int x) { return x * 5 + h(x); }
__device__ int h(int v) { return v * 1000; }
__device__ int pa(int x) {
#ifdef WIDE
  return x * 4;
#else
  return x * 3;
#endif
}
__device__ int pb(int x) { return x * 5; }

__global__ void ints_refused(const float *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (int)(in[i] * 32.0f), r, s, t;
  if (i & 1) {
    r = ka(v, 2);
    s = oa(v);
    t = pa(v);
  } else {
    r = kb(v, 4);
    s = ob(v);
    t = pb(v);
  }
  if (i & 2) {
#ifdef WIDE
    t += 1;
#endif
    r = r * 2;
  } else {
    r = r * 3;
  }
  out[i] = r + s + t;
}

__device__ const int KC = 3;
__device__ int ta(int x) { return x * 5 + KC; }
__device__ int tb(int x) { return x * 7 - KC; }
static __device__ int sa(int x) { return x * 5 + 1; }
static __device__ int sb(int x) { return x * 7 + 2; }
__device__ int la(int x) { return x * 5 + (__LINE__ > 0); }
__device__ int lb(int x) { return x * 7 + (__LINE__ > 0); }
namespace M {
__device__ int g(int v) { return v * 3 + 1; }
}
__device__ int g(long v) { return (int)(v * 2); }
__device__ int ua(int x) { return g(x) + 1; }
__device__ int ub(int x) { return g(x) + 2; }
using namespace M;
#define SCALE2 3
__device__ int ma(int x) { return x * SCALE2 + 1; }
__device__ int mb(int x) { return x * 5 + 2; }
#undef SCALE2
#define SCALE2 100

// Copies read at the branch would read other things: the template's KC,
// `g` after the using-directive, the branch's __LINE__; and the static
// pair would be left unreferenced; SCALE2, defined again after `ma`.
template <int KC> __global__ void ints_scoped(const float *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = (int)(in[i] * 32.0f), r, s, t, u, w;
  if (i & 1) {
    r = ta(v);
    s = sa(v);
    t = la(v);
    u = ua(v);
    w = ma(v);
  } else {
    r = tb(v);
    s = sb(v);
    t = lb(v);
    u = ub(v);
    w = mb(v);
  }
  out[i] = r + s + t + u + w;
}

int main() {
  const int n = 64;
  float in[n], out[5][n];
  int iout[3][n];
  for (int i = 0; i < n; ++i)
    in[i] = 0.03125f * i - 1.0f;
  float *d_in, *d_out, *d_scratch;
  int *d_iout;
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMalloc((void **)&d_iout, sizeof iout);
  cudaMalloc((void **)&d_scratch, sizeof in);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  two_calls<<<2, 32>>>(d_in, d_out);
  nested<<<2, 32>>>(d_in, d_out + n);
  templated<3><<<2, 32>>>(d_in, d_out + 2 * n);
  refused<<<2, 32>>>(d_in, d_out + 3 * n, d_scratch);
  host_device_caller<<<2, 32>>>(d_in, d_out + 4 * n);
  ints<<<2, 32>>>(d_in, d_iout);
  ints_refused<<<2, 32>>>(d_in, d_iout + n);
  ints_scoped<100><<<2, 32>>>(d_in, d_iout + 2 * n);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost);
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < n; ++i)
      printf("%d %d %.9g\n", k, i, out[k][i]);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < n; ++i)
      printf("i%d %d %d\n", k, i, iout[k][i]);
  return 0;
}

// CHECK-LABEL: __global__ void two_calls(
// CHECK:        const bool ww_cond_[[L1:[0-9]+]] = (i >> k) & 1;
// CHECK-NEXT:   // `near` and `far` merged (ww_side: `near`'s lanes)
// CHECK-NEXT:   auto ww_near_or_far = [](bool ww_side, float x) -> float {
// CHECK-NEXT:     float y = x * (ww_side ? 1.5f : 2.5f) + (ww_side ? 0.25f : 0.5f);
// CHECK-NEXT:     y = y * y * (ww_side ? 0.5f : 0.25f) + (ww_side ? 0.125f : 0.375f);
// CHECK-NEXT:     return y * (ww_side ? 0.75f : 0.5f) + (ww_side ? 1.0f : 2.0f);
// CHECK-NEXT:   };
// CHECK-NEXT:   v = ww_near_or_far(ww_cond_[[L1]], x);
// CHECK-NEXT:   x = NEXT(v);
// CHECK-NEXT: }
// The nested pair inside the lambda that calls it; `far`'s parameter `t`
// is `x` in the merged function.
// CHECK-LABEL: __global__ void nested(
// CHECK:        auto ww_outer_a_or_outer_b = [](bool ww_side, float x) -> float {
// CHECK-NEXT:     // `inner_a` and `inner_b` merged (ww_side_1: `inner_a`'s lanes)
// CHECK-NEXT:     auto ww_inner_a_or_inner_b = [](bool ww_side_1, float x) -> float {
// CHECK-NEXT:       return x * (ww_side_1 ? 3.0f : 5.0f) + (ww_side_1 ? 1.0f : 2.0f);
// CHECK-NEXT:     };
// CHECK-NEXT:     float y = ww_inner_a_or_inner_b(ww_side, x);
// CHECK-NEXT:     return y * y;
// CHECK-NEXT:   };
// CHECK-NEXT:   r = ww_outer_a_or_outer_b(ww_cond_{{[0-9]+}}, in[i]);
// CHECK-LABEL: template <int K> __global__ void templated(
// CHECK:        auto ww_near_or_far = [](bool ww_side, float x) -> float {
// CHECK:        r = ww_near_or_far(ww_cond_{{[0-9]+}}, in[i]);
// CHECK-LABEL: __global__ void refused(
// CHECK-NEXT:   int i
// CHECK-NEXT:   float r, s, w, n;
// CHECK-NEXT:   if (i & 1) {
// CHECK-LABEL: __host__ __device__ float both(
// CHECK:        r = (ww_cond_{{[0-9]+}} ? hd_a(x) : hd_b(x));
// Two branches of one kernel, each with its own lambda; `y`, which only
// `ia3`'s return reads, is declared ahead of its guard.
// CHECK-LABEL: __global__ void ints(
// CHECK:        auto ww_ia3_or_ib5 = [](bool ww_side, int x) -> int {
// CHECK-NEXT:     int y_then;
// CHECK-NEXT:     if (ww_side) {
// CHECK-NEXT:       y_then = x * 3;
// CHECK-NEXT:     }
// CHECK-NEXT:     return (ww_side ? y_then : x * 5) + (ww_side ? 1 : 2);
// CHECK-NEXT:   };
// CHECK:        auto ww_ic7_or_id9 = [](bool ww_side, int x) -> int {
// CHECK-NEXT:     return x * (ww_side ? 7 : 9) + (ww_side ? 1 : 2);
// CHECK-NEXT:   };
// CHECK-LABEL: __global__ void ints_refused(
// CHECK:        r = (ww_cond_{{[0-9]+}} ? ka(v, 2) : kb(v, 4));
// CHECK-NEXT:   s = (ww_cond_{{[0-9]+}} ? oa(v) : ob(v));
// CHECK-NEXT:   t = (ww_cond_{{[0-9]+}} ? pa(v) : pb(v));
// CHECK:        if (i & 2) {
// CHECK-NEXT: #ifdef WIDE
// CHECK-LABEL: __global__ void ints_scoped(
// CHECK:        r = (ww_cond_{{[0-9]+}} ? ta(v) : tb(v));
// CHECK-NEXT:   s = (ww_cond_{{[0-9]+}} ? sa(v) : sb(v));
// CHECK-NEXT:   t = (ww_cond_{{[0-9]+}} ? la(v) : lb(v));
// CHECK-NEXT:   u = (ww_cond_{{[0-9]+}} ? ua(v) : ub(v));
// CHECK-NEXT:   w = (ww_cond_{{[0-9]+}} ? ma(v) : mb(v));
// CHECK-NOT:  ww_{{[a-z0-9]+}}_or_

// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms (profitability was not checked) (through calls: `near` and `far` merged into one local function) [WW4001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms (profitability was not checked) (through calls: `outer_a` and `outer_b` merged into one local function) [WW4001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `store_a` and `store_b`: `store_a` is not pure (it writes memory or exchanges values with other lanes); `later_a` and `later_b`: `later_a` is not defined before `refused` in its file; `near` and `wide`: `near` and `wide` differ in their signatures; `named_a` and `named_b`: a local variable is named as a parameter of `named_a` (merging `named_a` and `named_b`)) [WW3001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `hd_a` and `hd_b`: `both` is also a host function) [WW4001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `ka` and `kb`: `kb` reads `k`, the name its parameter would take; `oa` and `ob`: `h` is declared again between `oa` and the branch; `pa` and `pb`: `pa` holds a preprocessor line, and its copy would keep only what this parse saw) [WW4001]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent, but cannot be merged: a preprocessor line inside the branch
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}} (calls of two functions not merged into one: `ta` and `tb`: `KC`, which the callees read, is declared again where the merged code goes; `sa` and `sb`: `sa` has internal linkage and no caller outside `ints_scoped`, which the merge would leave unreferenced (nvcc's warning #177); `la` and `lb`: a callee reads where it is written (`__LINE__`, `__func__`); `ua` and `ub`: a using-directive between `ua` and the branch may change what its names mean there; `ma` and `mb`: a preprocessor line between `ma` and the branch may change the macros its body uses) [WW4001]
