//===- measured.cuh - Timed choice of rewrite or original -*- CUDA -*-===//
//
// Part of warpwise's run-time support (runtime.cuh); rewritten code reaches
// it through the API names that runtime.cuh declares.
//
// Measured dispatch [WW4006]: a kernel `k` that warpwise rewrote in place
// keeps its original as `k_ww_original`, and each launch site asks here which
// of the two runs (version 1: the rewrite, version 0: the original). Whether a
// rewrite pays can depend on the data and the launch, which warpwise does not
// see; timing both at run time keeps the program never slower than it was
// (up to the probes themselves).
//
// Per launch site and device, per launch shape (grid, block, dynamic shared
// bytes and the values of the launch's scalar arguments; the last
// WARPWISE_DISPATCH_SHAPES seen, the least recently used one making room for a
// new one): a new shape probes, alternating the two versions from the rewrite
// (so that a kernel launched once runs what warpwise's model chose), each probe
// between two events recorded in the launch's own stream. Nothing waits for
// them: each launch collects the probes whose stop event has completed
// (cudaEventQuery) and the samples count from then on. The first sample of each
// version is a warm-up (the module's load, cold caches) and is dropped. With
// WARPWISE_DISPATCH_PROBES samples of each, the shape commits to the rewrite
// where its median time is below the original's by at least
// WARPWISE_DISPATCH_MIN_GAIN (a fraction of the original's), else to the
// original: a tie keeps what the program wrote. After
// WARPWISE_DISPATCH_REPROBE_EVERY launches of a committed shape, one more probe
// of each version re-decides from the newest samples (a window of
// WARPWISE_DISPATCH_PROBES per version, so that one odd probe does not flip the
// decision); the wait doubles while the decision stays, up to
// WARPWISE_DISPATCH_REPROBE_MAX launches, and starts again when it flips.
// Between re-probes, one launch in WARPWISE_DISPATCH_WATCH_EVERY of a
// committed shape is timed (a watch): the data can change under the same
// shape (a ray march's directions, a mask's density). Two watches in a row
// that differ from the committed version's median by more than
// WARPWISE_DISPATCH_DRIFT (a fraction of it) start a fresh measurement of
// both versions (the old samples dropped); where it confirms the decision,
// the watch's interval doubles, up to WARPWISE_DISPATCH_WATCH_MAX launches,
// and it starts again when it flips. A watch sees only the committed
// version, whose time may stay flat while the other's falls (a mask's heavy
// share dropping from 100% to 50%: every warp still runs both sides in the
// original, while the split's work halves): so one launch in
// WARPWISE_DISPATCH_WATCH_OTHER_EVERY runs the other version, timed, where
// its median is within WARPWISE_DISPATCH_WATCH_OTHER_RATIO of the committed
// one's (which bounds its cost: 1.5 and 64 cost at most 0.8% of the
// launches' time). It measures both again at once when it beats the
// committed median by more than the drift, and after two in a row faster
// than its own median by more than the drift; where that confirms the
// decision, its interval doubles up to WARPWISE_DISPATCH_WATCH_MAX.
// Probes in flight are at most the samples still wanted and measured_pairs
// pairs of events; launches beyond them run untimed: the committed version,
// else the one with fewer samples (the original on a tie). A steady launch
// costs the lock, a look in the table of shapes and a counter.
//
// A launch runs without events (the committed version, else the original)
// in a stream being captured into a graph (which would replay the events),
// on a device beyond the first 16 and after any error of the calls made
// here. A launch is timed only while no earlier error is pending; a probe
// whose launch left an error behind (a launch failure takes no time and would
// look fastest) commits its shape to the original for good.
//
// -DWARPWISE_DISPATCH=0 pins the original, =1 the rewrite: no events, no
// state (the CPU equivalence tests pin either version). -DWARPWISE_DISPATCH_LOG
// prints each decision, with the medians it rests on, to stderr.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_MEASURED_CUH
#define WARPWISE_RUNTIME_MEASURED_CUH

#include <cuda_runtime.h>

#include <cstring>
#include <mutex>
#if defined(WARPWISE_DISPATCH_LOG)
#include <cstdio>
#endif

// The policy (rules/dispatch.json; warpwise writes its values here when it
// writes this header beside a rewritten file).
#ifndef WARPWISE_DISPATCH_PROBES
#define WARPWISE_DISPATCH_PROBES 3u
#endif
#ifndef WARPWISE_DISPATCH_MIN_GAIN
#define WARPWISE_DISPATCH_MIN_GAIN 0.01
#endif
#ifndef WARPWISE_DISPATCH_REPROBE_EVERY
#define WARPWISE_DISPATCH_REPROBE_EVERY 256u
#endif
#ifndef WARPWISE_DISPATCH_REPROBE_MAX
#define WARPWISE_DISPATCH_REPROBE_MAX 65536u
#endif
#ifndef WARPWISE_DISPATCH_SHAPES
#define WARPWISE_DISPATCH_SHAPES 32u
#endif
#ifndef WARPWISE_DISPATCH_WATCH_EVERY
#define WARPWISE_DISPATCH_WATCH_EVERY 16u
#endif
#ifndef WARPWISE_DISPATCH_WATCH_MAX
#define WARPWISE_DISPATCH_WATCH_MAX 1024u
#endif
#ifndef WARPWISE_DISPATCH_DRIFT
#define WARPWISE_DISPATCH_DRIFT 0.15
#endif
#ifndef WARPWISE_DISPATCH_WATCH_OTHER_EVERY
#define WARPWISE_DISPATCH_WATCH_OTHER_EVERY 64u
#endif
#ifndef WARPWISE_DISPATCH_WATCH_OTHER_RATIO
#define WARPWISE_DISPATCH_WATCH_OTHER_RATIO 1.5
#endif

namespace ww_v1 {

/// The key of a launch's scalar arguments (integers, floating point, enums):
/// their bytes, hashed (FNV-1a). A merge sort's passes launch the same grid
/// with a different width each; one shape for all of them would compare one
/// pass's time with another's.
static inline unsigned long long measured_key() {
  return 14695981039346656037ull;
}

template <class T, class... Rest>
static inline unsigned long long measured_key(T value, Rest... rest) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  unsigned long long h = measured_key(rest...);
  for (unsigned i = 0; i < sizeof(T); ++i)
    h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

#if defined(WARPWISE_DISPATCH)
#if WARPWISE_DISPATCH != 0 && WARPWISE_DISPATCH != 1
#error "-DWARPWISE_DISPATCH must be 0 (the original) or 1 (the rewrite)"
#endif

/// A pinned version needs no state.
struct measured_site {};

struct measured_plan {
  unsigned version; // 0: the original kernel; 1: the rewrite
};

static inline measured_plan measured_begin(measured_site &, dim3, dim3, size_t,
                                           cudaStream_t,
                                           unsigned long long = 0ull) {
  measured_plan plan;
  plan.version = WARPWISE_DISPATCH;
  return plan;
}

static inline void measured_end(measured_plan &) {}

#else

static_assert(WARPWISE_DISPATCH_PROBES >= 1u && WARPWISE_DISPATCH_PROBES <= 15u,
              "WARPWISE_DISPATCH_PROBES must be within 1..15");
static_assert(WARPWISE_DISPATCH_WATCH_EVERY >= 1u &&
                  WARPWISE_DISPATCH_WATCH_MAX >= WARPWISE_DISPATCH_WATCH_EVERY,
              "WARPWISE_DISPATCH_WATCH_MAX must be at least "
              "WARPWISE_DISPATCH_WATCH_EVERY (>= 1)");
static_assert(WARPWISE_DISPATCH_WATCH_OTHER_EVERY >= 1u,
              "WARPWISE_DISPATCH_WATCH_OTHER_EVERY must be at least 1");
static_assert(WARPWISE_DISPATCH_SHAPES >= 1u &&
                  WARPWISE_DISPATCH_SHAPES <= 1024u,
              "WARPWISE_DISPATCH_SHAPES must be within 1..1024");

/// Shapes remembered per site and device (a merge sort's passes launch one
/// grid each: 20 at 2^20 elements, which 8 entries thrashed, probing every
/// launch), and event pairs per site and device: at most this many probes
/// are in flight, the rest run untimed.
static const unsigned measured_shapes = WARPWISE_DISPATCH_SHAPES;
static const unsigned measured_pairs = 16u;

/// One launch shape's measurements and decision.
struct measured_shape {
  unsigned grid[3], block[3];
  size_t shared;
  unsigned long long key;  // The launch's scalar arguments (measured_key).
  unsigned long long used; // The device's clock at its last launch; 0: empty.
  unsigned generation;     // Changes when the entry is reused for another.
  float window[2][WARPWISE_DISPATCH_PROBES]; // The newest samples, in ms.
  unsigned char kept[2], head[2], warm[2];
  unsigned char want[2];     // Samples still wanted before the decision.
  unsigned char inflight[2]; // Probes issued, not yet collected.
  unsigned char next;        // The version to probe next when both want one.
  unsigned char settled;     // A probe's launch failed: the original, always.
  signed char committed;     // -1: probing; else the version that runs.
  unsigned done[2];          // Samples collected, warm-ups included.
  unsigned since, interval;  // Launches since the decision, until a re-probe.
  unsigned watch_since, watch_interval; // Likewise, until the next watch.
  unsigned char strikes; // Watches in a row off the committed median.
  unsigned char drifted; // The probes under way follow a drift.
  unsigned other_since, other_interval; // Until the other version's watch.
  unsigned char other_strikes; // Its watches in a row faster than its median.
  unsigned char other_drifted; // The probes under way follow such watches.
};

/// Two events around one probe launch.
struct measured_pair {
  cudaEvent_t start, stop;
  int state; // 0: free, 1: started (by measured_begin), 2: stopped
  unsigned shape, generation, version;
  bool watch; // A watch of the committed version, not a probe.
};

/// One launch site's state on one device.
struct measured_device {
  measured_shape shape[measured_shapes];
  measured_pair pair[measured_pairs];
  unsigned pairs;       // Pairs created (with the first probes that need them).
  unsigned outstanding; // Pairs started or stopped, not yet collected.
  bool no_events;       // Creating events failed: no more tries.
  unsigned long long clock;
};

/// One launch site (a function-local static of the rewritten launch).
struct measured_site {
  std::mutex lock;
  measured_device device[16];
  measured_site() : device() {}
};

/// What one launch runs: version 1 the rewrite, 0 the original.
struct measured_plan {
  std::unique_lock<std::mutex> hold;
  unsigned version;
  measured_device *device; // With pair: what measured_end completes.
  measured_pair *pair;     // The events timing this launch; 0: untimed.
  cudaStream_t stream;
};

/// The median of the \p n (>= 1) samples at \p v.
static inline double measured_median(const float *v, unsigned n) {
  float s[WARPWISE_DISPATCH_PROBES];
  for (unsigned i = 0; i < n; ++i) {
    unsigned j = i;
    for (; j > 0 && s[j - 1] > v[i]; --j)
      s[j] = s[j - 1];
    s[j] = v[i];
  }
  return n % 2u ? (double)s[n / 2u]
                : 0.5 * ((double)s[n / 2u - 1u] + (double)s[n / 2u]);
}

/// Commits \p s to the version its samples favour and sets the wait until
/// its next re-probe.
static inline void measured_decide(measured_shape &s) {
  const double original = measured_median(s.window[0], s.kept[0]);
  const double rewrite = measured_median(s.window[1], s.kept[1]);
  // Strictly faster and by the margin: a tie keeps the original.
  const signed char pick =
      rewrite < original &&
              rewrite <= original * (1.0 - WARPWISE_DISPATCH_MIN_GAIN)
          ? 1
          : 0;
  if (pick != s.committed)
    s.interval = WARPWISE_DISPATCH_REPROBE_EVERY;
  else
    s.interval = s.interval < WARPWISE_DISPATCH_REPROBE_MAX / 2u
                     ? 2u * s.interval
                     : WARPWISE_DISPATCH_REPROBE_MAX;
  // A drift that did not change the decision: watch less often.
  if (s.drifted && pick == s.committed)
    s.watch_interval = s.watch_interval < WARPWISE_DISPATCH_WATCH_MAX / 2u
                           ? 2u * s.watch_interval
                           : WARPWISE_DISPATCH_WATCH_MAX;
  else if (pick != s.committed)
    s.watch_interval = WARPWISE_DISPATCH_WATCH_EVERY;
  if (s.other_drifted && pick == s.committed)
    s.other_interval = s.other_interval < WARPWISE_DISPATCH_WATCH_MAX / 2u
                           ? 2u * s.other_interval
                           : WARPWISE_DISPATCH_WATCH_MAX;
  else if (pick != s.committed)
    s.other_interval = WARPWISE_DISPATCH_WATCH_OTHER_EVERY;
  s.drifted = 0u;
  s.other_drifted = 0u;
  s.strikes = 0u;
  s.other_strikes = 0u;
  s.watch_since = 0u;
  s.other_since = 0u;
#if defined(WARPWISE_DISPATCH_LOG)
  std::fprintf(stderr,
               "warpwise: dispatch: shape %p grid %ux%ux%u block %ux%ux%u "
               "shared %lu: original %.4f ms, rewrite %.4f ms (medians of "
               "%u and %u): %s\n",
               (void *)&s, s.grid[0], s.grid[1], s.grid[2], s.block[0],
               s.block[1], s.block[2], (unsigned long)s.shared, original,
               rewrite, (unsigned)s.kept[0], (unsigned)s.kept[1],
               pick ? "the rewrite" : "the original");
#endif
  s.committed = pick;
  s.since = 0u;
}

/// A completed probe of \p version that took \p ms.
static inline void measured_sample(measured_shape &s, unsigned version,
                                   float ms) {
  if (s.settled || s.want[version] == 0u)
    return;
  if (s.done[version] != ~0u)
    ++s.done[version];
  if (!s.warm[version]) {
    s.warm[version] = 1u; // The module's load and cold caches: dropped.
  } else {
    s.window[version][s.head[version]] = ms;
    s.head[version] =
        (unsigned char)((s.head[version] + 1u) % WARPWISE_DISPATCH_PROBES);
    if (s.kept[version] < WARPWISE_DISPATCH_PROBES)
      ++s.kept[version];
  }
  if (--s.want[version] == 0u && s.want[version ^ 1u] == 0u)
    measured_decide(s);
}

/// Drops \p s's samples and wants fresh ones of both versions, \p first
/// first.
static inline void measured_remeasure(measured_shape &s, unsigned first) {
  s.kept[0] = s.kept[1] = 0u;
  s.head[0] = s.head[1] = 0u;
  s.want[0] = s.want[1] = (unsigned char)WARPWISE_DISPATCH_PROBES;
  s.next = (unsigned char)first;
}

/// A completed watch of the version not committed (\p version) that took
/// \p ms: below the committed median by more than the drift, or twice in a
/// row below its own, it starts a fresh measurement of both, itself first.
static inline void measured_watched_other(measured_shape &s, unsigned version,
                                          float ms) {
  const unsigned committed = version ^ 1u;
  if (s.kept[0] == 0u || s.kept[1] == 0u)
    return;
  const double own = measured_median(s.window[version], s.kept[version]);
  const double best = measured_median(s.window[committed], s.kept[committed]);
  const double drift = WARPWISE_DISPATCH_DRIFT;
  if ((double)ms >= best * (1.0 - drift)) {
    if ((double)ms >= own * (1.0 - drift)) {
      s.other_strikes = 0u;
      return;
    }
    if (++s.other_strikes < 2u)
      return;
  }
#if defined(WARPWISE_DISPATCH_LOG)
  std::fprintf(stderr,
               "warpwise: dispatch: shape %p: the %s, not committed, took "
               "%.4f ms against medians of %.4f ms (its own) and %.4f ms "
               "(the %s): measuring both again\n",
               (void *)&s, version ? "rewrite" : "original", (double)ms, own,
               best, committed ? "rewrite" : "original");
#endif
  s.other_strikes = 0u;
  s.other_drifted = 1u;
  measured_remeasure(s, version);
}

/// A completed watch of \p version that took \p ms. Of the committed
/// version: the second in a row off its median by more than the drift
/// starts a fresh measurement of both versions, the other one first.
static inline void measured_watched(measured_shape &s, unsigned version,
                                    float ms) {
  if (s.settled || s.committed < 0 || s.want[0] != 0u || s.want[1] != 0u ||
      s.kept[version] == 0u)
    return;
  if (s.committed != (signed char)version)
    return measured_watched_other(s, version, ms);
  const double median = measured_median(s.window[version], s.kept[version]);
  const double off =
      (double)ms > median ? (double)ms - median : median - (double)ms;
  if (off <= median * WARPWISE_DISPATCH_DRIFT) {
    s.strikes = 0u;
    return;
  }
  if (++s.strikes < 2u)
    return;
#if defined(WARPWISE_DISPATCH_LOG)
  std::fprintf(stderr,
               "warpwise: dispatch: shape %p: the %s took %.4f ms against a "
               "median of %.4f ms: measuring both again\n",
               (void *)&s, version ? "rewrite" : "original", (double)ms,
               median);
#endif
  s.strikes = 0u;
  s.drifted = 1u;
  measured_remeasure(s, version ^ 1u);
}

/// Collects the probes of \p d whose stop event has completed; the others
/// stay for a later launch. False after an error (cleared).
static inline bool measured_poll(measured_device &d) {
  bool ok = true;
  for (unsigned i = 0; i < d.pairs; ++i) {
    measured_pair &p = d.pair[i];
    if (p.state == 0)
      continue;
    float ms = 0.0f;
    cudaError_t e = cudaSuccess;
    // A started pair is left over from a plan that never reached
    // measured_end (the plan holds the lock from begin to end): no sample.
    if (p.state == 2) {
      e = cudaEventQuery(p.stop);
      if (e == cudaSuccess)
        e = cudaEventElapsedTime(&ms, p.start, p.stop);
      if (e == cudaErrorNotReady)
        continue; // Not an error: the GPU has not got there yet.
    }
    measured_shape &s = d.shape[p.shape];
    const bool current = s.generation == p.generation;
    if (current && s.inflight[p.version] != 0u)
      --s.inflight[p.version];
    --d.outstanding;
    const bool stopped = p.state == 2;
    p.state = 0;
    if (e != cudaSuccess) {
      (void)cudaGetLastError(); // Only the error of the query, if any.
      ok = false;
    } else if (current && stopped) {
      if (p.watch)
        measured_watched(s, p.version, ms);
      else
        measured_sample(s, p.version, ms);
    }
  }
  return ok;
}

/// The entry of \p d for this shape: the one that has it, else, if \p add,
/// the empty or least recently used one, reset for probing; else 0.
static inline measured_shape *measured_find(measured_device &d, dim3 grid,
                                            dim3 block, size_t shared,
                                            unsigned long long key, bool add) {
  ++d.clock;
  measured_shape *oldest = &d.shape[0];
  for (unsigned i = 0; i < measured_shapes; ++i) {
    measured_shape &s = d.shape[i];
    if (s.used != 0u && s.shared == shared && s.key == key &&
        s.grid[0] == grid.x && s.grid[1] == grid.y && s.grid[2] == grid.z &&
        s.block[0] == block.x && s.block[1] == block.y &&
        s.block[2] == block.z) {
      s.used = d.clock;
      return &s;
    }
    if (s.used < oldest->used)
      oldest = &s;
  }
  if (!add)
    return 0;
  // Probes of the shape that was here find another generation: dropped.
  const unsigned generation = oldest->generation + 1u;
  *oldest = measured_shape();
  measured_shape &s = *oldest;
  s.generation = generation;
  s.grid[0] = grid.x, s.grid[1] = grid.y, s.grid[2] = grid.z;
  s.block[0] = block.x, s.block[1] = block.y, s.block[2] = block.z;
  s.shared = shared;
  s.key = key;
  s.used = d.clock;
  s.committed = -1;
  s.want[0] = s.want[1] = (unsigned char)(WARPWISE_DISPATCH_PROBES + 1u);
  s.next = 1u; // The model's choice first: a single launch runs the rewrite.
  s.watch_interval = WARPWISE_DISPATCH_WATCH_EVERY;
  s.other_interval = WARPWISE_DISPATCH_WATCH_OTHER_EVERY;
  return &s;
}

/// A free pair of events of \p d, created with the first probes that need
/// one; 0 when all are in flight or events cannot be created.
static inline measured_pair *measured_free_pair(measured_device &d) {
  for (unsigned i = 0; i < d.pairs; ++i)
    if (d.pair[i].state == 0)
      return &d.pair[i];
  if (d.pairs == measured_pairs || d.no_events)
    return 0;
  measured_pair &p = d.pair[d.pairs];
  if (cudaEventCreate(&p.start) != cudaSuccess) {
    (void)cudaGetLastError();
    d.no_events = true;
    return 0;
  }
  if (cudaEventCreate(&p.stop) != cudaSuccess) {
    (void)cudaGetLastError();
    cudaEventDestroy(p.start);
    d.no_events = true;
    return 0;
  }
  p.state = 0;
  ++d.pairs;
  return &p;
}

/// Times this launch of \p version of \p s (a probe, or a \p watch of the
/// committed version) where a pair of events is free and no error pending.
static inline void measured_time(measured_device &d, measured_shape &s,
                                 measured_plan &plan, cudaStream_t stream,
                                 unsigned version, bool watch) {
  measured_pair *p = measured_free_pair(d);
  // An error pending from before would look like this launch's failure.
  if (!p || cudaPeekAtLastError() != cudaSuccess)
    return;
  if (cudaEventRecord(p->start, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  p->state = 1;
  p->shape = (unsigned)(&s - d.shape);
  p->generation = s.generation;
  p->version = version;
  p->watch = watch;
  ++s.inflight[version];
  ++d.outstanding;
  if (!watch)
    s.next = (unsigned char)(version ^ 1u);
  plan.version = version;
  plan.device = &d;
  plan.pair = p;
  plan.stream = stream;
}

/// Whether the version not committed, \p committed ^ 1, is worth a watch:
/// its median within WARPWISE_DISPATCH_WATCH_OTHER_RATIO of the committed's.
static inline bool measured_other_close(const measured_shape &s,
                                        unsigned committed) {
  const unsigned other = committed ^ 1u;
  if (s.kept[0] == 0u || s.kept[1] == 0u)
    return false;
  return measured_median(s.window[other], s.kept[other]) <=
         WARPWISE_DISPATCH_WATCH_OTHER_RATIO *
             measured_median(s.window[committed], s.kept[committed]);
}

/// A launch of \p s while it wants samples: a timed launch of a version that
/// needs one (alternating while both do), else untimed with the best guess.
static inline void measured_probe(measured_device &d, measured_shape &s,
                                  measured_plan &plan, cudaStream_t stream) {
  // The best guess: the committed version, else the one with fewer samples
  // (the original on a tie).
  plan.version = s.committed >= 0        ? (unsigned)s.committed
                 : s.done[1] < s.done[0] ? 1u
                                         : 0u;
  const bool need0 = s.want[0] > s.inflight[0];
  const bool need1 = s.want[1] > s.inflight[1];
  if (!need0 && !need1)
    return; // Enough probes in flight: their samples decide.
  measured_time(d, s, plan, stream,
                need0 && need1 ? s.next
                : need1        ? 1u
                               : 0u,
                false);
}

/// Before a launch of \p grid x \p block threads with \p shared bytes in
/// \p stream: the version it runs. The plan holds the site's lock until
/// measured_end, so that one probe's events enclose its launch alone.
static inline measured_plan measured_begin(measured_site &site, dim3 grid,
                                           dim3 block, size_t shared,
                                           cudaStream_t stream,
                                           unsigned long long key = 0ull) {
  measured_plan plan = measured_plan();
  plan.version = 0u;
  int dev = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  // The legacy default stream is never captured; asking costs time on every
  // launch.
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  const bool may_capture = stream != cudaStreamLegacy;
#else
  const bool may_capture = stream != 0 && stream != cudaStreamLegacy;
#endif
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 16) {
    (void)cudaGetLastError();
    return plan; // No state: the original.
  }
  // A captured graph would replay the events: the committed version runs.
  bool timed = true;
  if (may_capture && (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
                      capture != cudaStreamCaptureStatusNone)) {
    (void)cudaGetLastError(); // Only the error of the query, if any.
    timed = false;
  }
  plan.hold = std::unique_lock<std::mutex>(site.lock);
  measured_device &d = site.device[dev];
  if (timed && d.outstanding != 0u)
    timed = measured_poll(d);
  measured_shape *s = measured_find(d, grid, block, shared, key, timed);
  if (!s)
    return plan; // A shape not seen, in a launch that cannot probe it.
  plan.version = s->committed > 0 ? 1u : 0u;
  if (!timed || s->settled)
    return plan;
  if (s->committed >= 0 && s->want[0] == 0u && s->want[1] == 0u) {
    if (++s->since < s->interval) {
      const unsigned version = plan.version, other = version ^ 1u;
      if (++s->other_since >= s->other_interval && s->inflight[other] == 0u &&
          measured_other_close(*s, version)) {
        s->other_since = 0u;
        measured_time(d, *s, plan, stream, other, true);
        return plan;
      }
      if (++s->watch_since < s->watch_interval || s->inflight[version] != 0u)
        return plan; // The steady state: no CUDA call.
      s->watch_since = 0u;
      measured_time(d, *s, plan, stream, version, true);
      return plan;
    }
    s->since = 0u;
    s->want[0] = s->want[1] = 1u; // A re-probe: one sample of each.
  }
  measured_probe(d, *s, plan, stream);
  return plan;
}

/// After the launch: a probe's stop event follows it in its stream. Releases
/// the site's lock.
static inline void measured_end(measured_plan &plan) {
  measured_pair *p = plan.pair;
  if (p) {
    measured_device &d = *plan.device;
    measured_shape &s = d.shape[p->shape];
    const bool failed = cudaPeekAtLastError() != cudaSuccess;
    if (failed || cudaEventRecord(p->stop, plan.stream) != cudaSuccess) {
      // No sample. A failed launch's error stays for the program to see,
      // and its shape runs the original from now on; an error of the
      // record is ours (cleared).
      if (!failed)
        (void)cudaGetLastError();
      p->state = 0;
      --d.outstanding;
      if (s.inflight[p->version] != 0u)
        --s.inflight[p->version];
      if (failed) {
        s.settled = 1u;
        s.committed = 0;
        s.want[0] = s.want[1] = 0u;
      }
    } else {
      p->state = 2;
    }
    plan.pair = 0;
  }
  if (plan.hold.owns_lock())
    plan.hold.unlock();
}

#endif

} // namespace ww_v1

#endif
