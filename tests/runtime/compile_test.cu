// compile_test.cu - warpwise's run-time support compiles on its own, with
// every nvcc warning an error: included and unused (what a file gets whose
// rewrite needs only one of its parts), and with each API name used the way
// rewritten code uses it. -DWW_FROM_SOURCES includes the umbrella header of
// src/runtime (-I src/runtime) instead of the one-file warpwise_runtime.cuh
// that warpwise writes beside rewritten files.
#ifdef WW_FROM_SOURCES
#include "warpwise/runtime.cuh"
#else
#include "warpwise_runtime.cuh"
#endif

#if WARPWISE_RUNTIME_API != 1
#error "warpwise's run-time support does not provide API version 1"
#endif

#ifndef WW_INCLUDE_ONLY
__global__ void ww_test_kernel(int *out, const int *__restrict__ list,
                               const int *__restrict__ count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < *count)
    out[list[i]] = i;
}

// The compact form's launch.
void ww_test_compact(int *out, cudaStream_t stream) {
  int device = 0;
  cudaGetDevice(&device);
  cudaMemPool_t const pool = ww_list_pool(device);
  int *list = 0;
  if (pool)
    cudaMallocFromPoolAsync((void **)&list, 33 * sizeof(int), pool, stream);
  else
    cudaMallocAsync((void **)&list, 33 * sizeof(int), stream);
  cudaMemsetAsync(list, 0, sizeof(int), stream);
  ww_test_kernel<<<1, 32, 0, stream>>>(out, list + 1, list);
  cudaFreeAsync(list, stream);
}

#if __cplusplus >= 201103L
// The adaptive form's launch, with the plan's every field.
void ww_test_adaptive(int *out, cudaStream_t stream) {
  dim3 const grid(4), block(64);
  static ww_adaptive_site site;
  ww_adaptive_plan plan = ww_adaptive_begin(site, grid, block, stream);
  if (plan.path != 0u) {
    unsigned long long *const counts = plan.counts;
    unsigned long long *const stats = plan.stats;
    (void)counts, (void)stats, (void)plan.threads;
    ww_test_kernel<<<plan.heavy_blocks, block, 0, stream>>>(out, plan.list,
                                                            plan.list);
  } else {
    ww_test_kernel<<<grid, block, 0, stream>>>(out, out, out);
  }
  ww_adaptive_end(plan);
}
#endif
#endif
