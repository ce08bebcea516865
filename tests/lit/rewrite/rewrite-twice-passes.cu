// Idempotence by a fixed point: a decision can depend on rewrites made after
// it, so `rewrite` repeats its passes over its own output until a pass
// changes nothing. Here the literal split copies the kernel's original text
// into the new kernels after meld rewrote the original's branch; the inner
// if-else in the copies is a fusion candidate only in a second pass. One run
// does both, reports the second pass's decision as such, and a second run
// changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --split-form literal -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %warpwise rewrite %t.cu --force-transforms --split-form literal -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.rewritten
// RUN: %t.orig > %t.orig.out && %t.rewritten > %t.rewritten.out
// RUN: diff %t.orig.out %t.rewritten.out
// The export of the edits describes the same result against the original.
// RUN: %warpwise rewrite %s --force-transforms --split-form literal --export-fixes %t.yaml 2> /dev/null
// RUN: grep -c "ReplacementText" %t.yaml
#include <cstdio>

static __global__ void pick(const int *__restrict__ m,
                            const float *__restrict__ in,
                            float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (m[i] == 0) {
    float y;
    if (i % 2) {
      float a = x * x;
      y = a + 1.0f;
    } else {
      float a = x * x;
      y = a + 2.0f;
    }
    out[i] = y;
  } else {
    out[i] = x * 3.0f;
  }
}

int main() {
  int m[64];
  float in[64], out[64];
  for (int i = 0; i < 64; ++i) {
    m[i] = i % 3 == 0;
    in[i] = 0.25f * i - 3.0f;
  }
  int *d_m;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_m, sizeof m);
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMemcpy(d_m, m, sizeof m, cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  pick<<<2, 32>>>(d_m, d_in, d_out, 64);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("%d %.6f\n", i, out[i]);
  return 0;
}

// REMARK: remark: meld: if-else at line 33 is divergent; {{.*}}applied because of --force-transforms
// REMARK: remark: split: if-else at line 33 of `pick` {{.*}}literal split applied because it was forced (--split-form literal) [WW4003]
// REMARK: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}applied because of --force-transforms (profitability was not checked) (pass 2: decided on the file with the earlier passes' rewrites applied, whose lines this message counts) [WW4001]
// REMARK-NOT: WW1013

// CHECK:      static __global__ void pick(
// CHECK:      // warpwise WW4001 meld.pick.{{[0-9]+}}: melded the two sides of a divergent if-else;
// CHECK-NEXT: // forced: profitability was not checked
// CHECK-NEXT: const bool ww_cond_33 = m[i] == 0;
// CHECK:      static __global__ void pick_ww_then(
// CHECK:      // warpwise WW4001 fuse.pick_ww_then.{{[0-9]+}}: fused the two sides of a divergent
// CHECK:      static __global__ void pick_ww_else(
// CHECK:      pick_ww_then<<<2, 32>>>(d_m, d_in, d_out, 64);
