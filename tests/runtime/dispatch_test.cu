// dispatch_test.cu - warpwise's run-time support (src/runtime/warpwise) on
// its own: the compact split's list pools and the adaptive split's per-launch
// dispatch, driven through the API that rewritten code calls, with the heavy
// kernel's published counts written by hand. Built for the CPU executor
// (tests/equiv/cpu_build.py, which force-includes cuda_cpu.h: one device of
// 4 SMs, mapped host memory is host memory); prints one line per check and
// exits 1 if any failed.
//
// With -DWARPWISE_SPLIT_PATH=0, 1 or 2 it checks the pinned path instead.
#include "warpwise_runtime.cuh"

#include <cstdio>

static int failures = 0;

static void check(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok)
    ++failures;
}

// A launch's data: heavy threads in mixed warps, mixed warps, and warps
// whose threads all take the heavy side.
struct Counts {
  unsigned long long in_mixed, mixed, uniform;
};

// What the heavy kernel's last block publishes after a split launch: path 1
// lists the heavy threads of mixed warps (uniformly heavy warps ran in
// place), path 2 every heavy thread.
static void publish(const ww_adaptive_plan &plan, const Counts &c) {
  plan.stats[1] = plan.path == 1u ? c.in_mixed : c.in_mixed + 32u * c.uniform;
  plan.stats[2] = c.mixed;
  plan.stats[3] = plan.threads;
  plan.stats[4] = c.uniform;
  plan.stats[5] = plan.path;
  plan.stats[0] = plan.stats[0] + 1u;
}

// One launch at \p site: begin, the launch (publishing \p counts when a
// split pair ran), end. Returns the path taken.
static unsigned launch(ww_adaptive_site &site, dim3 grid, dim3 block,
                       cudaStream_t stream, const Counts *counts,
                       unsigned *heavy_blocks = 0) {
  ww_adaptive_plan plan = ww_adaptive_begin(site, grid, block, stream);
  if (heavy_blocks)
    *heavy_blocks = plan.heavy_blocks;
  if (plan.path != 0u && counts)
    publish(plan, *counts);
  ww_adaptive_end(plan);
  return plan.path;
}

// The same under a measured dispatch (API version 4) that chose \p version.
static unsigned launch_measured(ww_adaptive_site &site, unsigned version,
                                const Counts *counts) {
  ww_measured_plan measured = ww_measured_plan();
  measured.version = version;
  ww_adaptive_plan plan =
      ww_adaptive_begin(site, dim3(32), dim3(256), 0, measured);
  if (plan.path != 0u && counts)
    publish(plan, *counts);
  ww_adaptive_end(plan);
  return plan.path;
}

static void pools() {
  cudaMemPool_t first = ww_list_pool(0);
  check(first != 0, "device 0 has a list pool");
  check(ww_list_pool(0) == first, "the pool is created once and kept");
  check(ww_list_pool(1) == 0, "no pool for a device that does not exist");
  check(ww_list_pool(-1) == 0, "no pool for a negative device");
}

#if !defined(WARPWISE_SPLIT_PATH)
static void refusals() {
  ww_adaptive_site site;
  check(launch(site, dim3(64), dim3(48), 0, 0) == 0u,
        "a block of partial warps runs the original");
  check(launch(site, dim3(65536, 128), dim3(256), 0, 0) == 0u,
        "a launch of 2^31 threads runs the original");
  check(launch(site, dim3(0), dim3(256), 0, 0) == 0u,
        "an empty launch runs the original");
}

// 32 blocks of 256 threads: 8192 threads, 256 warps; the policy of
// rules/split.json (a listed warp costs 1.5, a pair must save 5% of the
// warps, a look every 32 launches).
static void decisions() {
  ww_adaptive_site site;
  const dim3 grid(32), block(256);
  unsigned blocks = 0;
  // Nothing published yet: the first launch looks at the data with the
  // light pair (path 2), over one wave of the device at least (4 SMs of
  // 2048 thread slots: 32 blocks of 256, here the whole grid).
  const Counts scattered = {100, 100, 0}; // 100 heavy threads, each alone.
  check(launch(site, grid, block, 0, &scattered, &blocks) == 2u,
        "the first launch at a site is a look, with path 2");
  check(blocks == 32u, "the heavy grid is one wave of the device at least");
  // 100 mixed warps cost the original 100 warp-executions of the heavy
  // side; listing their 100 threads costs 1.5 * 100 / 32 = 4.7: a pair
  // pays, and with no uniformly heavy warps path 2 wins the tie.
  check(launch(site, grid, block, 0, &scattered) == 2u,
        "scattered heavy threads keep the light pair");
  // Beyond a wave, the heavy grid follows the last published list: on 256
  // blocks, 1.25 * 30000 / 256 + 1.
  {
    ww_adaptive_site big;
    const Counts wide = {30000, 2048, 0};
    launch(big, dim3(256), block, 0, &wide);
    check(launch(big, dim3(256), block, 0, &wide, &blocks) == 2u &&
              blocks == 147u,
          "the heavy grid covers the last list with a margin");
  }
  const Counts many = {3000, 256, 0};
  launch(site, grid, block, 0, &many);
  // Every warp uniformly heavy: the original and path 1 run 256 warps of the
  // heavy side, path 2 would list 8192 threads (384): no pair saves 5%, so
  // the original runs, and the next look uses path 1, the cheaper pair.
  const Counts uniform = {0, 0, 256};
  check(launch(site, grid, block, 0, &uniform) == 2u,
        "the light pair runs the launch that sees the change");
  unsigned taken = 0, looks = 0;
  for (int i = 0; i < 63; ++i)
    taken |= launch(site, grid, block, 0, &uniform);
  check(taken == 0u, "then the original runs, 63 launches");
  // The wait doubled from 32 to 64 launches: the 64th is a look with path 1.
  check(launch(site, grid, block, 0, &uniform) == 1u,
        "after 64 launches a look with the cheaper pair, path 1");
  // A look that keeps the original doubles the wait again: 128.
  for (int i = 0; i < 127; ++i)
    looks += launch(site, grid, block, 0, &uniform) != 0u;
  check(looks == 0u && launch(site, grid, block, 0, &uniform) == 1u,
        "the wait doubles while the original keeps winning");
  // The data changes: the next look (after 256 launches) sees every warp
  // mixed with half its threads heavy; path 2 costs 192 warps of 256.
  for (int i = 0; i < 255; ++i)
    launch(site, grid, block, 0, &uniform);
  const Counts half = {4096, 256, 0};
  check(launch(site, grid, block, 0, &half) == 1u, "a look after 256 launches");
  check(launch(site, grid, block, 0, &half) == 2u,
        "mixed warps bring the split back, with path 2");
  // Uniformly heavy warps and a few mixed ones: path 1 runs 200 warps in
  // place and lists 128 threads (206), path 2 lists 6528 threads (306), the
  // original runs 328.
  ww_adaptive_site other;
  const Counts some_uniform = {128, 128, 200};
  check(launch(other, grid, block, 0, &some_uniform) == 2u,
        "another site's first look");
  check(launch(other, grid, block, 0, &some_uniform) == 1u,
        "uniformly heavy warps in place: path 1");
  check(launch(other, grid, block, 0, &some_uniform) == 1u,
        "path 1's own counts keep it");
}

// Under a measured dispatch, which weighs the original against the split,
// version 0 runs the original without touching the split's state, and
// version 1 a split pair, the cheaper by the counts, even where the split's
// own policy would run the original.
static void measured() {
  ww_adaptive_site site;
  const Counts scattered = {100, 100, 0};
  unsigned taken = 0;
  for (int i = 0; i < 100; ++i)
    taken |= launch_measured(site, 0u, &scattered);
  check(taken == 0u, "measured version 0 runs the original, 100 launches");
  check(launch_measured(site, 1u, &scattered) == 2u,
        "measured version 1: the site's first split, the light pair");
  check(launch_measured(site, 0u, &scattered) == 0u,
        "measured version 0 again runs the original");
  // Every warp uniformly heavy: the policy alone would run the original,
  // with path 1 as the cheaper pair.
  const Counts uniform = {0, 0, 256};
  launch_measured(site, 1u, &uniform);
  unsigned paths = 0;
  for (int i = 0; i < 40; ++i)
    paths |= 1u << launch_measured(site, 1u, &uniform);
  check(paths == 1u << 1, "measured version 1 runs the cheaper pair, path 1, "
                          "where the policy alone keeps the original");
  check(launch(site, dim3(32), dim3(256), 0, &uniform) == 0u,
        "without the dispatch the same site runs the original");
  check(launch_measured(site, 1u, &scattered) == 1u &&
            launch_measured(site, 1u, &scattered) == 2u,
        "the pair follows the counts: scattered heavy threads, path 2");
}

static void streams() {
  ww_adaptive_site site;
  cudaStream_t mine = (cudaStream_t)0x10, theirs = (cudaStream_t)0x20;
  const Counts scattered = {100, 100, 0};
  check(launch(site, dim3(32), dim3(256), mine, &scattered) == 2u,
        "the first stream at a site owns its buffers");
  check(launch(site, dim3(32), dim3(256), theirs, &scattered) == 0u,
        "a launch in another stream runs the original");
  check(launch(site, dim3(32), dim3(256), mine, &scattered) == 2u,
        "the first stream keeps splitting");
}
#else
static void pinned() {
  ww_adaptive_site site;
  const Counts uniform = {0, 0, 256};
  unsigned paths = 0;
  for (int i = 0; i < 100; ++i)
    paths |= 1u << launch(site, dim3(32), dim3(256), 0, &uniform);
  check(paths == 1u << WARPWISE_SPLIT_PATH,
        "-DWARPWISE_SPLIT_PATH pins every launch to that path");
  check(launch(site, dim3(32), dim3(48), 0, &uniform) == 0u,
        "a launch that cannot split still runs the original");
  check(launch_measured(site, 0u, &uniform) == WARPWISE_SPLIT_PATH,
        "the pin holds where a measured dispatch chose the original");
}
#endif

int main() {
  // A later API keeps version 1's names (runtime.cuh).
  check(WARPWISE_RUNTIME_API >= 1, "the runtime provides API version 1");
  pools();
#if !defined(WARPWISE_SPLIT_PATH)
  refusals();
  decisions();
  measured();
  streams();
#else
  pinned();
#endif
  std::printf("%s\n", failures ? "runtime dispatch: FAILED" : "runtime dispatch: OK");
  return failures ? 1 : 0;
}
