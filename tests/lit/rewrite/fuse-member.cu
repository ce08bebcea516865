// Branch fusion in a __device__ member function: the candidate walk finds
// member functions, `this->scale` is the same on both sides (no select), and
// the fused program computes what the original does (CPU executor).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: python3 %samples/../tests/equiv/cpu_build.py %s %t.orig
// RUN: python3 %samples/../tests/equiv/cpu_build.py %t.cu %t.fused
// RUN: %t.orig > %t.orig.out && %t.fused > %t.fused.out
// RUN: diff %t.orig.out %t.fused.out
// RUN: FileCheck %s --check-prefix=RESULT --input-file %t.fused.out
#include <cstdio>

struct Scaler {
  float scale;
  __device__ float apply(float v, int t) {
    float r;
    if (t % 2) {
      float a = v * v;
      r = a * scale + 1.0f;
    } else {
      float a = v * v;
      r = a * scale + 2.0f;
    }
    return r;
  }
};

__global__ void k(const float *in, float *out, Scaler op) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = op.apply(in[t], t);
}

int main() {
  float in[64], out[64];
  for (int i = 0; i < 64; ++i)
    in[i] = 0.25f * i - 3.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  Scaler op = {1.5f};
  k<<<2, 32>>>(d_in, d_out, op);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("%d %.6f\n", i, out[i]);
  return 0;
}

// CHECK:      const bool ww_cond_[[L:[0-9]+]] = t % 2;
// CHECK:      r = a * scale + (ww_cond_[[L]] ? 1.0f : 2.0f);
// REMARK: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}1 operand selects; applied because of --force-transforms
// RESULT: 0 15.500000
// RESULT: 1 12.343750
