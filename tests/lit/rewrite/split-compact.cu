// Branch splitting, compact form: the light kernel runs the light side and
// lists the heavy side's threads (warp ballot, block prefix, one atomic per
// block); the heavy kernel runs over the list, with threadIdx.x and
// blockIdx.x recomputed from each entry. The launch allocates the list in
// stream order and frees it after the heavy kernel. It compiles without a
// warning (a second copy of an unused prefix variable was nvcc #177).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: grep -c "^#include \"warpwise_runtime.cuh\"" %t.code | FileCheck %s --check-prefix=ONE-HELPER
// ONE-HELPER: 1
// RUN: grep -c "ww_list_pool(ww_dev_" %t.code | FileCheck %s --check-prefix=TWO-USERS
// TWO-USERS: 2
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// Forced for one kernel only: the other is left to the planner, which
// declines the compact form on its own.
// RUN: %warpwise rewrite %s --transforms split --split-form heavy_tail=compact -o %t.one.cu 2> %t.one.err
// RUN: FileCheck %s --check-prefix=ONE --input-file %t.one.err
// ONE-DAG: split: if-else at line {{[0-9]+}} of `heavy_tail` {{.*}}compact split applied because it was forced (--split-form compact) [WW4003]
// ONE-DAG: split: if-else at line {{[0-9]+}} of `light_tail` {{.*}}the heavy side costs no occupancy step more than the light one{{.*}}the compact form is legal here, but it is applied only on request {{.*}}[WW3003]
// RUN: not grep -q "void light_tail_[w]w_" %t.one.cu
// RUN: grep -q "heavy_tail_ww_light<<<" %t.one.cu
// A two-dimensional launch is refused:
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.2d.cu 2> %t.2d.err -- -DTWO_D
// RUN: FileCheck %s --check-prefix=TWO-D --input-file %t.2d.err

__global__ void heavy_tail(const int *__restrict__ mask, const float *__restrict__ in,
                           float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x + 1.0f;
  } else {
    float v[16];
    for (int k = 0; k < 16; ++k)
      v[k] = in[(i + 31 * k) % n];
    float s = 0.0f;
    for (int k = 0; k < 16; ++k)
      s += v[k] * v[(k + 3) % 16];
    out[i] = s;
  }
}

// A second kernel split in the same file shares the pool helper.
__global__ void light_tail(const int *__restrict__ mask, float *__restrict__ out,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (mask[i] == 0) {
    out[i] = 0.0f;
  } else {
    float s = 0.0f;
    for (int k = 0; k < 64; ++k)
      s += (float)(i + k) * 0.5f;
    out[i] = s;
  }
}

void run(const int *m, const float *in, float *out, int n, cudaStream_t st) {
  light_tail<<<(n + 127) / 128, 128>>>(m, out, n);
  #ifdef TWO_D
  heavy_tail<<<(n + 255) / 256, dim3(32, 8), 0, st>>>(m, in, out, n);
#else
  heavy_tail<<<(n + 255) / 256, 256, 0, st>>>(m, in, out, n);
#endif
}

// warpwise's runtime (its list pool) is included once, before the first
// compact kernels.
// CHECK:      #include "warpwise_runtime.cuh" // warpwise's runtime (WW4003)
// CHECK-NOT:  warpwise_runtime.cuh
// CHECK:      // warpwise WW4003 split.heavy_tail.[[H:[0-9]+]]: split `heavy_tail` (compact form);
// CHECK:      __global__ void heavy_tail_ww_light(const int *__restrict__ mask,
// CHECK-NEXT:   const float *__restrict__ in,
// CHECK-NEXT:   float *__restrict__ out, int n,
// CHECK-NEXT:   int *__restrict__ ww_list,
// CHECK-NEXT:   int *__restrict__ ww_count) {
// CHECK-NEXT:   // warpwise WW4003 split.heavy_tail.[[H]]: the light side of `heavy_tail`, which
// CHECK-NEXT:   // also lists the threads of the heavy side
// CHECK:        bool ww_heavy = false;
// CHECK-NEXT:   do {
// CHECK-NEXT:     int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:     if (i >= n)
// CHECK-NEXT:     break;
// CHECK-NEXT:     ww_heavy = !(mask[i] == 0);
// CHECK-NEXT:   } while (0);
// CHECK:        const unsigned ww_votes = __ballot_sync(0xffffffffu, ww_heavy);
// CHECK:          ww_block_base = ww_total ? atomicAdd(ww_count, ww_total) : 0;
// CHECK:        if (ww_heavy) {
// CHECK-NEXT:     ww_list[ww_block_base + ww_warp_base[ww_warp] +
// CHECK:        {
// CHECK-NEXT:     out[i] = x + 1.0f;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      __global__ void heavy_tail_ww_heavy(
// CHECK:        // warpwise WW4003 split.heavy_tail.[[H]]: the heavy side of `heavy_tail`, run
// CHECK-NEXT:   // over the threads the light kernel listed
// CHECK:        if (ww_slot >= (unsigned)*ww_count)
// CHECK-NEXT:     return;
// CHECK-NEXT:   const unsigned ww_id = ww_list[ww_slot];
// CHECK-NEXT:   const unsigned ww_block = ww_id / blockDim.x;
// CHECK-NEXT:   const unsigned ww_thread = ww_id % blockDim.x;
// CHECK-NEXT:   int i = ww_block * blockDim.x + ww_thread;
// CHECK:      { // warpwise WW4003 split.heavy_tail.[[H]]: split launch, compact form
// CHECK-NEXT:   dim3 const ww_grid_[[L:[0-9]+]]_0((n + 255) / 256);
// CHECK-NEXT:   dim3 const ww_block_[[L]]_0(256);
// CHECK-NEXT:   int ww_dev_[[L]]_0 = 0;
// CHECK-NEXT:   cudaGetDevice(&ww_dev_[[L]]_0);
// CHECK-NEXT:   cudaMemPool_t const ww_pool_[[L]]_0 = ww_list_pool(ww_dev_[[L]]_0);
// CHECK-NEXT:   int *ww_list_[[L]]_0 = 0;
// CHECK-NEXT:   if (ww_pool_[[L]]_0)
// CHECK-NEXT:     cudaMallocFromPoolAsync((void **)&ww_list_[[L]]_0,
// CHECK-NEXT:                             ((size_t)ww_grid_[[L]]_0.x * ww_block_[[L]]_0.x + 1) *
// CHECK-NEXT:                                 sizeof(int),
// CHECK-NEXT:                             ww_pool_[[L]]_0, st);
// CHECK-NEXT:   else
// CHECK-NEXT:     cudaMallocAsync(
// CHECK-NEXT:         (void **)&ww_list_[[L]]_0,
// CHECK-NEXT:         ((size_t)ww_grid_[[L]]_0.x * ww_block_[[L]]_0.x + 1) * sizeof(int), st);
// CHECK-NEXT:   cudaMemsetAsync(ww_list_[[L]]_0, 0, sizeof(int), st);
// CHECK-NEXT:   heavy_tail_ww_light<<<ww_grid_[[L]]_0, ww_block_[[L]]_0, 0, st>>>(
// CHECK-NEXT:       m, in, out, n, ww_list_[[L]]_0 + 1, ww_list_[[L]]_0);
// CHECK-NEXT:   heavy_tail_ww_heavy<<<ww_grid_[[L]]_0, ww_block_[[L]]_0, 0, st>>>(
// CHECK-NEXT:       m, in, out, n, ww_list_[[L]]_0 + 1, ww_list_[[L]]_0);
// CHECK-NEXT:   cudaFreeAsync(ww_list_[[L]]_0, st);
// CHECK-NEXT: }

// TWO-D: the compact form does not apply: the launch at line {{[0-9]+}} does not show a one-dimensional block whose size is a multiple of 32; not split [WW3003]
