// fission_bench.cu - loop fission of two recurrences sharing a loop (issue
// #25, item 4), timed: the kernel of tests/fission/fission_consumers.cu.
// Build this file and warpwise's rewrite of it with nvcc, run both on a GPU:
// they must print the same checksum; each prints the median kernel time.
//
// Usage: fission_bench [n] [len] [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void two_sums(const float *__restrict__ a,
                         const float *__restrict__ b, float *__restrict__ out_a,
                         float *__restrict__ out_b, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa0 = 0.f, sa1 = 0.f, sa2 = 0.f, sa3 = 0.f, sa4 = 0.f, sa5 = 0.f, sa6 = 0.f, sa7 = 0.f, sa8 = 0.f, sa9 = 0.f, sa10 = 0.f, sa11 = 0.f, sa12 = 0.f, sa13 = 0.f, sa14 = 0.f, sa15 = 0.f;
  float sb0 = 0.f, sb1 = 0.f, sb2 = 0.f, sb3 = 0.f, sb4 = 0.f, sb5 = 0.f, sb6 = 0.f, sb7 = 0.f, sb8 = 0.f, sb9 = 0.f, sb10 = 0.f, sb11 = 0.f, sb12 = 0.f, sb13 = 0.f, sb14 = 0.f, sb15 = 0.f;
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    sa0 = sa0 * x + 1.f / 16.f;
    sa1 = sa1 * x + 2.f / 16.f;
    sa2 = sa2 * x + 3.f / 16.f;
    sa3 = sa3 * x + 4.f / 16.f;
    sa4 = sa4 * x + 5.f / 16.f;
    sa5 = sa5 * x + 6.f / 16.f;
    sa6 = sa6 * x + 7.f / 16.f;
    sa7 = sa7 * x + 8.f / 16.f;
    sa8 = sa8 * x + 9.f / 16.f;
    sa9 = sa9 * x + 10.f / 16.f;
    sa10 = sa10 * x + 11.f / 16.f;
    sa11 = sa11 * x + 12.f / 16.f;
    sa12 = sa12 * x + 13.f / 16.f;
    sa13 = sa13 * x + 14.f / 16.f;
    sa14 = sa14 * x + 15.f / 16.f;
    sa15 = sa15 * x + 16.f / 16.f;
    float y = b[i * n + t];
    sb0 = sb0 * y + 2.f / 16.f;
    sb1 = sb1 * y + 3.f / 16.f;
    sb2 = sb2 * y + 4.f / 16.f;
    sb3 = sb3 * y + 5.f / 16.f;
    sb4 = sb4 * y + 6.f / 16.f;
    sb5 = sb5 * y + 7.f / 16.f;
    sb6 = sb6 * y + 8.f / 16.f;
    sb7 = sb7 * y + 9.f / 16.f;
    sb8 = sb8 * y + 10.f / 16.f;
    sb9 = sb9 * y + 11.f / 16.f;
    sb10 = sb10 * y + 12.f / 16.f;
    sb11 = sb11 * y + 13.f / 16.f;
    sb12 = sb12 * y + 14.f / 16.f;
    sb13 = sb13 * y + 15.f / 16.f;
    sb14 = sb14 * y + 16.f / 16.f;
    sb15 = sb15 * y + 17.f / 16.f;
  }
  float ra = sa0 * sa1 +
             sa1 * sa2 +
             sa2 * sa3 +
             sa3 * sa4 +
             sa4 * sa5 +
             sa5 * sa6 +
             sa6 * sa7 +
             sa7 * sa8 +
             sa8 * sa9 +
             sa9 * sa10 +
             sa10 * sa11 +
             sa11 * sa12 +
             sa12 * sa13 +
             sa13 * sa14 +
             sa14 * sa15 +
             sa15 * sa0;
  float rb = sb0 * sb1 +
             sb1 * sb2 +
             sb2 * sb3 +
             sb3 * sb4 +
             sb4 * sb5 +
             sb5 * sb6 +
             sb6 * sb7 +
             sb7 * sb8 +
             sb8 * sb9 +
             sb9 * sb10 +
             sb10 * sb11 +
             sb11 * sb12 +
             sb12 * sb13 +
             sb13 * sb14 +
             sb14 * sb15 +
             sb15 * sb0;
  out_a[t] = ra;
  out_b[t] = rb;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  int len = argc > 2 ? std::atoi(argv[2]) : 64;
  int reps = argc > 3 ? std::atoi(argv[3]) : 21;
  std::vector<float> a((size_t)n * len), b((size_t)n * len);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = (float)((i * 37) % 101) / 101.f - 0.5f;
    b[i] = (float)((i * 53) % 97) / 97.f - 0.5f;
  }
  float *da, *db, *d1, *d2;
  cudaMalloc(&da, a.size() * sizeof(float));
  cudaMalloc(&db, b.size() * sizeof(float));
  cudaMalloc(&d1, n * sizeof(float));
  cudaMalloc(&d2, n * sizeof(float));
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int r = 0; r < reps + 1; ++r) {
    cudaEventRecord(start);
    two_sums<<<(n + 255) / 256, 256>>>(da, db, d1, d2, n, len);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0.f;
    cudaEventElapsedTime(&t, start, stop);
    if (r > 0) // the first launch warms up
      ms.push_back(t);
  }
  std::vector<float> out(2 * (size_t)n);
  cudaMemcpy(out.data(), d1, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(out.data() + n, d2, n * sizeof(float), cudaMemcpyDeviceToHost);
  unsigned long long h = 1469598103934665603ull;
  for (float f : out) {
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    h = (h ^ u) * 1099511628211ull;
  }
  std::sort(ms.begin(), ms.end());
  printf("n %d len %d median %.4f ms min %.4f ms checksum %016llx %s\n", n,
         len, ms[ms.size() / 2], ms[0], h,
         cudaGetLastError() == cudaSuccess ? "ok" : "CUDA-ERROR");
  return 0;
}
