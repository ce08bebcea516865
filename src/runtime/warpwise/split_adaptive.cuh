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
  unsigned sm_threads; // Thread slots per SM (one wave: sms * sm_threads).
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
/// takes. The plan holds the site's lock until it is destroyed. \p split: a
/// split pair wherever one can run (the cheaper by the counts), for a
/// measured dispatch that itself weighs the pair against the original.
static inline adaptive_plan adaptive_begin(adaptive_site &site, dim3 grid,
                                           dim3 block, cudaStream_t stream,
                                           bool split = false) {
  adaptive_plan plan = adaptive_plan();
  plan.path = 0u;
#if defined(WARPWISE_SPLIT_PATH) && WARPWISE_SPLIT_PATH == 0
  (void)site, (void)grid, (void)block, (void)stream, (void)split;
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
    int sms = 0, sm_threads = 0;
    void *host = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&sm_threads,
                               cudaDevAttrMaxThreadsPerMultiProcessor,
                               dev) != cudaSuccess ||
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
    d.sm_threads = sm_threads > 0 ? (unsigned)sm_threads : 0u;
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
  if (split && path == 0u)
    path = d.probe_path;
  else if (path == 0u && ++d.since_probe >= d.interval) {
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
  // The heavy grid: enough blocks for the last published list, and at
  // least one wave of the device (every SM's thread slots), at most the
  // original grid; its loop takes any excess. The wave covers a list that
  // grew since the last count (the first launch at a site has none): sized
  // by the count alone, a list grown from 1% to 50% of 2^22 threads ran on
  // one block per SM, and a measured dispatch timing that launch kept the
  // original (H200, wave 12). Blocks beyond the list exit at once.
  const unsigned long long blocks = grid.x * grid.y * grid.z;
  unsigned long long want =
      (unsigned long long)(WARPWISE_SPLIT_HEAVY_GRID_MARGIN *
                           (double)d.expected[path]) /
          per_block +
      1u;
  const unsigned long long wave =
      (unsigned long long)d.sms * (d.sm_threads / per_block);
  if (want < wave)
    want = wave;
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
