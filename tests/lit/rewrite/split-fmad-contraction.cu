// Bit-identical results under nvcc's default -fmad=true for the branch split
// (issue 26, item 1): each split kernel is new code in which nvcc may
// contract products and sums differently from the original. In `chain`, the
// else-side leaves `acc` a constant, so in the else-kernel nvcc picks the
// other product of `acc * gain + p * q` to fuse; every form of the split
// (literal, compact, adaptive) is declined, even when forced, and the reason
// names the kernels compared. Built with -fmad=false, the same split is
// applied.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --split-form literal --force-transforms -o %t.lit.cu 2> %t.lit.err
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.lit.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.lit.cu > %t.lit.code
// RUN: FileCheck %s --check-prefix=UNCHANGED --input-file %t.lit.code
// RUN: %warpwise rewrite %s --split-form compact --force-transforms -o %t.cmp.cu 2> %t.cmp.err
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.cmp.err
// RUN: %warpwise rewrite %s --split-form adaptive --force-transforms -o %t.ada.cu 2> %t.ada.err
// RUN: FileCheck %s --check-prefix=ADAPTIVE --input-file %t.ada.err
// RUN: %warpwise rewrite %s --split-form literal --force-transforms --fmad=false -o %t.nofma.cu 2> %t.nofma.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.nofma.cu > %t.nofma.code
// RUN: FileCheck %s --check-prefix=NOFMA --input-file %t.nofma.code
// RUN: %nvcc -arch=sm_90 -c %t.nofma.cu -o %t.o

__global__ void chain(const float *a, const float *b, float *out,
                      float *out2, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.5f;
  float v = a[i];
  float w = b[i];
  float p = w;
  float q = 0.0f;
  if (i % 2) {
    q = 0.5f * v - v;
    p += 0.5f * 1.25f;
    q = w * q - 0.5f;
    acc -= q * 0.375f;
  } else {
    q = v * p - q;
    p += 0.5f * 1.25f;
    q = p * w - v;
    acc -= 0.5f * 0.25f;
  }
  acc = p * gain + acc;
  acc = acc * gain + p * q;
  acc += v * q;
  out2[i] = p - q;
  acc += w * 0.75f;
  out[i] = acc;
}

int main() {
  const int n = 1 << 16;
  float *a, *b, *out, *out2;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&out2, n * sizeof(float));
  chain<<<n / 256, 256>>>(a, b, out, out2, n, 1.5f);
  cudaDeviceSynchronize();
  return 0;
}

// LITERAL: split-fmad-contraction.cu:33:3: remark: split: if-else at line 33 of `chain`: the literal split would apply, but against `chain`, the split kernels (`chain_ww_then`, `chain_ww_else`): nvcc rounds the floating-point arithmetic differently after the rewrite
// LITERAL-SAME: -fmad=true
// UNCHANGED-NOT: _ww_
// COMPACT: remark: split: if-else at line 33 of `chain`: the compact split would apply, but against `chain`, the split kernels (`chain_ww_light`, `chain_ww_heavy`): nvcc rounds
// ADAPTIVE: remark: split: if-else at line 33 of `chain`: the adaptive split would apply, but against `chain`, the split kernels (`chain_ww_
// NOFMA: __global__ void chain_ww_then(
// NOFMA: __global__ void chain_ww_else(
