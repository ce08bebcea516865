// measured_test.cu - warpwise's measured dispatch (src/runtime/warpwise/
// measured.cuh) on its own: launch sites written as warpwise writes them
// (begin, the rewrite `k` or the original `k_ww_original`, end), with kernels
// whose time the test sets. Built for the CPU executor (tests/equiv/
// cpu_build.py, which force-includes cuda_cpu.h: launches run at once, each
// kernel advances the pretend GPU clock that events read by what the test
// sets, and the test can hold the events back, leave an error pending, have
// a stream captured or pick the device); prints one line per check and exits
// 1 if any failed.
//
// With -DWARPWISE_DISPATCH=0 or 1 it checks the pinned version instead.
// The policy is rules/dispatch.json's: 3 probes of each version after a
// warm-up, a gain of 1% at least, a re-probe after 256 launches, doubling;
// a watch of the committed version every 16 launches, a drift of 15%; a
// watch of the other version every 64 launches where its median is within
// 1.5 times the committed one's.
#include "warpwise_runtime.cuh"

#include <cstdio>

static int failures = 0;

static void check(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok)
    ++failures;
}

// What each version takes (ms of the pretend GPU), and whether the rewrite's
// launch fails (it leaves an error, as a launch out of resources would).
static double original_ms = 1.0, rewrite_ms = 1.0;
static bool rewrite_fails = false;

__global__ void k(int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    ww::elapse(rewrite_ms);
    if (rewrite_fails)
      ww::lastError() = cudaErrorLaunchOutOfResources;
    out[0] = 1;
  }
}

__global__ void k_ww_original(int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    ww::elapse(original_ms);
    out[0] = 0;
  }
}

// One launch, and what came of it.
struct Launched {
  unsigned version; // The plan's.
  bool timed;       // A probe: events enclose it.
  bool watched;     // A watch (of either version): events enclose it.
};

// The kernel that ran disagreed with the plan's version.
static bool mismatch = false;

// A launch at \p site, as warpwise writes it (the site a parameter, so that
// each check starts with a fresh one).
static Launched launch(ww_measured_site &site, dim3 grid = dim3(1),
                       dim3 block = dim3(1), size_t shared = 0,
                       cudaStream_t stream = 0,
                       unsigned long long key = ww_measured_key()) {
  int out[1] = {-1};
  Launched l;
  ww_measured_plan plan =
      ww_measured_begin(site, grid, block, shared, stream, key);
  if (plan.version != 0u)
    k<<<grid, block, shared, stream>>>(out);
  else
    k_ww_original<<<grid, block, shared, stream>>>(out);
#if defined(WARPWISE_DISPATCH)
  l.timed = l.watched = false;
#else
  l.timed = plan.pair != 0 && !plan.pair->watch;
  l.watched = plan.pair != 0 && plan.pair->watch;
#endif
  ww_measured_end(plan);
  l.version = plan.version;
  if (out[0] != (int)l.version)
    mismatch = true;
  return l;
}

// The launch site of a rewritten file, verbatim; returns the kernel that ran.
static int rewritten(int *out, int n, cudaStream_t stream) {
  { // warpwise WW4010 dispatch.k: measured dispatch
    dim3 const ww_grid_12_3((n + 63) / 64);
    dim3 const ww_block_12_3(64);
    static ww_measured_site ww_msite_12_3;
    ww_measured_plan ww_mplan_12_3 = ww_measured_begin(
        ww_msite_12_3, ww_grid_12_3, ww_block_12_3, 0, stream);
    if (ww_mplan_12_3.version != 0u)
      k<<<ww_grid_12_3, ww_block_12_3, 0, stream>>>(out);
    else
      k_ww_original<<<ww_grid_12_3, ww_block_12_3, 0, stream>>>(out);
    ww_measured_end(ww_mplan_12_3);
  }
  return out[0];
}

#if !defined(WARPWISE_DISPATCH)
// Launches until a probe (at most \p limit): the others before it (watches
// among them); \p versions gets the versions of those that were not
// watches.
static unsigned untimed_until_probe(ww_measured_site &site, unsigned limit,
                                    unsigned *versions) {
  for (unsigned n = 0; n < limit; ++n) {
    const Launched l = launch(site);
    if (l.timed)
      return n;
    if (!l.watched)
      *versions |= 1u << l.version;
  }
  return limit;
}

// The first probes of a new shape: 8 timed launches, alternating from the
// rewrite (the model's choice); returns true when they were.
static bool first_probes(ww_measured_site &site, dim3 grid = dim3(1)) {
  bool ok = true;
  for (unsigned i = 0; i < 8u; ++i) {
    const Launched l = launch(site, grid);
    ok &= l.timed && l.version == (i + 1u) % 2u;
  }
  return ok;
}

static void decisions() {
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 0.8;
    check(first_probes(site),
          "a new site probes: 8 timed launches alternating from the rewrite "
          "(a warm-up and 3 samples of each)");
    bool steady = true;
    for (int i = 0; i < 100; ++i) {
      const Launched l = launch(site);
      steady &= !l.timed && (l.watched || l.version == 1u);
    }
    check(steady, "a rewrite 20% faster is committed, untimed launches (but "
                  "the watches)");
  }
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 0.995;
    first_probes(site);
    const Launched l = launch(site);
    check(!l.timed && l.version == 0u,
          "a rewrite 0.5% faster (within the 1% margin) commits the original");
  }
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 1.2;
    first_probes(site);
    const Launched l = launch(site);
    check(!l.timed && l.version == 0u, "a slower rewrite commits the original");
  }
  {
    ww_measured_site site;
    original_ms = rewrite_ms = 0.0; // The CPU executor's own times.
    first_probes(site);
    const Launched l = launch(site);
    check(!l.timed && l.version == 0u, "a tie commits the original");
  }
  {
    // The rewrite's first launch loads its module.
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 50.0;
    launch(site);
    launch(site);
    rewrite_ms = 0.8;
    for (int i = 2; i < 8; ++i)
      launch(site);
    check(launch(site).version == 1u,
          "a slow first launch (a warm-up, dropped) does not count against "
          "its version");
  }
}

static void shapes() {
  {
    // A merge sort's passes: one grid, another width each.
    ww_measured_site keyed;
    original_ms = 1.0, rewrite_ms = 0.8;
    first_probes(keyed);
    const Launched other =
        launch(keyed, dim3(1), dim3(1), 0, 0, ww_measured_key(2, 0.5f));
    const Launched known = launch(keyed);
    check(other.timed && !known.timed && known.version == 1u,
          "another value of a scalar argument is a new shape");
    check(ww_measured_key(1) != ww_measured_key(2) &&
              ww_measured_key(1) != ww_measured_key(1.0f) &&
              ww_measured_key(1, 2) != ww_measured_key(2, 1) &&
              ww_measured_key(3, 4) == ww_measured_key(3, 4),
          "the key tells values, types and order apart");
  }
  ww_measured_site site;
  original_ms = 1.0, rewrite_ms = 0.8;
  first_probes(site);
  bool probes = true;
  for (unsigned i = 0; i < 8u; ++i) {
    const Launched other = launch(site, dim3(2));
    probes &= other.timed && other.version == (i + 1u) % 2u;
    const Launched first = launch(site);
    probes &= !first.timed && first.version == 1u;
  }
  check(probes, "a new grid probes again; the known one stays committed");
  const Launched block = launch(site, dim3(1), dim3(2));
  const Launched shared = launch(site, dim3(1), dim3(1), 64);
  check(block.timed && shared.timed,
        "another block or dynamic shared size is a new shape too");
  // WARPWISE_DISPATCH_SHAPES per site and device: as many more push out the
  // least recently used, grid 2 (grid 1 was launched after it).
  launch(site);
  for (unsigned g = 3; g < WARPWISE_DISPATCH_SHAPES; ++g)
    launch(site, dim3(g));
  const Launched first = launch(site);
  const Launched evicted = launch(site, dim3(2));
  check(!first.timed && first.version == 1u && evicted.timed,
        "the least recently used shape makes room and probes again later");
}

static void reprobes() {
  ww_measured_site site;
  original_ms = 1.0, rewrite_ms = 0.8;
  first_probes(site);
  unsigned versions = 0;
  // The decision came with the 9th launch: 255 more before the re-probe.
  check(untimed_until_probe(site, 1000, &versions) == 255u &&
            versions == 1u << 1,
        "255 launches of the rewrite, then a re-probe (256 since the "
        "decision)");
  check(launch(site).timed, "a re-probe times one launch of each version");
  versions = 0;
  // The same decision: the wait doubles. Each re-probe times the rewrite
  // first, then the original.
  check(untimed_until_probe(site, 511, &versions) == 511u &&
            versions == 1u << 1,
        "the decision stays: the next re-probe after 512 launches");
  // The data changes: now the rewrite is slower. The re-probe's one sample
  // does not outvote the window of 3; the watches of the rewrite that
  // follow, 87% off its median, do: the second starts a fresh measurement.
  rewrite_ms = 1.5;
  check(launch(site).timed, "the re-probe after 512 launches");
  const Launched kept = launch(site);
  unsigned n = 1, watches = 0;
  Launched l = launch(site);
  for (; n < 200 && !l.timed; ++n) {
    watches += l.watched;
    l = launch(site);
  }
  check(kept.timed && n == 33u && watches == 2u && l.version == 0u,
        "one slower sample in the window keeps the rewrite; two watches off "
        "its median (launches 16 and 32 after the decision) measure both "
        "again, the original first");
  for (unsigned i = 0; i < 5u; ++i)
    launch(site);
  versions = 0;
  check(untimed_until_probe(site, 3000, &versions) == 255u &&
            versions == 1u << 0,
        "the fresh samples flip the decision to the original, and the wait "
        "starts again at 256");
  launch(site);
  rewrite_ms = 0.8;
}

// Launches until a watch of \p version (at most \p limit): the others
// before it; \p probed is set when a probe came first.
static unsigned until_watch(ww_measured_site &site, unsigned limit,
                            bool *probed, unsigned version = 1u) {
  for (unsigned n = 0; n < limit; ++n) {
    const Launched l = launch(site);
    if (l.watched && l.version == version)
      return n;
    *probed |= l.timed;
  }
  return limit;
}

// The watch of the version not committed: a committed version whose time
// stays flat while the other's falls (a mask's heavy share dropping under a
// kernel that runs both sides in every warp either way).
static void other_watch() {
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 1.2;
    first_probes(site); // The original committed (the 9th launch).
    rewrite_ms = 0.5;   // The data changes: only the rewrite gains.
    bool probed = false;
    check(until_watch(site, 200, &probed, 1u) == 63u && !probed,
          "the other version (median 1.2 ms, within 1.5 times 1.0 ms) is "
          "watched once in 64 launches");
    const Launched next = launch(site);
    check(next.timed && next.version == 1u,
          "a watch below the committed median by more than 15% measures both "
          "again at once, the watched version first");
    for (unsigned i = 0; i < 5u; ++i)
      launch(site);
    const Launched after = launch(site);
    check(!after.timed && after.version == 1u,
          "the fresh samples commit the rewrite");
  }
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 0.8;
    first_probes(site); // The rewrite committed.
    original_ms = 0.8;  // 20% below its median, not below the rewrite's.
    bool probed = false;
    const unsigned first = until_watch(site, 200, &probed, 0u);
    const Launched after_one = launch(site);
    const unsigned second = until_watch(site, 200, &probed, 0u);
    const Launched after_two = launch(site);
    check(first == 63u && !after_one.timed && second == 62u && !probed &&
              after_two.timed && after_two.version == 0u,
          "two watches of the other version in a row faster than its median "
          "measure both again, itself first");
    for (unsigned i = 0; i < 6u; ++i)
      launch(site);
    check(launch(site).version == 0u,
          "a tie within the 1% margin commits the original");
  }
  {
    ww_measured_site site;
    original_ms = 1.0, rewrite_ms = 2.0;
    first_probes(site);
    unsigned versions = 0;
    bool watched_other = false;
    for (unsigned i = 0; i < 200u; ++i) {
      const Launched l = launch(site);
      versions |= 1u << l.version;
      watched_other |= l.watched && l.version == 1u;
    }
    check(versions == 1u << 0 && !watched_other,
          "a version twice as slow is not watched: 200 launches of the "
          "committed one");
  }
  original_ms = 1.0, rewrite_ms = 0.8;
}

static void drift() {
  ww_measured_site site;
  original_ms = 1.0, rewrite_ms = 0.8;
  first_probes(site);
  bool probed = false;
  check(until_watch(site, 100, &probed) == 15u && !probed &&
            until_watch(site, 100, &probed) == 15u && !probed,
        "a committed shape times one launch in 16 (a watch)");
  // 80 launches each, so that the periodic re-probe (256 launches after the
  // decision) falls after them.
  rewrite_ms = 0.85; // Within the drift of 15%.
  for (unsigned i = 0; i < 80u; ++i)
    probed |= launch(site).timed;
  check(!probed, "watches within 15% of the median change nothing");
  rewrite_ms = 2.0; // One odd watch, then the time it had.
  until_watch(site, 100, &probed);
  rewrite_ms = 0.8;
  for (unsigned i = 0; i < 80u; ++i)
    probed |= launch(site).timed;
  check(!probed, "one odd watch alone changes nothing");
  // Both versions slower alike (a larger input under the same shape): the
  // fresh measurement confirms the rewrite, and the watches halve.
  original_ms = 2.0, rewrite_ms = 1.6;
  until_watch(site, 100, &probed);
  until_watch(site, 100, &probed);
  unsigned order = 0;
  for (unsigned i = 0; i < 6u; ++i) {
    const Launched p = launch(site);
    order |= (p.timed ? p.version : 1u) << i;
  }
  check(order == 0x2au, "a drift measures both again, alternating from the "
                        "other version (the original)");
  probed = false;
  const Launched decided = launch(site); // The first after the decision.
  check(decided.version == 1u && until_watch(site, 100, &probed) == 30u &&
            !probed,
        "the rewrite confirmed: the next watch 32 launches after the "
        "decision");
  original_ms = 1.0, rewrite_ms = 0.8;
}

static void outstanding() {
  ww_measured_site site;
  original_ms = 1.0, rewrite_ms = 0.8;
  ww::holdEvents() = true; // A busy GPU: nothing completes.
  const bool probed = first_probes(site);
  bool going = true;
  for (int i = 0; i < 50; ++i) {
    const Launched l = launch(site);
    going &= !l.timed && l.version == 0u;
  }
  check(probed && going,
        "events not ready: launches go on untimed, with the original, and "
        "nothing waits for the GPU");
  // 16 pairs of events per site and device: a second shape takes the other
  // 8, a third finds none.
  first_probes(site, dim3(2));
  const Launched third = launch(site, dim3(3));
  check(!third.timed && third.version == 0u,
        "with every pair of events in flight a launch runs untimed");
  ww::holdEvents() = false;
  const Launched later = launch(site);
  check(!later.timed && later.version == 1u,
        "the samples count when the events complete: the rewrite commits");
  check(launch(site, dim3(3)).timed, "the pairs are free again");
}

static void unmeasured() {
  ww_measured_site site;
  original_ms = 1.0, rewrite_ms = 0.8;
  cudaStream_t const mine = (cudaStream_t)0x10;
  for (int i = 0; i < 9; ++i)
    launch(site, dim3(1), dim3(1), 0, mine);
  ww::capturingStream() = mine;
  const Launched known = launch(site, dim3(1), dim3(1), 0, mine);
  const Launched unknown = launch(site, dim3(5), dim3(1), 0, mine);
  ww::capturingStream() = 0;
  check(!known.timed && known.version == 1u,
        "a stream being captured runs the committed version, untimed");
  check(!unknown.timed && unknown.version == 0u,
        "a stream being captured runs the original for a shape not decided");
  check(launch(site, dim3(5), dim3(1), 0, mine).timed,
        "the shape seen in the capture probes when the capture is over");

  ww::currentDevice() = 1;
  const Launched other = launch(site);
  ww::currentDevice() = 20;
  const Launched beyond = launch(site);
  ww::currentDevice() = 0;
  check(other.timed && other.version == 1u,
        "another device has state of its own: it probes, the rewrite first");
  check(!beyond.timed && beyond.version == 0u,
        "a device beyond the first 16 runs the original, untimed");

  ww_measured_site failing;
  ww::failEventCreate() = true;
  const Launched no_events = launch(failing);
  ww::failEventCreate() = false;
  check(!no_events.timed && no_events.version == 0u &&
            cudaGetLastError() == cudaSuccess,
        "events that cannot be created: the original, untimed, the error "
        "cleared");

  ww_measured_site pending;
  ww::lastError() = cudaErrorMemoryAllocation; // The program's, not read yet.
  const Launched before = launch(pending);
  check(!before.timed && before.version == 0u &&
            cudaGetLastError() == cudaErrorMemoryAllocation,
        "with an error pending the launch runs untimed, and the error stays "
        "for the program");

  ww_measured_site broken;
  rewrite_fails = true;
  const Launched failed = launch(broken); // The rewrite probes first.
  rewrite_fails = false;
  const bool kept = cudaGetLastError() == cudaErrorLaunchOutOfResources;
  unsigned versions = 0;
  check(failed.version == 1u && kept &&
            untimed_until_probe(broken, 5000, &versions) == 5000u &&
            versions == 1u << 0,
        "a rewrite whose launch fails: its error stays, and the original "
        "runs from then on, untimed");
}
#else
static void pinned() {
  ww_measured_site site;
  const unsigned long long events = ww::eventsRecorded();
  unsigned versions = 0;
  original_ms = 1.0, rewrite_ms = WARPWISE_DISPATCH ? 2.0 : 0.5;
  for (unsigned i = 0; i < 600; ++i)
    versions |= 1u << launch(site, dim3(1 + i % 11)).version;
  check(versions == 1u << WARPWISE_DISPATCH,
        "-DWARPWISE_DISPATCH pins every launch to that version");
  check(ww::eventsRecorded() == events, "a pinned version records no events");
}
#endif

int main() {
  check(WARPWISE_RUNTIME_API >= 2, "the runtime provides API version 2");
#if !defined(WARPWISE_DISPATCH)
  decisions();
  shapes();
  reprobes();
  drift();
  other_watch();
  outstanding();
  unmeasured();
  original_ms = 1.0, rewrite_ms = 0.8;
  static int out[1];
  int ran = 0;
  for (int i = 0; i < 20; ++i)
    ran |= 1 << rewritten(out, 1000, 0);
  check(ran == 3 && rewritten(out, 1000, 0) == 1,
        "a rewritten launch site as warpwise writes it probes, then runs the "
        "faster rewrite");
#else
  pinned();
  static int out[1];
  check(rewritten(out, 100, 0) == WARPWISE_DISPATCH,
        "a rewritten launch site runs the pinned version");
#endif
  check(!mismatch, "every launch ran the kernel of its plan's version");
  std::printf("%s\n",
              failures ? "measured dispatch: FAILED" : "measured dispatch: OK");
  return failures ? 1 : 0;
}
