// Idempotence: code warpwise wrote is final. A melded if-else claims its
// range, so fission leaves the loop inside it alone in the first run; in a
// second run the melded block is claimed again (it opens with warpwise's
// WW4001 comment), so the loop is not split then either. With --fmad=false:
// at nvcc's default the original contracts `s0 += a[...] * 2.0f` into an
// FFMA and the melded code does not, so the meld is declined (an exact
// product by a power of two, but the check reads nvcc's instructions, not
// values); fmad-contraction.cu tests that.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --force-transforms --transforms meld,fission -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %warpwise rewrite --fmad=false %t.cu --force-transforms --transforms meld,fission -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.melded
// RUN: %t.orig > %t.orig.out && %t.melded > %t.melded.out
// RUN: diff %t.orig.out %t.melded.out
#include <cstdio>

__global__ void k(const float *__restrict__ a, const float *__restrict__ b,
                  float *__restrict__ s, float *__restrict__ q, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, q0 = 0;
  if (threadIdx.x % 2) {
    for (int r = 0; r < rows; ++r) {
      s0 += a[r * 64 + i];
      q0 += b[r * 64 + i] * b[r * 64 + i];
    }
  } else {
    for (int r = 0; r < rows; ++r) {
      s0 += a[r * 64 + i] * 2.0f;
      q0 += b[r * 64 + i] * b[r * 64 + i];
    }
  }
  s[i] = s0;
  q[i] = q0;
}

int main() {
  float a[256], b[256], res[2][64];
  for (int i = 0; i < 256; ++i) {
    a[i] = 0.5f * (i % 17) - 2.0f;
    b[i] = 0.25f * (i % 13) + 1.0f;
  }
  float *d_a, *d_b, *d_r;
  cudaMalloc((void **)&d_a, sizeof a);
  cudaMalloc((void **)&d_b, sizeof b);
  cudaMalloc((void **)&d_r, sizeof res);
  cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice);
  k<<<2, 32>>>(d_a, d_b, d_r, d_r + 64, 4);
  cudaMemcpy(res, d_r, sizeof res, cudaMemcpyDeviceToHost);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 64; ++i)
      printf("%d %d %.6f\n", j, i, res[j][i]);
  return 0;
}

// CHECK:      // warpwise WW4001 meld.k.{{[0-9]+}}: melded the two sides of a divergent if-else;
// CHECK-NEXT: // forced: profitability was not checked
// CHECK-NEXT: const bool ww_cond_[[L:[0-9]+]] = threadIdx.x % 2;
// CHECK-NEXT: for (int r = 0; r < rows; ++r) {
// CHECK-NEXT:   s0 += (ww_cond_[[L]] ? a[r * 64 + i] : a[r * 64 + i] * 2.0f);
// CHECK-NEXT:   q0 += b[r * 64 + i] * b[r * 64 + i];
// CHECK-NEXT: }
// CHECK-NOT:  split into
