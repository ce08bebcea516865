// Effects that hide from a plain reading of the statements (issue 10; found
// by reviewing the legality model): a const member function storing through
// a pointer member, inline asm in a helper, placement new, a constructor
// that stores through its argument, two `extern __shared__` arrays (the same
// memory), a kernel also launched through cudaLaunchKernel, a kernel that
// re-aims a pointer parameter through a reference. Each loop stores through one
// name and loads the next element through another that may be the same
// memory, so none may be split, and nothing is rewritten.
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err
#include <cuda_runtime.h>
#include <new>

struct View {
  float *d;
  __device__ void set(int i, float v) const { d[i] = v; }
  __device__ float get(int i) const { return d[i]; }
};
__global__ void member_through_pointer(View a, float *x, float *y, int n) {
  for (int i = 0; i < n - 1; ++i) {
    a.set(i, x[i]);
    y[i] = a.get(i + 1);
  }
}

__device__ void store_relaxed(float *p, float v) {
  asm volatile("st.relaxed.gpu.global.f32 [%0], %1;" ::"l"(p), "f"(v)
               : "memory");
}
__global__ void inline_asm(float *a, float *x, float *y, int n) {
  for (int i = 0; i < n - 1; ++i) {
    store_relaxed(a + i, x[i]);
    y[i] = a[i + 1];
  }
}

__global__ void placement_new(float *a, float *x, float *y, int n) {
  for (int i = 0; i < n - 1; ++i) {
    new (a + i) float(x[i]);
    y[i] = a[i + 1];
  }
}

struct Writer {
  __device__ Writer(float *p, float v) { *p = v; }
};
__global__ void constructor(float *a, float *x, float *y, int n) {
  for (int i = 0; i < n - 1; ++i) {
    Writer w(a + i, x[i]);
    y[i] = a[i + 1];
  }
}

__global__ void dynamic_shared(float *x, float *y, int n) {
  extern __shared__ float s1[];
  extern __shared__ float s2[];
  for (int i = 0; i < n - 1; ++i) {
    s1[i] = x[i];
    y[i] = s2[i + 1];
  }
}

__global__ void launched_twice(float *a, float *y, float *z, int n) {
  for (int i = 0; i < n - 1; ++i) {
    a[i] = 2.0f * i;
    z[i] = y[i + 1];
  }
}

__device__ void aim(float *&p, float *q) { p = q; }
__global__ void reaimed(float *a, float *y, float *z, int n, int inplace) {
  if (inplace)
    aim(y, a);
  for (int i = 0; i < n - 1; ++i) {
    a[i] = 2.0f * i;
    z[i] = y[i + 1];
  }
}

int main() {
  int n = 1024;
  float *a, *x, *y, *z;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  View v{a};
  member_through_pointer<<<1, 32>>>(v, x, y, n);
  inline_asm<<<1, 32>>>(a, x, y, n);
  placement_new<<<1, 32>>>(a, x, y, n);
  constructor<<<1, 32>>>(a, x, y, n);
  dynamic_shared<<<1, 1, n * sizeof(float)>>>(x, y, n);
  launched_twice<<<1, 32>>>(a, y, z, n);
  void *args[] = {&a, &a, &z, &n};
  cudaLaunchKernel((const void *)launched_twice, dim3(1), dim3(32), args, 0, 0);
  reaimed<<<1, 32>>>(a, y, z, n, 1);
  return 0;
}

// CHECK: fission: loop at line 21: the call to `set` (line 22) has unknown effects: `set` stores through a pointer warpwise cannot name; not split [WW3002]
// CHECK: fission: loop at line 32: the call to `store_relaxed` (line 33) has unknown effects: `store_relaxed` uses `asm`: inline assembly is not analysed; not split [WW3002]
// CHECK: fission: loop at line 39: the call to `operator new` (line 40) has unknown effects: `new` in device code is not analysed; not split [WW3002]
// CHECK: fission: loop at line 49: its body is one dependence group (statements at lines 50 and 51 share memory through `a` and `a`); not split [WW3002]
// CHECK: fission: loop at line 58: its body is one dependence group (statements at lines 59 and 60 share memory through `s1` and `s2`); not split [WW3002]
// CHECK: fission: loop at line 65: its body is one dependence group (statements at lines 66 and 67 share memory through `a` and `y`); not split [WW3002]
// CHECK: fission: loop at line 75: its body is one dependence group (statements at lines 76 and 77 share memory through `a` and `y`); not split [WW3002]
