// Bit-identical results under nvcc's default -fmad=true (issue 26, item 1):
// nvcc contracts products and sums into fused multiply-adds wherever the
// code's shape lets it, so a rewrite is checked on nvcc's own output
// (-lineinfo, nvdisasm): here merging the two sides into one select of whole
// expressions makes nvcc compute `q * 0.5f` once and round it, where each
// side had contracted it into an FFMA, so fuse declines even when forced.
// The same rewrite is applied for a program built with -fmad=false, and an
// integer kernel in the same file is still fused.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms --fmad=false -o %t.nofma.cu 2> %t.nofma.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.nofma.cu > %t.nofma.code
// RUN: FileCheck %s --check-prefix=NOFMA --input-file %t.nofma.code
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.flags.cu -- -fmad=false 2> %t.flags.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.flags.cu > %t.flags.code
// RUN: FileCheck %s --check-prefix=NOFMA --input-file %t.flags.code

__global__ void quantize(float *coeffs, const float *table, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total)
    return;
  float q = table[i % 64];
  float v = coeffs[i];
  if (v >= 0.0f) {
    float shifted = v + q * 0.5f;
    float steps = floorf(shifted / q);
    coeffs[i] = steps * q;
  } else {
    float shifted = v - q * 0.5f;
    float steps = ceilf(shifted / q);
    coeffs[i] = steps * q;
  }
}

__global__ void exchange(int *keys, int stride) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a = keys[t], b = keys[t ^ stride];
  int lo, hi;
  if (t & stride) {
    lo = b;
    hi = a;
  } else {
    lo = a;
    hi = b;
  }
  keys[t] = lo < hi ? lo : hi;
}

int main() {
  float *c, *q;
  int *k;
  cudaMalloc(&c, 4096 * sizeof(float));
  cudaMalloc(&q, 64 * sizeof(float));
  cudaMalloc(&k, 4096 * sizeof(int));
  quantize<<<16, 256>>>(c, q, 4096);
  exchange<<<16, 256>>>(k, 4);
  return 0;
}

// REMARK: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}in `quantize`, nvcc rounds the floating-point arithmetic differently after the rewrite: {{.*}} have no counterpart, so the results would not stay bit-identical under nvcc's -fmad=true {{.*}}; declined [WW3001]

// CODE:      if (v >= 0.0f) {
// CODE-NEXT:   float shifted = v + q * 0.5f;
// CODE:      warpwise WW4001 fuse.exchange.{{[0-9]+}}
// NOFMA:     warpwise WW4001 fuse.quantize.{{[0-9]+}}
// NOFMA:     float shifted = (ww_cond_{{[0-9]+}} ? v + q * 0.5f : v - q * 0.5f);
