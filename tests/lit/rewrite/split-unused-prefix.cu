// Branch splitting: each new kernel keeps only the statements before the
// branch whose results it uses, directly or through other kept statements
// (issue 26, defect 6). The prefix has no side effects (legality), so a
// statement left out changes nothing a kernel computes; kept, it left nvcc
// warnings in the output (#550 "set but never used" for `bias` and `count`,
// #177 "declared but never referenced" for `y`), fatal under
// -Werror all-warnings. Early exits stay in every kernel. Each form's output
// compiles without a warning and computes what the original does (CPU
// executor; the adaptive form also with each run-time path pinned).
// REQUIRES: nvcc
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %s -o %t.orig.o
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.literal.cu 2> %t.literal.err
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.compact.cu 2> %t.compact.err
// RUN: %warpwise rewrite %s --transforms split --split-form adaptive -o %t.adaptive.cu 2> %t.adaptive.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.literal.cu > %t.literal.code
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.compact.cu > %t.compact.code
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.adaptive.cu > %t.adaptive.code
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.literal.code
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.compact.code
// RUN: FileCheck %s --check-prefix=ADAPTIVE --input-file %t.adaptive.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.literal.cu -o %t.literal.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.compact.cu -o %t.compact.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.adaptive.cu -o %t.adaptive.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.literal.cu %t.literal
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.compact.cu %t.compact
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.adaptive.cu %t.adaptive
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.adaptive.cu %t.adaptive1 -DWARPWISE_SPLIT_PATH=1
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.adaptive.cu %t.adaptive2 -DWARPWISE_SPLIT_PATH=2
// RUN: %t.orig > %t.orig.out
// RUN: grep -q 'unused-prefix: OK' %t.orig.out
// RUN: %t.literal > %t.literal.out && diff %t.orig.out %t.literal.out
// RUN: %t.compact > %t.compact.out && diff %t.orig.out %t.compact.out
// RUN: %t.adaptive > %t.adaptive.out && diff %t.orig.out %t.adaptive.out
// RUN: %t.adaptive1 > %t.adaptive1.out && diff %t.orig.out %t.adaptive1.out
// RUN: %t.adaptive2 > %t.adaptive2.out && diff %t.orig.out %t.adaptive2.out

#include <cstdio>

__global__ void scale_or_sum(const int *__restrict__ mask,
                             const float *__restrict__ in,
                             float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  // The else side's: declared, then set.
  float bias;
  bias = in[(i + 7) % n] * 0.5f;
  int count = 0;
  for (int k = 0; k < 4; ++k)
    count += mask[(i + k) % n] != 0;
  float y = x * 2.0f; // the then side's
  const int m = mask[i];
  if (m == 0) {
    out[i] = y + 1.0f;
  } else {
    float s = bias;
    for (int k = 0; k < 16; ++k)
      s += in[(i + k * 3) % n] * x;
    out[i] = s + (float)count;
  }
}

int main() {
  const int n = 1000;
  static int mask[n];
  static float in[n], out[n];
  for (int i = 0; i < n; ++i) {
    mask[i] = (i * 7919) % 5 == 0;
    in[i] = (float)(i % 13) * 0.25f;
    out[i] = -1.0f;
  }
  int *d_mask;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_mask, n * sizeof(int));
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMemcpy(d_mask, mask, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_out, out, n * sizeof(float), cudaMemcpyHostToDevice);
  scale_or_sum<<<(n + 63) / 64, 64>>>(d_mask, d_in, d_out, n);
  cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0.0;
  int written = 0;
  for (int i = 0; i < n; ++i) {
    sum += out[i] * (double)(i % 17 + 1);
    written += out[i] >= 0.0f;
  }
  printf("checksum %.6f\n", sum);
  printf("unused-prefix: %s\n", written == n ? "OK" : "FAILED");
  cudaFree(d_mask);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}

// The then-kernel: no `bias`, `count`, their loop or their comment; the
// else-kernel: no `y`.
// LITERAL-LABEL: __global__ void scale_or_sum_ww_then(
// LITERAL:         if (i >= n)
// LITERAL-NEXT:      return;
// LITERAL-NEXT:    float x = in[i];
// LITERAL-NEXT:    float y = x * 2.0f; // the then side's
// LITERAL-NEXT:    const int m = mask[i];
// LITERAL-NEXT:    if (!(m == 0))
// LITERAL-LABEL: __global__ void scale_or_sum_ww_else(
// LITERAL:         if (i >= n)
// LITERAL-NEXT:      return;
// LITERAL-NEXT:    float x = in[i];
// LITERAL-NEXT:    // The else side's: declared, then set.
// LITERAL-NEXT:    float bias;
// LITERAL-NEXT:    bias = in[(i + 7) % n] * 0.5f;
// LITERAL-NEXT:    int count = 0;
// LITERAL-NEXT:    for (int k = 0; k < 4; ++k)
// LITERAL-NEXT:      count += mask[(i + k) % n] != 0;
// LITERAL-NEXT:    const int m = mask[i];
// LITERAL-NEXT:    if (m == 0)

// The decision needs the early exit and `m` only; the light (then) side
// `x` and `y`; the heavy side everything but `y`.
// COMPACT-LABEL: __global__ void scale_or_sum_ww_light(
// COMPACT:         do {
// COMPACT-NEXT:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// COMPACT-NEXT:      if (i >= n)
// COMPACT-NEXT:        break;
// COMPACT-NEXT:      const int m = mask[i];
// COMPACT-NEXT:      ww_heavy = !(m == 0);
// COMPACT-NEXT:    } while (0);
// COMPACT:         int i = blockIdx.x * blockDim.x + threadIdx.x;
// COMPACT-NEXT:    if (i >= n)
// COMPACT-NEXT:      return;
// COMPACT-NEXT:    float x = in[i];
// COMPACT-NEXT:    float y = x * 2.0f;
// COMPACT-NEXT:    {
// COMPACT-LABEL: __global__ void scale_or_sum_ww_heavy(
// COMPACT:         int i = ww_block * blockDim.x + ww_thread;
// COMPACT-NEXT:    if (i >= n)
// COMPACT-NEXT:      return;
// COMPACT-NEXT:    float x = in[i];
// COMPACT-NEXT:    float bias;
// COMPACT-NEXT:    bias = in[(i + 7) % n] * 0.5f;
// COMPACT-NEXT:    int count = 0;
// COMPACT-NEXT:    for (int k = 0; k < 4; ++k)
// COMPACT-NEXT:      count += mask[(i + k) % n] != 0;
// COMPACT-NEXT:    {

// ADAPTIVE-LABEL: scale_or_sum_ww_adaptive(
// ADAPTIVE:         do {
// ADAPTIVE-NEXT:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// ADAPTIVE-NEXT:      if (i >= n)
// ADAPTIVE-NEXT:        break;
// ADAPTIVE-NEXT:      const int m = mask[i];
// ADAPTIVE-NEXT:      ww_live = true;
// ADAPTIVE-LABEL: scale_or_sum_ww_light(
// ADAPTIVE:         do {
// ADAPTIVE-NEXT:      int i = blockIdx.x * blockDim.x + threadIdx.x;
// ADAPTIVE-NEXT:      if (i >= n)
// ADAPTIVE-NEXT:        break;
// ADAPTIVE-NEXT:      const int m = mask[i];
// ADAPTIVE-NEXT:      ww_live = true;
// ADAPTIVE:         int i = blockIdx.x * blockDim.x + threadIdx.x;
// ADAPTIVE-NEXT:    if (i >= n)
// ADAPTIVE-NEXT:      return;
// ADAPTIVE-NEXT:    float x = in[i];
// ADAPTIVE-NEXT:    float y = x * 2.0f;
// ADAPTIVE-NEXT:    {
// ADAPTIVE-LABEL: scale_or_sum_ww_heavy(
// ADAPTIVE:           int i = ww_block.x * blockDim.x + ww_thread.x;
// ADAPTIVE-NEXT:      if (i >= n)
// ADAPTIVE-NEXT:        continue;
// ADAPTIVE-NEXT:      float x = in[i];
// ADAPTIVE-NEXT:      float bias;
// ADAPTIVE-NEXT:      bias = in[(i + 7) % n] * 0.5f;
// ADAPTIVE-NEXT:      int count = 0;
// ADAPTIVE-NEXT:      for (int k = 0; k < 4; ++k)
// ADAPTIVE-NEXT:        count += mask[(i + k) % n] != 0;
// ADAPTIVE-NEXT:      {
