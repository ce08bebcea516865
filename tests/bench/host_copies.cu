// host_copies.cu - what page-locking the host side of a copy gains, by size:
// copy in, out, and in + out, of fresh, touched malloc'ed memory, pageable
// against cudaHostRegister + the copies + cudaHostUnregister, the two in
// alternating order. Median of 7 rounds.
// Build: nvcc -O2 -arch=sm_90 tests/bench/host_copies.cu -o host_copies
// The numbers behind rules/offload.json's pin_min_copied_bytes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double now() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
/// One copy of \p bytes between \p h and \p d: in (0), out (1), in and out
/// (2); page-locked around it where \p pin. Milliseconds.
static double copy(float *h, float *d, size_t bytes, int mode, bool pin) {
  cudaDeviceSynchronize();
  double t0 = now();
  bool locked =
      pin && cudaHostRegister(h, bytes, cudaHostRegisterDefault) == cudaSuccess;
  if (mode != 1)
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
  if (mode != 0)
    cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  if (locked)
    cudaHostUnregister(h);
  return now() - t0;
}

int main() {
  const char *Mode[] = {"in", "out", "in+out"};
  for (size_t mb : {1, 4, 8, 16, 64, 256}) {
    size_t bytes = mb << 20;
    float *d;
    cudaMalloc(&d, bytes);
    printf("%4zu MiB", mb);
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<double> pin, page;
      for (int r = 0; r < 7; ++r)
        for (int k = 0; k < 2; ++k) {
          bool p = (r + k) % 2;
          float *h = (float *)malloc(bytes);
          memset(h, 1, bytes);
          (p ? pin : page).push_back(copy(h, d, bytes, mode, p));
          free(h);
        }
      printf(" | %s: pageable %7.3f pinned %7.3f ms (%.2fx)", Mode[mode],
             med(page), med(pin), med(pin) / med(page));
    }
    printf("\n");
    cudaFree(d);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
