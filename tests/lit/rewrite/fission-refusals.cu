// Loops that cannot be split, each with its reason; nothing is rewritten.
// RUN: %warpwise rewrite %s --transforms fission --force-transforms -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err

__global__ void aliasing(const float *a, float *out, float *other, int n) {
  for (int r = 0; r < n; ++r) {
    out[r] = a[r] * 2.0f;
    other[r] = a[r] + 1.0f;
  }
}

__global__ void barrier(float *a, int n) {
  __shared__ float s[256];
  for (int r = 0; r < n; ++r) {
    s[threadIdx.x] = a[r];
    __syncthreads();
    a[r] = s[(threadIdx.x + 1) % 256];
  }
}

__global__ void header(const float *__restrict__ a, float *__restrict__ x,
                       float *__restrict__ y, int n) {
  for (int r = 0; r < n; ++r) {
    x[r] = a[r];
    if (a[r] > 0.0f)
      n = n - 1;
  }
}

__global__ void exits(const float *__restrict__ a, float *__restrict__ x,
                      float *__restrict__ y, int n) {
  for (int r = 0; r < n; ++r) {
    x[r] = a[r];
    if (a[r] < 0.0f)
      break;
    y[r] = a[r] * a[r];
  }
}

// CHECK: fission: loop at line 7: its body is one dependence group (statements at lines 8 and 9 share memory through `out` and `a`); not split [WW3002]
// CHECK: fission: loop at line 15: the loop calls `__syncthreads` (line 17), whose order across threads must not change; not split [WW3002]
// CHECK: fission: loop at line 24: the body changes `n`, which the loop header reads; not split [WW3002]
// CHECK: fission: loop at line 33: the loop contains a `BreakStmt` (line 36); not split [WW3002]
