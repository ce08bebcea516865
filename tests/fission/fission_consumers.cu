// fission_consumers.cu - loop fission with the statements after the loop
// that consume one copy's results (issue #25, item 4): for the CPU
// equivalence test. Rewritten with fission (forced, and by default), the
// program must print what the original prints (tests/scripts/equivalence.sh).
//
// Usage: fission_consumers [n] [len] [reps]
// With reps, `two_sums` is launched reps + 1 times and the median time of
// the last reps is printed (the benchmark of docs/benchmarks.md: build the
// original and warpwise's rewrite with nvcc, run both on a GPU).
// ci-args: 300 7
// ci-args: 1000 3
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Two recurrences of 16 accumulators each share a loop; each is summed up
// by a declaration after it. Fission alone keeps the first recurrence's 16
// values live through the second loop; moving `float ra = ...` and its
// store up between the copies ends them there.
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

// The consumers' variables declared together before them: the declaration
// moves up with the first consumer.
__global__ void shared_declaration(const float *__restrict__ a,
                                   const float *__restrict__ b,
                                   float *__restrict__ out, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float p = 0.f, q = 1.f;
  for (int i = 0; i < len; ++i) {
    p += a[i * n + t];
    q = q * 0.5f + b[i * n + t];
  }
  float rp = 0.f, rq = 0.f;
  rp = p * 2.f;
  rq = q * 3.f;
  out[t] = rp;
  out[n + t] = rq;
}

__device__ float bias = 0.25f;

// `bias` after the loop is a local that consumes the first copy's result;
// the second copy reads the global `bias`. Moved above the second copy, the
// local would hide the global there: it must stay where it is.
__global__ void hidden_name(const float *__restrict__ a,
                            const float *__restrict__ b,
                            float *__restrict__ out, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float s = 0.f, u = 0.f;
  for (int i = 0; i < len; ++i) {
    s += a[i * n + t];
    u += b[i * n + t] * bias;
  }
  float bias = s * 4.f;
  out[t] = bias + u;
}

static unsigned long long bits_of(const std::vector<float> &v) {
  unsigned long long h = 1469598103934665603ull;
  for (float f : v) {
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    h = (h ^ u) * 1099511628211ull;
  }
  return h;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 300;
  int len = argc > 2 ? std::atoi(argv[2]) : 7;
  std::vector<float> a(n * len), b(n * len);
  for (int i = 0; i < n * len; ++i) {
    a[i] = (float)((i * 37) % 101) / 101.f - 0.5f;
    b[i] = (float)((i * 53) % 97) / 97.f - 0.5f;
  }
  float *da, *db, *d1, *d2;
  cudaMalloc(&da, n * len * sizeof(float));
  cudaMalloc(&db, n * len * sizeof(float));
  cudaMalloc(&d1, 2 * n * sizeof(float));
  cudaMalloc(&d2, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * len * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * len * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + 255) / 256;
  std::vector<float> r1(2 * n), r2(n);
  bool ok = true;

  int reps = argc > 3 ? std::atoi(argv[3]) : 0;
  std::vector<float> ms;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int r = 0; r <= reps; ++r) {
    cudaEventRecord(start);
    two_sums<<<blocks, 256>>>(da, db, d1, d2, n, len);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0.f;
    cudaEventElapsedTime(&t, start, stop);
    if (r > 0) // The first launch warms up.
      ms.push_back(t);
  }
  if (reps > 0) {
    std::sort(ms.begin(), ms.end());
    printf("two_sums n %d len %d: median %.4f ms, min %.4f ms\n", n, len,
           ms[ms.size() / 2], ms[0]);
  }
  cudaMemcpy(r1.data(), d1, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(r2.data(), d2, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> sums(r1.begin(), r1.begin() + n);
  sums.insert(sums.end(), r2.begin(), r2.end());
  printf("checksum two_sums %016llx\n", bits_of(sums));

  shared_declaration<<<blocks, 256>>>(da, db, d1, n, len);
  cudaMemcpy(r1.data(), d1, 2 * n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("checksum shared_declaration %016llx\n", bits_of(r1));
  for (int t = 0; t < n; ++t) {
    float p = 0.f;
    for (int i = 0; i < len; ++i)
      p += a[i * n + t];
    ok &= r1[t] == p * 2.f;
  }

  hidden_name<<<blocks, 256>>>(da, db, d2, n, len);
  cudaMemcpy(r2.data(), d2, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("checksum hidden_name %016llx\n", bits_of(r2));
  for (int t = 0; t < n; ++t) {
    float s = 0.f, u = 0.f;
    for (int i = 0; i < len; ++i) {
      s += a[i * n + t];
      u += b[i * n + t] * 0.25f;
    }
    float want = s * 4.f + u;
    ok &= r2[t] == want;
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(d1);
  cudaFree(d2);
  printf("fission_consumers: %s (n = %d, len = %d)\n", ok ? "OK" : "MISMATCH",
         n, len);
  return ok ? 0 : 1;
}
