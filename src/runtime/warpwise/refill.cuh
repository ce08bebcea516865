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
