// The floating-point check of fmad-contraction.cu with the kernel a
// template (launched as quantize<float>): its arithmetic has dependent
// types until instantiated, and the check must still run. (Found in review:
// for a while the rewrite looked only at the user's own declarations,
// where a template's operators are not float.)
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// CHECK: fuse: if-else at line 19 is divergent
// CHECK-SAME: but in `quantize<float>`, nvcc rounds the floating-point arithmetic differently after the rewrite
// RUN: not grep -q 'warpwise WW4001 fuse[.]' %t.cu
template <typename T>
__global__ void quantize(T *coeffs, const T *table, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total)
    return;
  T q = table[i % 64];
  T v = coeffs[i];
  if (v >= T(0)) {
    T shifted = v + q * T(0.5);
    T steps = floor(shifted / q);
    coeffs[i] = steps * q;
  } else {
    T shifted = v - q * T(0.5);
    T steps = ceil(shifted / q);
    coeffs[i] = steps * q;
  }
}

int main() {
  float *c, *q;
  cudaMalloc(&c, 4096 * sizeof(float));
  cudaMalloc(&q, 64 * sizeof(float));
  quantize<float><<<16, 256>>>(c, q, 4096);
  return 0;
}
