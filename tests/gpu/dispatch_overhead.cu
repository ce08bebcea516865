// dispatch_overhead.cu - what a measured-dispatch launch site (issue 25 item
// 1; warpwise's runtime, measured.cuh) costs in steady state, on a GPU. The
// two "versions" are the same kernel, so the dispatch commits to the original
// after its probes, and every later launch pays only the site's bookkeeping.
// Three builds of this file:
//   nvcc -O3 -arch=sm_90 -I src/runtime/warpwise -o direct dispatch_overhead.cu
//   ... -DUSE_DISPATCH -o dispatch                (the runtime decides)
//   ... -DUSE_DISPATCH -DWARPWISE_DISPATCH=1 -o pinned   (no state, no events)
// Each times a spin kernel of about ARG microseconds (argv[1], default 20) in
// two ways, after 300 warm-up launches:
//   sync  - events around each launch, then a synchronisation (as a sample's
//           bench loop does): the host's work before the launch shows;
//   queue - 2,000 launches back to back between two events: the GPU's time per
//           launch when the host keeps ahead of it;
// and the host's time per launch site call (begin + end, or the launch alone).
#include "runtime.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void spin(long long cycles, int *sink) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && blockIdx.x == 0)
    sink[0] = 1;
}

__global__ void spin_ww_original(long long cycles, int *sink) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && blockIdx.x == 0)
    sink[0] = 1;
}

static void launch(long long cycles, int *sink) {
#ifdef USE_DISPATCH
  dim3 const grid(132);
  dim3 const block(128);
  static ww_measured_site site;
  ww_measured_plan plan = ww_measured_begin(site, grid, block, 0, 0);
  if (plan.version != 0u)
    spin<<<grid, block, 0, 0>>>(cycles, sink);
  else
    spin_ww_original<<<grid, block, 0, 0>>>(cycles, sink);
  ww_measured_end(plan);
#else
  spin<<<132, 128>>>(cycles, sink);
#endif
}

int main(int argc, char **argv) {
  double us = argc > 1 ? atof(argv[1]) : 20.0;
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  long long cycles = (long long)(us * clock_khz / 1000.0);
  int *sink;
  cudaMalloc(&sink, sizeof(int));
  for (int i = 0; i < 300; ++i)
    launch(cycles, sink);
  cudaDeviceSynchronize();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> sync;
  for (int i = 0; i < 200; ++i) {
    cudaEventRecord(a, 0);
    launch(cycles, sink);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    sync.push_back(ms * 1000.0f);
  }
  std::sort(sync.begin(), sync.end());
  const int queued = 2000;
  cudaEventRecord(a, 0);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < queued; ++i)
    launch(cycles, sink);
  auto t1 = std::chrono::steady_clock::now();
  cudaEventRecord(b, 0);
  cudaEventSynchronize(b);
  float queue_ms = 0;
  cudaEventElapsedTime(&queue_ms, a, b);
  double host_us =
      std::chrono::duration<double, std::micro>(t1 - t0).count() / queued;
  cudaError_t e = cudaGetLastError();
  printf("spin %.0f us: sync median %.3f min %.3f us; queue %.3f us per "
         "launch; host %.3f us per launch call; %s\n",
         us, sync[sync.size() / 2], sync.front(), queue_ms * 1000.0f / queued,
         host_us, e == cudaSuccess ? "ok" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
