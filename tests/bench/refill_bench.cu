// refill_bench.cu - times the work refill (issue #30): each kernel of
// refill_kernels.cu as written and as warpwise rewrote it, on the same
// inputs; checks that both give identical outputs and prints one line per
// case. Built and run by refill_bench.sh.
//
// Usage: refill_bench [rounds [case]]   (default 21 rounds, the median is
// reported; with a case, only the cases whose name contains it run, so that
// a measured dispatch starts each case with no state: ray-march random and
// uniform launch the same shape with the same scalar arguments)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define DECLARE_API                                                            \
  void run_dec2zero(int *v, int n, int block);                                 \
  void run_escape_time(int *iters, int width, int height, float x0, float y0, \
                       float dx, float dy, int max_iter, int block);           \
  void run_ray_march(const float *dir, float *depth, int *steps, int n,       \
                     int max_steps, int block);
namespace orig {
DECLARE_API
}
namespace refill {
DECLARE_API
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "refill_bench: %s: %s\n", what, cudaGetErrorString(e));
    exit(2);
  }
}

static unsigned long long state = 88172645463325252ull;
static unsigned next_rand() {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (unsigned)(state >> 11);
}

/// The median time in ms of \p rounds launches; \p reset runs before each
/// (untimed).
static float time_median(int rounds, const std::function<void()> &reset,
                         const std::function<void()> &launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < rounds + 2; ++r) { // Two warm-up rounds.
    reset();
    check(cudaDeviceSynchronize(), "reset");
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    check(cudaEventSynchronize(b), "launch");
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    if (r >= 2)
      ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Whether any case's outputs differed (the exit status then says so).
static bool differ = false;
/// Run only the cases whose name contains this (null: all).
static const char *only_case = nullptr;

/// Each item's trip count, from the original's output bytes.
using WorkOf = std::function<std::vector<int>(const std::vector<unsigned char> &)>;

/// The most a refill can gain on \p work: the original's warps of 32
/// consecutive items each run as long as their longest item, a perfect
/// refill as long as the mean.
static double refill_bound(const std::vector<int> &work) {
  double longest = 0, total = 0;
  for (size_t w = 0; w < work.size(); w += 32) {
    int m = 0;
    for (size_t i = w; i < w + 32 && i < work.size(); ++i) {
      m = std::max(m, work[i]);
      total += work[i];
    }
    longest += 32.0 * m;
  }
  return total > 0 ? longest / total : 1.0;
}

/// Runs one case: both versions, timed, outputs compared byte for byte.
static void run_case(const char *name, int rounds, size_t out_bytes,
                     void *out, const std::function<void()> &reset,
                     const std::function<void()> &original,
                     const std::function<void()> &rewritten,
                     const WorkOf &work) {
  if (only_case && !strstr(name, only_case))
    return;
  std::vector<unsigned char> want(out_bytes), got(out_bytes);
  reset();
  original();
  check(cudaDeviceSynchronize(), name);
  check(cudaMemcpy(want.data(), out, out_bytes, cudaMemcpyDeviceToHost), name);
  reset();
  rewritten();
  check(cudaDeviceSynchronize(), name);
  check(cudaMemcpy(got.data(), out, out_bytes, cudaMemcpyDeviceToHost), name);
  bool same = memcmp(want.data(), got.data(), out_bytes) == 0;
  float t0 = time_median(rounds, reset, original);
  float t1 = time_median(rounds, reset, rewritten);
  printf("%-26s original %9.3f ms  refill %9.3f ms  speedup %5.2fx  "
         "bound %4.2fx  %s\n",
         name, t0, t1, t0 / t1, refill_bound(work(want)),
         same ? "outputs equal" : "OUTPUTS DIFFER");
  fflush(stdout);
  if (!same)
    differ = true;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  only_case = argc > 2 ? argv[2] : nullptr;
  const int block = 256;

  // dec2zero: 2^20 elements, random in [0, 4096) or all 2048.
  {
    const int n = 1 << 20;
    std::vector<int> random(n), uniform(n, 2048);
    for (int &v : random)
      v = (int)(next_rand() % 4096u);
    int *d;
    check(cudaMalloc((void **)&d, n * sizeof(int)), "malloc");
    for (int u = 0; u < 2; ++u) {
      const std::vector<int> &in = u ? uniform : random;
      run_case(u ? "dec2zero uniform" : "dec2zero random", rounds,
               n * sizeof(int), d,
               [&] {
                 cudaMemcpy(d, in.data(), n * sizeof(int),
                            cudaMemcpyHostToDevice);
               },
               [&] { orig::run_dec2zero(d, n, block); },
               [&] { refill::run_dec2zero(d, n, block); },
               [&](const std::vector<unsigned char> &) { return in; });
    }
    cudaFree(d);
  }
  // Escape time: 2048 x 2048 pixels over the set's boundary, a deep zoom
  // into the seahorse valley, and a window inside the main cardioid where
  // every pixel runs max_iter. A warp's 32 pixels are neighbours in a row:
  // over the whole boundary they mostly escape together (a warp's longest
  // pixel is 1.10x the mean, the most any refill can recover there); in
  // the zoom, 2.2x.
  {
    const int w = 2048, h = 2048, max_iter = 1024;
    int *d;
    check(cudaMalloc((void **)&d, (size_t)w * h * sizeof(int)), "malloc");
    struct Window {
      const char *name;
      float x0, y0, span;
    } windows[] = {{"escape-time boundary", -2.0f, -1.5f, 3.0f},
                   {"escape-time seahorse zoom", -0.7453f, 0.1127f, 0.0005f},
                   {"escape-time uniform", -0.2f, -0.1f, 0.2f}};
    for (const Window &W : windows) {
      float dx = W.span / w, dy = W.span / h;
      run_case(W.name, rounds, (size_t)w * h * sizeof(int), d,
               [&] { cudaMemset(d, 0, (size_t)w * h * sizeof(int)); },
               [&] {
                 orig::run_escape_time(d, w, h, W.x0, W.y0, dx, dy, max_iter,
                                       block);
               },
               [&] {
                 refill::run_escape_time(d, w, h, W.x0, W.y0, dx, dy,
                                         max_iter, block);
               },
               [&](const std::vector<unsigned char> &o) {
                 std::vector<int> it((size_t)w * h);
                 memcpy(it.data(), o.data(), it.size() * sizeof(int));
                 return it;
               });
    }
    cudaFree(d);
  }
  // Ray march: 2^20 rays, random directions, or all the same one.
  {
    const int n = 1 << 20, max_steps = 512;
    std::vector<float> random(3 * n), uniform(3 * n);
    for (int i = 0; i < n; ++i) {
      float v[3], len = 0;
      for (float &c : v) {
        c = (float)(next_rand() % 20001u) / 10000.0f - 1.0f;
        len += c * c;
      }
      len = sqrtf(len > 0 ? len : 1.0f);
      for (int k = 0; k < 3; ++k) {
        random[3 * i + k] = v[k] / len;
        uniform[3 * i + k] = k == 2 ? 1.0f : 0.0f;
      }
    }
    float *dir, *depth;
    int *steps;
    check(cudaMalloc((void **)&dir, 3 * n * sizeof(float)), "malloc");
    // depth and steps in one buffer, so that one comparison covers both.
    check(cudaMalloc((void **)&depth, 2 * n * sizeof(float)), "malloc");
    steps = (int *)(depth + n);
    for (int u = 0; u < 2; ++u) {
      const std::vector<float> &in = u ? uniform : random;
      cudaMemcpy(dir, in.data(), 3 * n * sizeof(float),
                 cudaMemcpyHostToDevice);
      run_case(u ? "ray-march uniform" : "ray-march random", rounds,
               2 * n * sizeof(float), depth,
               [&] { cudaMemset(depth, 0, 2 * n * sizeof(float)); },
               [&] { orig::run_ray_march(dir, depth, steps, n, max_steps, block); },
               [&] {
                 refill::run_ray_march(dir, depth, steps, n, max_steps, block);
               },
               [&](const std::vector<unsigned char> &o) {
                 std::vector<int> st(n);
                 memcpy(st.data(), o.data() + n * sizeof(float),
                        n * sizeof(int));
                 return st;
               });
    }
    cudaFree(dir);
    cudaFree(depth);
  }
  return differ ? 1 : 0;
}
