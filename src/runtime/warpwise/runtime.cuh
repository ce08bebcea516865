//===- runtime.cuh - warpwise's run-time support, API 4 -*- CUDA -*-===//
//
// The code that programs rewritten by warpwise call at run time: the compact
// split form's list pool (list_pool.cuh), the adaptive split form's
// dispatch (split_adaptive.cuh), the work refill's counter (refill.cuh) and
// the measured dispatch between a rewritten kernel and its original
// (measured.cuh). warpwise writes this header, with its parts inlined, as
// warpwise_runtime.cuh beside each rewritten file that needs it, and the
// rewritten file includes it with one line:
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

/// The API version: the names below, with these signatures. Version 2 adds
/// measured dispatch (ww_measured_*) to the names of version 1, which keep
/// working; version 3 adds ww_measured_key and a ww_measured_begin that
/// takes it; version 4 a ww_adaptive_begin that takes the launch's measured
/// dispatch plan.
#define WARPWISE_RUNTIME_API 4

#include "list_pool.cuh"
#if __cplusplus >= 201103L
#include "split_adaptive.cuh" // std::mutex
#include "refill.cuh"         // std::mutex
#include "measured.cuh"       // std::mutex
#endif

// The API, as rewritten code spells it (version 1, and from version 2 the
// measured dispatch).

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
/// plan.items)`, else the original launch. Under measured dispatch the
/// plan is `ww_refill_plan()` (no counter: the original) where the
/// dispatch's plan.version is 0.
typedef ww_v1::refill_site ww_refill_site;
typedef ww_v1::refill_plan ww_refill_plan;

static inline ww_refill_plan ww_refill_begin(ww_refill_site &site,
                                             const void *kernel, dim3 grid,
                                             dim3 block, size_t shared,
                                             cudaStream_t stream) {
  return ww_v1::refill_begin(site, kernel, grid, block, shared, stream);
}

/// Measured dispatch (API version 2) of a kernel k rewritten in place, whose
/// original is kept as k_ww_original: `static ww_measured_site site;` per
/// launch site; `ww_measured_plan plan = ww_measured_begin(site, grid, block,
/// shared, stream);` (stream 0 for a launch without one), then
/// `k<<<grid, block, shared, stream>>>(args...)` when plan.version is not 0,
/// else `k_ww_original<<<grid, block, shared, stream>>>(args...)`; then
/// `ww_measured_end(plan);`. The plan holds the site's lock from begin to
/// end. plan.version: 1 the rewrite, 0 the original (-DWARPWISE_DISPATCH=0
/// or =1 pins it).
typedef ww_v1::measured_site ww_measured_site;
typedef ww_v1::measured_plan ww_measured_plan;

static inline ww_measured_plan ww_measured_begin(ww_measured_site &site,
                                                 dim3 grid, dim3 block,
                                                 size_t shared,
                                                 cudaStream_t stream) {
  return ww_v1::measured_begin(site, grid, block, shared, stream);
}

/// API version 3: the same, with the launch's scalar arguments in the
/// shape: `ww_measured_begin(site, grid, block, shared, stream,
/// ww_measured_key(a, n, ...))`, each a value of arithmetic or enumeration
/// type; launches that differ in them are measured apart.
template <class... Args>
static inline unsigned long long ww_measured_key(Args... args) {
  return ww_v1::measured_key(args...);
}

static inline ww_measured_plan
ww_measured_begin(ww_measured_site &site, dim3 grid, dim3 block, size_t shared,
                  cudaStream_t stream, unsigned long long key) {
  return ww_v1::measured_begin(site, grid, block, shared, stream, key);
}

static inline void ww_measured_end(ww_measured_plan &plan) {
  ww_v1::measured_end(plan);
}

/// The adaptive split under a measured dispatch, which weighs the original
/// against the split: version 0 runs the original kernel (an empty plan),
/// version 1 a split pair (the cheaper by the counts) wherever one can run.
/// A pair pinned with WARPWISE_SPLIT_PATH=1 or =2 runs at every launch.
static inline ww_adaptive_plan
ww_adaptive_begin(ww_adaptive_site &site, dim3 grid, dim3 block,
                  cudaStream_t stream, const ww_measured_plan &measured) {
#if !defined(WARPWISE_SPLIT_PATH) ||                                           \
    (WARPWISE_SPLIT_PATH != 1 && WARPWISE_SPLIT_PATH != 2)
  if (measured.version == 0u)
    return ww_adaptive_plan();
#else
  (void)measured;
#endif
  return ww_v1::adaptive_begin(site, grid, block, stream, true);
}
#endif

#endif
