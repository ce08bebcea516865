// The cache-hinted loads and stores nvcc declares and Clang's CUDA headers
// lack (__ldca, __ldlu, __stwb, __stcg, __stcs, and the `long` overloads of
// __ldcg, __ldcs, __ldcv and __stwt) parse, for every type nvcc has them
// for, and the memory analysis sees each load as a read and each store as a
// write of what its pointer points to (rules/callees.json): loads alone do
// not order a loop's statements, a store and a load of the same array do.
// RUN: %warpwise analyze %inputs/nvcc_accepts/cache_hint_types.cu --no-ptxas > %t.types 2>&1
// RUN: FileCheck %s --check-prefix=TYPES < %t.types
// RUN: %warpwise analyze %inputs/nvcc_accepts/cache_hint_types.cu --no-ptxas --stub-cuda > %t.stub 2>&1
// RUN: FileCheck %s --check-prefix=TYPES < %t.stub
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %inputs/nvcc_accepts/cache_hint_types.cu -o %t.types.o %}
// TYPES-NOT: WW1004
// TYPES: kernel every_type
//
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %t.cu -o %t.o %}
#include <cuda_runtime.h>

__global__ void loads(const float *a, const unsigned long *b, float *x,
                      float *y, int n) {
  int i = threadIdx.x;
  float s = 0, t = 0;
  for (int r = 0; r < n; ++r) {
    s += __ldca(&a[r * 32 + i]) + __ldlu(&a[r * 32 + i]);
    t += (float)(__ldcg(&b[r * 32 + i]) + __ldcv(&b[r * 32 + i]));
  }
  x[i] = s;
  y[i] = t;
}

__global__ void stores(const float *a, float *x, float *y, int n) {
  int i = threadIdx.x;
  for (int r = 0; r < n; ++r) {
    __stcg(&x[r * 32 + i], __ldcs(&a[r * 32 + i]));
    __stwb(&y[r * 32 + i], 2.0f);
  }
  float t = 0;
  for (int r = 0; r < n; ++r) {
    __stcs(&x[r * 32 + i], 1.0f);
    t += __ldca(&x[r * 32 + i]);
  }
  y[i] = t;
}

int main() {
  float *a, *x, *y;
  unsigned long *b;
  cudaMalloc(&a, 4096 * sizeof(float));
  cudaMalloc(&b, 4096 * sizeof(unsigned long));
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaMalloc(&y, 4096 * sizeof(float));
  loads<<<1, 32>>>(a, b, x, y, 16);
  stores<<<1, 32>>>(a, x, y, 16);
  return 0;
}

// CHECK-NOT: WW1004
// CHECK: fission: loop at line 24 splits into 2 independent loops
// CHECK: fission: loop at line 34 splits into 2 independent loops
// CHECK: fission: loop at line 39: its body is one dependence group (statements at lines 40 and 41 share memory through `x`{{.*}}); not split [WW3002]
