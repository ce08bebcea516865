// warpwise_runtime.cuh - warpwise's run-time support, written by warpwise
// beside the files it rewrote (from src/runtime/warpwise in its sources);
// warpwise replaces it when it would write a different one.
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

//===- list_pool.cuh - Pools for the compact split's thread lists -*- CUDA -*-//
//
// Part of warpwise's run-time support (runtime.cuh); rewritten code reaches
// it through the API names that runtime.cuh declares.
//
// The compact split form allocates its list of heavy threads in the launch's
// stream at every launch and frees it after the heavy kernel. The default
// pool returns its memory at every synchronization, and mapping the list anew
// cost about 20 us per launch on an H100, so the lists come from one pool per
// device that keeps its memory reserved between launches.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_LIST_POOL_CUH
#define WARPWISE_RUNTIME_LIST_POOL_CUH

#include <cuda_runtime.h>

namespace ww_v1 {

/// The list pool of \p device, created with the first call (a function-local
/// static, so creation is thread-safe) for every device there is; 0 for a
/// device beyond the first 64 or one without pools, where the caller
/// allocates with cudaMallocAsync instead.
static inline cudaMemPool_t list_pool(int device) {
  struct Pools {
    cudaMemPool_t pool[64];
    int count;
    Pools() : count(0) {
      if (cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
      if (count > 64)
        count = 64;
      for (int d = 0; d < count; ++d) {
        cudaMemPoolProps props = cudaMemPoolProps();
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        pool[d] = 0;
        if (cudaMemPoolCreate(&pool[d], &props) != cudaSuccess) {
          pool[d] = 0;
          continue;
        }
        unsigned long long keep = ~0ull;
        cudaMemPoolSetAttribute(pool[d], cudaMemPoolAttrReleaseThreshold,
                                &keep);
      }
    }
  };
  static Pools pools;
  return device >= 0 && device < pools.count ? pools.pool[device] : 0;
}

} // namespace ww_v1

#endif
#if __cplusplus >= 201103L
//===- split_adaptive.cuh - Run-time dispatch of the adaptive split -*- CUDA -*-//
//
// Part of warpwise's run-time support (runtime.cuh); rewritten code reaches
// it through the API names that runtime.cuh declares.
//
// The adaptive split form [WW4003] keeps a kernel's original and two split
// pairs that share one heavy kernel over a list of threads: path 1 runs the
// original with the heavy threads of mixed warps listed (uniformly heavy
// warps run the heavy side in place), path 2 runs the light side alone and
// lists every heavy thread. At each launch the host picks one of the three:
//
// Per launch site and device: a thread list and counters that stay allocated
// and belong to the stream that first used them, and mapped host memory
// where the heavy kernel publishes each split launch's counts. Counted in
// warps that run the heavy side, from the latest published counts: the
// original runs it in every mixed (M) and uniformly heavy (U) warp; path 1 in
// U warps plus the list; path 2 over the list; a listed warp counts
// WARPWISE_SPLIT_LISTED_WARP_COST. The cheaper path (path 2 on a tie) runs
// when it saves at least WARPWISE_SPLIT_MIN_SAVED_WARP_FRACTION of the
// launch's warps; otherwise the original, with a split launch after
// WARPWISE_SPLIT_RECHECK_EVERY launches to look at the data again, the wait
// doubling while the original keeps winning. Nothing here synchronizes: the
// counts are read after the launches (adaptive_end), off the path to the GPU.
//
// -DWARPWISE_SPLIT_PATH=0 pins the original kernel, =1 or =2 that path
// (where the launch allows one).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_SPLIT_ADAPTIVE_CUH
#define WARPWISE_RUNTIME_SPLIT_ADAPTIVE_CUH

#include <cuda_runtime.h>

#include <mutex>

// The policy (rules/split.json "adaptive"; warpwise writes its values here
// when it writes this header beside a rewritten file).
#ifndef WARPWISE_SPLIT_RECHECK_EVERY
#define WARPWISE_SPLIT_RECHECK_EVERY 32u
#endif
#ifndef WARPWISE_SPLIT_LISTED_WARP_COST
#define WARPWISE_SPLIT_LISTED_WARP_COST 1.5
#endif
#ifndef WARPWISE_SPLIT_MIN_SAVED_WARP_FRACTION
#define WARPWISE_SPLIT_MIN_SAVED_WARP_FRACTION 0.05
#endif
#ifndef WARPWISE_SPLIT_HEAVY_GRID_MARGIN
#define WARPWISE_SPLIT_HEAVY_GRID_MARGIN 1.25
#endif

namespace ww_v1 {

/// One launch site's state on one device.
struct adaptive_device {
  unsigned long long *counts; // mixed warps << 32 | listed; blocks; uniform
  int *list;
  unsigned long long capacity;
  // Published: launches, listed, mixed warps, threads, uniform warps, path.
  volatile unsigned long long *stats;
  unsigned long long *stats_on_device;
  cudaStream_t stream;
  int state; // 0: unused, 1: ready, -1: unusable (the original runs)
  unsigned path, probe_path;
  unsigned long long seen;
  unsigned long long expected[3]; // Threads each path would list.
  unsigned since_probe, interval, sms;
};

/// One launch site (a function-local static of the rewritten launch).
struct adaptive_site {
  std::mutex lock;
  adaptive_device device[16];
  adaptive_site() : device() {}
};

/// What one launch runs, and what the split kernels need for it.
struct adaptive_plan {
  std::unique_lock<std::mutex> hold;
  adaptive_device *device; // For adaptive_end; 0: nothing to learn.
  unsigned path; // 0: the original kernel; 1, 2: a split pair
  unsigned heavy_blocks;
  unsigned long long threads; // Of the original launch.
  unsigned long long *counts;
  int *list;
  unsigned long long *stats;
};

/// Before a launch of \p grid x \p block threads in \p stream: the path it
/// takes. The plan holds the site's lock until it is destroyed.
static inline adaptive_plan adaptive_begin(adaptive_site &site, dim3 grid,
                                           dim3 block, cudaStream_t stream) {
  adaptive_plan plan = adaptive_plan();
  plan.path = 0u;
#if defined(WARPWISE_SPLIT_PATH) && WARPWISE_SPLIT_PATH == 0
  (void)site, (void)grid, (void)block, (void)stream;
  return plan;
#else
  const unsigned long long per_block =
      (unsigned long long)block.x * block.y * block.z;
  const unsigned long long threads =
      (unsigned long long)grid.x * grid.y * grid.z * per_block;
  if (per_block % 32u != 0u || threads == 0u || threads >= 0x80000000ull)
    return plan; // Partial warps, or thread ids beyond the counters' word.
  int dev = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  // The legacy default stream is never captured; asking costs time on every
  // launch.
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  const bool may_capture = stream != cudaStreamLegacy;
#else
  const bool may_capture = stream != 0 && stream != cudaStreamLegacy;
#endif
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 16 ||
      (may_capture && (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
                       capture != cudaStreamCaptureStatusNone))) {
    (void)cudaGetLastError(); // Only the error of the query, if any.
    return plan; // A captured graph replays the original kernel.
  }
  plan.hold = std::unique_lock<std::mutex>(site.lock);
  adaptive_device &d = site.device[dev];
  if (d.state == 0) {
    d.state = -1;
    int sms = 0;
    void *host = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        cudaHostAlloc(&host, 6 * sizeof(unsigned long long),
                      cudaHostAllocMapped) != cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    d.stats = (volatile unsigned long long *)host;
    for (int i = 0; i < 6; ++i)
      d.stats[i] = 0u;
    if (cudaHostGetDevicePointer((void **)&d.stats_on_device, host, 0) !=
            cudaSuccess ||
        cudaMallocAsync((void **)&d.counts, 3 * sizeof(unsigned long long),
                        stream) != cudaSuccess ||
        cudaMemsetAsync(d.counts, 0, 3 * sizeof(unsigned long long),
                        stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    d.stream = stream;
    d.sms = sms > 0 ? (unsigned)sms : 1u;
    d.probe_path = 2u;
    d.interval = WARPWISE_SPLIT_RECHECK_EVERY;
    // The first launch looks at the data.
    d.since_probe = WARPWISE_SPLIT_RECHECK_EVERY - 1u;
    d.state = 1;
  }
  if (d.state != 1 || d.stream != stream)
    return plan; // The buffers belong to another stream's launches.
  plan.device = &d;
  unsigned path = d.path;
  if (path == 0u && ++d.since_probe >= d.interval) {
    d.since_probe = 0u;
    path = d.probe_path;
  }
#if defined(WARPWISE_SPLIT_PATH) && (WARPWISE_SPLIT_PATH == 1 || WARPWISE_SPLIT_PATH == 2)
  path = WARPWISE_SPLIT_PATH;
#endif
  if (path == 0u)
    return plan;
  if (d.capacity < threads) {
    int *grown = 0;
    if (cudaMallocAsync((void **)&grown, threads * sizeof(int), stream) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    if (d.list)
      cudaFreeAsync(d.list, stream);
    d.list = grown;
    d.capacity = threads;
  }
  // The heavy grid: enough blocks for the last published list, at least one
  // per SM, at most the original grid; its loop takes any excess.
  const unsigned long long blocks = grid.x * grid.y * grid.z;
  unsigned long long want =
      (unsigned long long)(WARPWISE_SPLIT_HEAVY_GRID_MARGIN *
                           (double)d.expected[path]) /
          per_block +
      1u;
  if (want < d.sms)
    want = d.sms;
  plan.heavy_blocks = (unsigned)(want < blocks ? want : blocks);
  plan.path = path;
  plan.threads = threads;
  plan.counts = d.counts;
  plan.list = d.list;
  plan.stats = d.stats_on_device;
  return plan;
#endif
}

/// After the launches (the GPU is busy with them): the counts published since
/// the last look decide the next launches' path.
static inline void adaptive_end(adaptive_plan &plan) {
  if (!plan.device)
    return;
  adaptive_device &d = *plan.device;
  const unsigned long long published = d.stats[0];
  if (published != d.seen) {
    d.seen = published;
    const double listed = (double)d.stats[1], mixed = (double)d.stats[2],
                 warps = (double)d.stats[3] / 32.0,
                 uniform = (double)d.stats[4];
    // Heavy threads of mixed warps (L) and in all (H), from either path.
    double in_mixed = listed, heavy = listed + 32.0 * uniform;
    if (d.stats[5] == 2u) {
      heavy = listed;
      in_mixed = listed - 32.0 * uniform > 0.0 ? listed - 32.0 * uniform : 0.0;
    }
    const double original = mixed + uniform;
    const double in_place =
        uniform + WARPWISE_SPLIT_LISTED_WARP_COST * in_mixed / 32.0;
    const double light = WARPWISE_SPLIT_LISTED_WARP_COST * heavy / 32.0;
    // Ties go to path 2: its first kernel has the light side's registers.
    const unsigned best = light <= in_place ? 2u : 1u;
    const double cost = best == 2u ? light : in_place;
    d.path = original - cost >= WARPWISE_SPLIT_MIN_SAVED_WARP_FRACTION * warps
                 ? best
                 : 0u;
    d.probe_path = best;
    // Each look that keeps the original doubles the wait for the next one
    // (up to 32 times the first); a split resets it.
    d.interval = d.path != 0u ? WARPWISE_SPLIT_RECHECK_EVERY
                 : d.interval < 32u * WARPWISE_SPLIT_RECHECK_EVERY
                     ? 2u * d.interval
                     : d.interval;
    d.expected[1] = (unsigned long long)in_mixed;
    d.expected[2] = (unsigned long long)heavy;
  }
}

} // namespace ww_v1

#endif
//===- refill.cuh - Run-time support of the warp-level work refill -*- CUDA -*-//
//
// Part of warpwise's run-time support (runtime.cuh); rewritten code reaches
// it through the API names that runtime.cuh declares.
//
// The refill [WW4005] launches `<k>_ww_refill` in place of a kernel whose
// threads each work on one item with a loop of data-dependent length. Each
// thread starts on its own item, as in the original; a lane whose item is
// done takes the next one from a counter (warp-aggregated: one atomicAdd per
// warp and round), so warps stay full until the items run out. The items
// beyond the refill grid's own threads, up to the original launch's thread
// count, come from the counter, which must be zero when the launch starts.
//
// Per launch site and device: the counter (one word, allocated with the first
// launch) belongs to the stream that first used it; the host zeroes it on that
// stream before each launch (stream order keeps launches apart). The refill
// grid is one wave of resident blocks (the occupancy calculator's blocks per
// SM times the SMs, times WARPWISE_REFILL_WAVES), at most the original grid.
// The original kernel runs instead where the launch does not fit the refill
// kernel's indexing or the counter cannot be used: a 2-D or 3-D grid or block,
// a block that is not whole warps, 2^31 threads or more, a stream being
// captured into a graph, another stream than the counter's, or any error.
//
// -DWARPWISE_REFILL_OFF pins the original kernel.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_REFILL_CUH
#define WARPWISE_RUNTIME_REFILL_CUH

#include <cuda_runtime.h>

#include <mutex>

// The policy (rules/refill.json; warpwise writes its values here when it
// writes this header beside a rewritten file).
#ifndef WARPWISE_REFILL_WAVES
#define WARPWISE_REFILL_WAVES 1u
#endif
// Iterations an active lane runs between two rounds of the refill kernel's
// bookkeeping (its votes and the counter): the bookkeeping's cost is spread
// over them, and a lane whose item ends within a chunk idles for the rest.
// Each refill kernel has its own (warpwise's planner sets it from the loop's
// cost per iteration, rules/refill.json); -DWARPWISE_REFILL_CHUNK=N sets
// every kernel's.
#ifdef WARPWISE_REFILL_CHUNK
#define WARPWISE_REFILL_CHUNK_OR(chunk) (WARPWISE_REFILL_CHUNK)
#else
#define WARPWISE_REFILL_CHUNK_OR(chunk) (chunk)
#endif

namespace ww_v1 {

/// One launch site's state on one device.
struct refill_device {
  unsigned *counter;
  cudaStream_t stream;
  int state; // 0: unused, 1: ready, -1: unusable (the original runs)
  unsigned sms;
  // The last occupancy asked for: blocks per SM at this block size and
  // dynamic shared memory.
  unsigned block, resident;
  size_t shared;
};

/// One launch site (a function-local static of the rewritten launch).
struct refill_site {
  std::mutex lock;
  refill_device device[16];
  refill_site() : device() {}
};

/// What one launch runs: counter non-null, the refill kernel over grid
/// blocks with items threads of work; else the original kernel.
struct refill_plan {
  std::unique_lock<std::mutex> hold;
  unsigned *counter;
  unsigned grid;
  unsigned items;
};

/// Before a launch of \p kernel (the refill kernel) over \p grid x \p block
/// threads with \p shared bytes in \p stream. The plan holds the site's lock
/// until it is destroyed, so that the zeroing and the launch of one host
/// thread stay together in the stream.
static inline refill_plan refill_begin(refill_site &site, const void *kernel,
                                       dim3 grid, dim3 block, size_t shared,
                                       cudaStream_t stream) {
  refill_plan plan = refill_plan();
#if defined(WARPWISE_REFILL_OFF)
  (void)site, (void)kernel, (void)grid, (void)block, (void)shared,
      (void)stream;
  return plan;
#else
  const unsigned long long threads = (unsigned long long)grid.x * block.x;
  if (grid.y != 1u || grid.z != 1u || block.y != 1u || block.z != 1u ||
      block.x % 32u != 0u || threads == 0u || threads >= 0x80000000ull)
    return plan;
  int dev = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  const bool may_capture = stream != cudaStreamLegacy;
#else
  const bool may_capture = stream != 0 && stream != cudaStreamLegacy;
#endif
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 16 ||
      (may_capture && (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
                       capture != cudaStreamCaptureStatusNone))) {
    (void)cudaGetLastError(); // Only the error of the query, if any.
    return plan; // A captured graph replays the original kernel.
  }
  plan.hold = std::unique_lock<std::mutex>(site.lock);
  refill_device &d = site.device[dev];
  if (d.state == 0) {
    d.state = -1;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        cudaMalloc((void **)&d.counter, sizeof(unsigned)) != cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    d.sms = sms > 0 ? (unsigned)sms : 1u;
    d.stream = stream;
    d.state = 1;
  }
  if (d.state != 1 || d.stream != stream)
    return plan; // The counter belongs to another stream's launches.
  if (d.block != block.x || d.shared != shared || d.resident == 0u) {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, kernel, (int)block.x, shared) != cudaSuccess ||
        per_sm <= 0) {
      (void)cudaGetLastError();
      return plan;
    }
    d.block = block.x;
    d.shared = shared;
    d.resident = (unsigned)per_sm;
  }
  if (cudaMemsetAsync(d.counter, 0, sizeof(unsigned), stream) != cudaSuccess) {
    (void)cudaGetLastError();
    return plan;
  }
  const unsigned long long wave =
      (unsigned long long)d.resident * d.sms * WARPWISE_REFILL_WAVES;
  plan.grid = (unsigned)(wave < grid.x ? wave : grid.x);
  plan.items = (unsigned)threads;
  plan.counter = d.counter;
  return plan;
#endif
}

} // namespace ww_v1

#endif
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
