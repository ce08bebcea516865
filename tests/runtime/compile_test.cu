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

#if WARPWISE_RUNTIME_API != 4
#error "warpwise's run-time support does not provide API version 4"
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

// Measured dispatch: a kernel rewritten in place and its original, and the
// launch site as warpwise writes it, with and without a stream.
__global__ void ww_test_measured(int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2 * i;
}

__global__ void ww_test_measured_ww_original(int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i + i;
}

void ww_test_measured_launch(int *out, int n, size_t shared,
                             cudaStream_t stream) {
  { // warpwise WW4010 dispatch.ww_test_measured: measured dispatch
    dim3 const ww_grid_80_3((n + 127) / 128);
    dim3 const ww_block_80_3(128);
    static ww_measured_site ww_msite_80_3;
    ww_measured_plan ww_mplan_80_3 = ww_measured_begin(
        ww_msite_80_3, ww_grid_80_3, ww_block_80_3, shared, stream);
    if (ww_mplan_80_3.version != 0u)
      ww_test_measured<<<ww_grid_80_3, ww_block_80_3, shared, stream>>>(out, n);
    else
      ww_test_measured_ww_original<<<ww_grid_80_3, ww_block_80_3, shared,
                                     stream>>>(out, n);
    ww_measured_end(ww_mplan_80_3);
  }
  { // warpwise WW4010 dispatch.ww_test_measured: measured dispatch
    dim3 const ww_grid_81_3(4);
    dim3 const ww_block_81_3(256);
    static ww_measured_site ww_msite_81_3;
    // API version 3: the launch's scalar arguments in the shape.
    ww_measured_plan ww_mplan_81_3 =
        ww_measured_begin(ww_msite_81_3, ww_grid_81_3, ww_block_81_3, 0, 0,
                          ww_measured_key(n, 2.5f, cudaMemcpyDefault));
    if (ww_mplan_81_3.version != 0u)
      ww_test_measured<<<ww_grid_81_3, ww_block_81_3, 0, 0>>>(out, n);
    else
      ww_test_measured_ww_original<<<ww_grid_81_3, ww_block_81_3, 0, 0>>>(out,
                                                                          n);
    ww_measured_end(ww_mplan_81_3);
  }
}

// API version 4: the adaptive form's launch under a measured dispatch.
void ww_test_adaptive_measured(int *out, int n, cudaStream_t stream) {
  dim3 const grid(4), block(64);
  static ww_measured_site msite;
  ww_measured_plan mplan =
      ww_measured_begin(msite, grid, block, 0, stream, ww_measured_key(n));
  static ww_adaptive_site site;
  ww_adaptive_plan plan = ww_adaptive_begin(site, grid, block, stream, mplan);
  if (plan.path != 0u)
    ww_test_kernel<<<plan.heavy_blocks, block, 0, stream>>>(out, plan.list,
                                                            plan.list);
  else
    ww_test_kernel<<<grid, block, 0, stream>>>(out, out, out);
  ww_adaptive_end(plan);
  ww_measured_end(mplan);
}
#endif
#endif
