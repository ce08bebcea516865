// The execution model finds which warps have lanes on both sides of a
// branch by evaluating its condition lane by lane for each block size the
// kernel is launched with: `threadIdx.x < 16` splits every warp of a
// 32-thread block but only the first of two warps at 64 threads; a
// condition on the global index is evaluated for a few blocks. What it
// cannot evaluate (data) it assumes mixed, and says so.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms fuse -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err

__global__ void half_warp(float *a, float *b, int n) {
  int t = threadIdx.x;
  float x = a[blockIdx.x * blockDim.x + t];
  for (int k = 0; k < n; ++k) {
    if (t < 16) {
      float y = x * 0.75f + 0.125f;
      float z = y * y - x * 0.5f;
      x = z * 0.5f + 1.0f;
    } else {
      float y = x * 0.25f + 0.5f;
      float z = y * y - x * 0.125f;
      x = z * 0.25f + 2.0f;
    }
  }
  b[blockIdx.x * blockDim.x + t] = x;
}

__global__ void global_parity(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i];
  for (int k = 0; k < n; ++k) {
    if (i % 2 == 0) {
      float y = x * 0.75f + 0.125f;
      float z = y * y - x * 0.5f;
      x = z * 0.5f + 1.0f;
    } else {
      float y = x * 0.25f + 0.5f;
      float z = y * y - x * 0.125f;
      x = z * 0.25f + 2.0f;
    }
  }
  b[i] = x;
}

__global__ void on_data(const int *flags, float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i];
  for (int k = 0; k < n; ++k) {
    if (flags[i]) {
      float y = x * 0.75f + 0.125f;
      float z = y * y - x * 0.5f;
      x = z * 0.5f + 1.0f;
    } else {
      float y = x * 0.25f + 0.5f;
      float z = y * y - x * 0.125f;
      x = z * 0.25f + 2.0f;
    }
  }
  b[i] = x;
}

void launch(const int *flags, float *a, float *b, int n) {
  half_warp<<<64, 32>>>(a, b, n);
  half_warp<<<64, 64>>>(a, b, n);
  global_parity<<<64, 128>>>(a, b, n);
  on_data<<<64, 128>>>(flags, a, b, n);
}

// CHECK: fuse: if-else at line 15 is divergent{{.*}}; half_warp at 32 threads: 100.0% of warps mixed (evaluated lane by lane at 32 threads per block), predicted {{[0-9.]+}}x; half_warp at 64 threads: 50.0% of warps mixed (evaluated lane by lane at 64 threads per block), predicted {{[0-9.]+}}x; declined: a case is predicted below 0.99x (rules/costs.json) [WW3001]
// CHECK: fuse: if-else at line 32 is divergent{{.*}}; global_parity at 128 threads: 100.0% of warps mixed (evaluated lane by lane at 128 threads per block), predicted
// CHECK: fuse: if-else at line 49 is divergent{{.*}}; on_data at 128 threads: 100.0% of warps mixed (assumed, the condition depends on a value read from memory), predicted
