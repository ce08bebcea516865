//===- runtime.cuh - warpwise's run-time support, API version 1 -*- CUDA -*-===//
//
// The code that programs rewritten by warpwise call at run time: the compact
// split form's list pool (list_pool.cuh), the adaptive split form's
// dispatch (split_adaptive.cuh) and the work refill's counter (refill.cuh). warpwise writes this header, with its parts
// inlined, as warpwise_runtime.cuh beside each rewritten file that needs it,
// and the rewritten file includes it with one line:
//
//   #include "warpwise_runtime.cuh"
//
// Rewritten code calls only the names of the API below. A later runtime keeps
// them working (it may change what is behind them), so that rewritten sources
// never need to change when the runtime does; a different API would get new
// names, and WARPWISE_RUNTIME_API says which this header provides.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_CUH
#define WARPWISE_RUNTIME_CUH

/// The API version: the names below, with these signatures.
#define WARPWISE_RUNTIME_API 1

#include "list_pool.cuh"
#if __cplusplus >= 201103L
#include "split_adaptive.cuh" // std::mutex
#include "refill.cuh"         // std::mutex
#endif

// API version 1, as rewritten code spells it.

/// The compact split's list allocator: the pool of \p device, or 0 (the
/// launch then uses cudaMallocAsync).
static inline cudaMemPool_t ww_list_pool(int device) {
  return ww_v1::list_pool(device);
}

#if __cplusplus >= 201103L
/// The adaptive split: `static ww_adaptive_site site;` per launch site;
/// `ww_adaptive_plan plan = ww_adaptive_begin(site, grid, block, stream);`
/// then the launches plan.path chose (0: the original kernel; 1: the
/// in-place kernel and the heavy kernel; 2: the light kernel and the heavy
/// kernel, which take plan.counts, plan.list, plan.stats, plan.threads and
/// plan.path, the heavy one over plan.heavy_blocks blocks); then
/// `ww_adaptive_end(plan);`.
typedef ww_v1::adaptive_site ww_adaptive_site;
typedef ww_v1::adaptive_plan ww_adaptive_plan;

static inline ww_adaptive_plan ww_adaptive_begin(ww_adaptive_site &site,
                                                 dim3 grid, dim3 block,
                                                 cudaStream_t stream) {
  return ww_v1::adaptive_begin(site, grid, block, stream);
}

static inline void ww_adaptive_end(ww_adaptive_plan &plan) {
  ww_v1::adaptive_end(plan);
}

/// The work refill: `static ww_refill_site site;` per launch site;
/// `ww_refill_plan plan = ww_refill_begin(site, (const void *)k_ww_refill,
/// grid, block, shared, stream);` then, when plan.counter is set,
/// `k_ww_refill<<<plan.grid, block, shared, stream>>>(args..., plan.counter,
/// plan.items)`, else the original launch.
typedef ww_v1::refill_site ww_refill_site;
typedef ww_v1::refill_plan ww_refill_plan;

static inline ww_refill_plan ww_refill_begin(ww_refill_site &site,
                                             const void *kernel, dim3 grid,
                                             dim3 block, size_t shared,
                                             cudaStream_t stream) {
  return ww_v1::refill_begin(site, kernel, grid, block, shared, stream);
}
#endif

#endif
