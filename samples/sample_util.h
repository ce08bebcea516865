// sample_util.h - what every warpwise sample shares: argument parsing, a
// checksum of the results (so that the original and the rewritten program can
// be compared bit for bit), a CPU-reference comparison, and kernel timing
// with CUDA events (warm-up, median of N runs).
//
// Every sample prints
//   <name>: OK ...           or   <name>: MISMATCH ...   (exit 1)
//   checksum <name> <16 hex digits>
// and, with --bench N,
//   time_ms <median> <min> <max> (N runs)
#ifndef WARPWISE_SAMPLE_UTIL_H
#define WARPWISE_SAMPLE_UTIL_H

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct SampleArgs {
  int bench; // 0: check only; N: also time N runs
  std::vector<const char *> positional;
};

static SampleArgs parse_args(int argc, char **argv) {
  SampleArgs a;
  a.bench = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
      a.bench = atoi(argv[++i]);
    else
      a.positional.push_back(argv[i]);
  }
  return a;
}

static int arg_int(const SampleArgs &a, size_t i, int def) {
  return i < a.positional.size() ? atoi(a.positional[i]) : def;
}

/// FNV-1a over the bytes of the results.
static unsigned long long checksum_bytes(const void *p, size_t n,
                                         unsigned long long h = 1469598103934665603ull) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

static void print_checksum(const char *name, unsigned long long h) {
  printf("checksum %s %016llx\n", name, h);
}

/// Compares results with the CPU reference within a relative tolerance (the
/// GPU's fused multiply-adds differ in the last bits from the CPU's).
static bool compare_floats(const char *name, const float *got,
                           const float *want, size_t n, float tol = 1e-4f) {
  for (size_t i = 0; i < n; ++i) {
    float d = fabsf(got[i] - want[i]);
    float m = fmaxf(1.0f, fabsf(want[i]));
    if (!(d <= tol * m)) {
      printf("%s: MISMATCH at %zu: got %.9g, expected %.9g\n", name, i,
             got[i], want[i]);
      return false;
    }
  }
  return true;
}

static bool compare_ints(const char *name, const int *got, const int *want,
                         size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      printf("%s: MISMATCH at %zu: got %d, expected %d\n", name, i, got[i],
             want[i]);
      return false;
    }
  return true;
}

static unsigned sample_rng = 2463534242u;
static unsigned next_rand() {
  sample_rng ^= sample_rng << 13;
  sample_rng ^= sample_rng >> 17;
  sample_rng ^= sample_rng << 5;
  return sample_rng;
}
static float rand_float(float lo, float hi) {
  return lo + (hi - lo) * (float)(next_rand() % 1000000) / 1000000.0f;
}

/// Times `run()` (which launches the kernels) with CUDA events: 3 warm-up
/// runs, then `reps` timed runs; prints median, min and max in ms.
template <class F> static void bench(int reps, F run) {
  if (reps <= 0)
    return;
  for (int i = 0; i < 3; ++i)
    run();
  cudaDeviceSynchronize();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start, 0);
    run();
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  printf("time_ms %.4f %.4f %.4f (%d runs)\n", ms[ms.size() / 2], ms.front(),
         ms.back(), reps);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

static void check_cuda(const char *name) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess)
    e = cudaGetLastError();
  if (e != cudaSuccess) {
    printf("%s: CUDA error: %s\n", name, cudaGetErrorString(e));
    exit(2);
  }
}

#endif
