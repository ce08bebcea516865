// Branch splitting, efficient form: the light side in its own kernel, the
// heavy side in a persistent wave that walks the original threads; returns
// become continues, threadIdx.x and blockIdx.x are recomputed per thread id.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form efficient -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void tail(const int *__restrict__ mask, const float *__restrict__ in,
                     float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x + 1.0f;
  } else {
    float s = 0.0f;
    for (int k = 0; k < 16; ++k)
      s += in[(i + 31 * k) % n] * x;
    out[i] = s;
  }
}

void run(const int *m, const float *in, float *out, int n) {
  tail<<<(n + 255) / 256, 256>>>(m, in, out, n);
}

// CHECK:      __global__ void tail_ww_then(
// CHECK:      __global__ void tail_ww_wave({{.*}}
// CHECK-NEXT: {{.*}}float *__restrict__ out, int n, unsigned ww_threads) {
// CHECK:      #pragma unroll 4
// CHECK-NEXT:   for (unsigned ww_id = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:        ww_id < ww_threads; ww_id += gridDim.x * blockDim.x) {
// CHECK-NEXT:     const unsigned ww_block = ww_id / blockDim.x;
// CHECK-NEXT:     const unsigned ww_thread = ww_id % blockDim.x;
// CHECK-NEXT:     int i = ww_block * blockDim.x + ww_thread;
// CHECK-NEXT:     if (i >= n)
// CHECK-NEXT:     continue;
// CHECK-NEXT:     float x = in[i];
// CHECK-NEXT:     if (!(!(mask[i] == 0)))
// CHECK-NEXT:       continue;
// CHECK:      tail_ww_then<<<ww_grid_{{[0-9_]+}}, ww_block_{{[0-9_]+}}, 0, 0>>>(m, in, out, n);
// CHECK-SAME: cudaOccupancyMaxActiveBlocksPerMultiprocessor(
// CHECK-SAME: tail_ww_wave<<<
