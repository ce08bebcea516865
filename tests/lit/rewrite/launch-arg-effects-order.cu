// A launch evaluates its configuration before its arguments. A rewritten
// launch evaluates an argument with side effects once, into a temporary
// before the launch block's own code; the configuration that is not a
// constant then goes into a temporary before it, so that `n += 256` in the
// arguments does not change the grid `n / 256` computes (before, the
// rewritten launches ran twice the blocks and 5 where the original ran 4,
// and the kernels, whose bound is the new n, covered more items). Run on
// the CPU executor (--fmad=false: without nvcc the floating-point check
// cannot run): the same output as the original for the refill (forced) and
// the literal split.
// RUN: %warpwise rewrite %s -o %t.refill.cu --force-transforms --transforms refill --no-ptxas --fmad=false 2> /dev/null
// RUN: FileCheck %s --check-prefix=REFILL --input-file %t.refill.cu
// RUN: %warpwise rewrite %s -o %t.split.cu --force-transforms --transforms split --split-form literal --no-ptxas --fmad=false 2> /dev/null
// RUN: FileCheck %s --check-prefix=SPLIT --input-file %t.split.cu
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.refill.cu %t.refill
// RUN: python3 %S/../../equiv/cpu_build.py %t.split.cu %t.split
// RUN: %t.orig > %t.orig.out
// RUN: %t.refill > %t.refill.out
// RUN: %t.split > %t.split.out
// RUN: diff %t.orig.out %t.refill.out
// RUN: diff %t.orig.out %t.split.out
// RUN: FileCheck %s --check-prefix=OUT --input-file %t.orig.out
// Both outputs compile with nvcc, every warning an error.
// REQUIRES: nvcc
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.refill.cu -o %t.refill.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.split.cu -o %t.split.o
#include <cstdio>

__global__ void esc(const float *__restrict__ in, int *__restrict__ it_out,
                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  int it = 0;
  while (x > 1.0f && it < 64) {
    x = x * 0.75f + 0.0625f;
    ++it;
  }
  it_out[i] = it;
}

__global__ void half(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (threadIdx.x % 2)
    out[i] = in[i] * 3.0f + 1.0f;
  else
    out[i] = in[i] * 0.5f - 2.0f;
}

int main() {
  const int total = 1024;
  static float h_in[total], h_out[total];
  static int h_its[total];
  for (int i = 0; i < total; ++i) {
    h_in[i] = (float)(i % 97);
    h_out[i] = -12345.0f;
    h_its[i] = -1;
  }
  float *in, *out;
  int *its;
  cudaMalloc((void **)&in, total * sizeof(float));
  cudaMalloc((void **)&out, total * sizeof(float));
  cudaMalloc((void **)&its, total * sizeof(int));
  cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  cudaMemcpy(out, h_out, sizeof h_out, cudaMemcpyHostToDevice);
  cudaMemcpy(its, h_its, sizeof h_its, cudaMemcpyHostToDevice);
  int n = 256;
  esc<<<n / 256, 256>>>(in, its, n += 256);
  half<<<n / 128, 128>>>(in, out, n += 128);
  cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_its, its, sizeof h_its, cudaMemcpyDeviceToHost);
  int ran = 0, wrote = 0;
  for (int i = 0; i < total; ++i) {
    ran += h_its[i] >= 0;
    wrote += h_out[i] != -12345.0f;
  }
  printf("esc items %d, half items %d, n %d\n", ran, wrote, n);
  return 0;
}

// REFILL: dim3 const ww_grid_value_[[L:[0-9_]+]] = n / 256;
// REFILL-NEXT: int const ww_arg2_[[L]] = n += 256;
// REFILL-NEXT: dim3 const ww_grid_[[L]](ww_grid_value_[[L]]);
// SPLIT: dim3 const ww_grid_value_[[S:[0-9_]+]] = n / 128;
// SPLIT-NEXT: int const ww_arg2_[[S]] = n += 128;
// OUT: esc items 256, half items 512, n 640
