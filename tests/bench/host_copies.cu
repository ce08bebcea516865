// host_copies.cu - what page-locking the host side of a copy gains, by size:
// copy in (and in + out) of fresh, touched malloc'ed memory, pageable against
// cudaHostRegister + the copies + cudaHostUnregister. Median of 7 rounds.
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
int main() {
  for (size_t mb : {1, 2, 4, 8, 16, 64, 256}) {
    size_t bytes = mb << 20;
    float *d;
    cudaMalloc(&d, bytes);
    std::vector<double> pin, page, pin2, page2;
    for (int r = 0; r < 7; ++r) {
      for (int both = 0; both < 2; ++both) {
        float *h = (float *)malloc(bytes), *g = (float *)malloc(bytes);
        memset(h, 1, bytes);
        memset(g, 1, bytes);
        cudaDeviceSynchronize();
        double t0 = now();
        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
        if (both)
          cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
        double t1 = now();
        bool ok =
            cudaHostRegister(g, bytes, cudaHostRegisterDefault) == cudaSuccess;
        cudaMemcpy(d, g, bytes, cudaMemcpyHostToDevice);
        if (both)
          cudaMemcpy(g, d, bytes, cudaMemcpyDeviceToHost);
        if (ok)
          cudaHostUnregister(g);
        double t2 = now();
        (both ? page2 : page).push_back(t1 - t0);
        (both ? pin2 : pin).push_back(t2 - t1);
        free(h);
        free(g);
      }
    }
    printf("%4zu MiB  in: pageable %7.3f ms pinned %7.3f ms (%.2fx) | in+out: "
           "pageable %7.3f pinned %7.3f (%.2fx)\n",
           mb, med(page), med(pin), med(pin) / med(page), med(page2), med(pin2),
           med(pin2) / med(page2));
    cudaFree(d);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
