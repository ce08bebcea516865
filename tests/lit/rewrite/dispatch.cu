// Measured dispatch (issue 25, item 1; in the default set): a kernel that
// another transformation rewrote in place keeps its original, renamed
// `<k>_ww_original`, right after the rewrite; every launch of it in the
// file becomes a block that asks warpwise's runtime which version to run
// (its configuration evaluated once, the stream and dynamic shared memory
// passed on). Declined, with the reason, where a launch cannot be wrapped
// (inside a macro) or the kernel is named other than by launches (its
// address reaches only the rewrite), and where a directive disables it.
// A kernel nothing rewrote is left alone, without a remark. The output
// compiles without a warning, and rewriting it again changes nothing: the
// kept original is final.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse --force-transforms --measured-dispatch -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: grep -c "^#include \"warpwise_runtime.cuh\"" %t.code | FileCheck %s --check-prefix=ONE-INCLUDE
// ONE-INCLUDE: 1
// RUN: grep -q '^#include "warpwise_runtime.cuh" // warpwise.s runtime (WW4006)$' %t.code
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms fuse --force-transforms --measured-dispatch -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// `dispatch` in --transforms is the same as --measured-dispatch.
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse,dispatch --force-transforms -o %t.named.cu 2> /dev/null
// RUN: cmp %t.cu %t.named.cu
// A kernel in a project header, rewritten in place: declined, with the reason.
// RUN: rm -rf %t.hdr && mkdir %t.hdr && cp %inputs/headers/fuse.cuh %inputs/headers/fusemain.cu %t.hdr/
// RUN: cd %t.hdr && %warpwise rewrite fusemain.cu -i --transforms fuse --measured-dispatch 2> %t.hdr/err
// RUN: FileCheck %s --check-prefix=HEADER --input-file %t.hdr/err
// HEADER: fuse.cuh:3:17: remark: dispatch: `diamond`: no measured dispatch: the kernel is in a header, and the dispatch keeps the originals of kernels in the main file only; the rewrite runs on the model's decision alone [WW3006]
// RUN: cd %t.hdr && not grep -q "ww_measured\|_ww_original" fusemain.cu fuse.cuh
// A --transforms list without it keeps no original, nor does
// --no-measured-dispatch; the default set has it.
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse --force-transforms -o %t.plain.cu 2> /dev/null
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.plain.cu | not grep -q "void [a-z]*_ww_original\|ww_measured_site"
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse,dispatch --no-measured-dispatch --force-transforms -o %t.off.cu 2> /dev/null
// RUN: cmp %t.plain.cu %t.off.cu
// RUN: %warpwise rewrite --fmad=false %s --force-transforms -o %t.default.cu 2> %t.default.err
// RUN: grep -q "void scale_ww_original" %t.default.cu
// RUN: grep -q "keeps its original as .scale_ww_original.*WW4006" %t.default.err

#include <cuda_runtime.h>

#define LAUNCH_IN_MACRO(k, g, b, x, y, n) k<<<g, b>>>(x, y, n)

// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:17: remark: dispatch: `scale` keeps its original as `scale_ww_original`; its 2 launches in this file time both versions on their first launches of each shape, the rewrite first, and run the faster (-DWARPWISE_DISPATCH=0 or =1 pins one); launches from other files run the rewrite [WW4006]
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

// CHECK-LABEL: __global__ void scale(
// CHECK:       // warpwise WW4001 fuse.scale.{{[0-9]+}}:
// CHECK:       // warpwise WW4006 dispatch.scale.[[ID:[0-9]+]]: the original of `scale`, which the measured
// CHECK-NEXT:  // dispatch runs where it is faster; chosen at run time
// CHECK-NEXT:  static __global__ void scale_ww_original(const float *in, float *out, int n) {
// CHECK:         if (i % 2) {
// CHECK-NEXT:      float s = v * 2.0f;
// CHECK-NEXT:      r = s + 1.0f;
// CHECK-NEXT:    } else {

// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:34: remark: dispatch: `steps` keeps its original as `steps_ww_original`; its 2 launches in this file time both versions on their first launches of each shape, the rewrite first, and run the faster (-DWARPWISE_DISPATCH=0 or =1 pins one); launches from other files run the rewrite [WW4006]
template <int K> __global__ void steps(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * (float)K;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

// CHECK-LABEL: template <int K> __global__ void steps(
// CHECK:       // warpwise WW4006 dispatch.steps.{{[0-9]+}}: the original of `steps`
// CHECK-NEXT:  // dispatch runs where it is faster; chosen at run time
// CHECK-NEXT:  template <int K>
// CHECK-NEXT:  static __global__ void steps_ww_original(const float *in, float *out, int n) {

// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:17: remark: dispatch: `attributed`: no measured dispatch: the kernel is named other than by a launch at line [[#@LINE+18]], which would reach the rewrite only; the rewrite runs on the model's decision alone [WW3006]
__global__ void attributed(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

void launch_attributed(const float *in, float *out, int n) {
  cudaFuncSetAttribute(attributed, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
  attributed<<<(n + 255) / 256, 256>>>(in, out, n);
}

// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:17: remark: dispatch: `in_macro`: no measured dispatch: the launch at line [[#@LINE+18]] is inside the macro `LAUNCH_IN_MACRO`; the rewrite runs on the model's decision alone [WW3006]
__global__ void in_macro(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

void launch_in_macro(const float *in, float *out, int n) {
  LAUNCH_IN_MACRO(in_macro, (n + 255) / 256, 256, in, out, n);
}

// REMARK-DAG: dispatch.cu:[[#@LINE+2]]:17: remark: dispatch: `disabled`: disabled by `// warpwise-disable-next-line(dispatch)` at line [[#@LINE+1]]; its launches run the rewrite [WW3006]
// warpwise-disable-next-line(dispatch)
__global__ void disabled(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

// The rewrite is in a __device__ function it calls: declined, since a kept
// original would call the rewritten helper.
__device__ float helper(float v, int i) {
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  return r;
}

// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:17: remark: dispatch: `calls_helper`: no measured dispatch: it calls `helper`, which an earlier transformation rewrote, so its original would run the rewritten code too; the rewrite runs on the model's decision alone [WW3006]
__global__ void calls_helper(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = helper(in[i], i);
}

// A template with an explicit specialization: the copy of the primary
// template would run in place of the specialization. Declined.
// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:34: remark: dispatch: `special`: no measured dispatch: the template has an explicit specialization (line [[#@LINE+16]]), which the copy of the template would not have; the rewrite runs on the model's decision alone [WW3006]
template <int K> __global__ void special(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * (float)K;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}
template <> __global__ void special<4>(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 42.0f;
}

// A launch that leaves an argument to its default. Declined.
// REMARK-DAG: dispatch.cu:[[#@LINE+1]]:17: remark: dispatch: `defaulted`: no measured dispatch: the launch at line {{[0-9]+}} leaves an argument to its default; the rewrite runs on the model's decision alone [WW3006]
__global__ void defaulted(const float *in, float *out, int n = 256) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  float r;
  if (i % 2) {
    float s = v * 2.0f;
    r = s + 1.0f;
  } else {
    float s = v * 3.0f;
    r = s + 2.0f;
  }
  out[i] = r;
}

// Nothing rewrites it: no dispatch, no remark.
// REMARK-NOT: `untouched`
__global__ void untouched(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

void run(const float *in, float *out, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
  steps<4><<<(n + 127) / 128, 128>>>(in, out, n);
  // A lambda of host code is host code (it is implicitly __host__
  // __device__): its launch is wrapped too.
  auto again = [&]() {
    steps<4><<<(n + 127) / 128, 128>>>(in, out, n);
  };
  again();
  disabled<<<(n + 255) / 256, 256>>>(in, out, n);
  untouched<<<(n + 255) / 256, 256>>>(in, out, n);
  calls_helper<<<(n + 255) / 256, 256>>>(in, out, n);
  special<4><<<1, 64>>>(in, out, n);
  special<2><<<1, 64>>>(in, out, n);
  defaulted<<<1, 256>>>(in, out);
  int blocks = 0;
  scale<<<++blocks, 64, 16>>>(in, out, n);
}

// CHECK-LABEL: void run(
// CHECK:       { // warpwise WW4006 dispatch.scale.[[ID]]: measured dispatch launch
// CHECK-NEXT:    dim3 const ww_grid_[[T:[0-9]+_[0-9]+]]((n + 255) / 256);
// CHECK-NEXT:    dim3 const ww_block_[[T]](256);
// CHECK-NEXT:    static ww_measured_site ww_msite_[[T]];
// The scalar argument `n` is part of the launch's shape.
// CHECK-NEXT:    ww_measured_plan ww_mplan_[[T]] =
// CHECK-NEXT:        ww_measured_begin(ww_msite_[[T]], ww_grid_[[T]], ww_block_[[T]], 0,
// CHECK-NEXT:                          stream, ww_measured_key(n));
// CHECK-NEXT:    if (ww_mplan_[[T]].version != 0u)
// CHECK-NEXT:      scale<<<ww_grid_[[T]], ww_block_[[T]], 0, stream>>>(in, out, n);
// CHECK-NEXT:    else
// CHECK-NEXT:      scale_ww_original<<<ww_grid_[[T]], ww_block_[[T]], 0, stream>>>(in, out,
// CHECK-NEXT:                                                                      n);
// CHECK-NEXT:    ww_measured_end(ww_mplan_[[T]]);
// CHECK-NEXT:  }
// CHECK:         steps<4><<<
// CHECK:         steps_ww_original<4><<<
// CHECK:       auto again = [&]() {
// CHECK-NEXT:    { // warpwise WW4006 dispatch.steps.{{[0-9]+}}: measured dispatch launch
// CHECK:           steps_ww_original<4>
// CHECK:       disabled<<<(n + 255) / 256, 256>>>(in, out, n);
// CHECK-NEXT:  untouched<<<(n + 255) / 256, 256>>>(in, out, n);
// CHECK-NEXT:  calls_helper<<<(n + 255) / 256, 256>>>(in, out, n);
// CHECK-NEXT:  special<4><<<1, 64>>>(in, out, n);
// CHECK-NEXT:  special<2><<<1, 64>>>(in, out, n);
// CHECK-NEXT:  defaulted<<<1, 256>>>(in, out);
// The grid has a side effect: evaluated once, into a temporary.
// CHECK:       dim3 const ww_grid_value_{{[0-9_]+}} = ++blocks;
// CHECK:         scale<<<{{.*}}, 16, 0>>>(in, out, n);
// CHECK:         scale_ww_original<<<{{.*}}, 16, 0>>>(in, out, n);
