// fission_nest.cu - loop fission of a loop nest (issue #25, item 4): two
// recurrences of 24 accumulators each, held in two arrays, are updated by an
// inner loop over the arrays inside the loop over the input. Splitting the
// inner loop alone keeps both arrays live through the outer loop (no
// register is saved); only the whole nest split, the outer loop into two
// copies each with its own inner loop, ends the first array's live range
// before the second copy starts. For the CPU equivalence test: rewritten
// with fission (forced, and by default), the program must print what the
// original prints (tests/scripts/equivalence.sh).
//
// Usage: fission_nest [n] [len] [reps]
// With reps, `two_tables` is launched reps + 1 times and the median time of
// the last reps is printed (build the original and warpwise's rewrite with
// nvcc, run both on a GPU).
// ci-args: 300 7
// ci-args: 1000 3
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define TERMS 24

// Each array's recurrence is summed up after the nest; the sums of `sa`
// move up between the two copies, so that `sa` dies there.
__global__ void two_tables(const float *__restrict__ a,
                           const float *__restrict__ b,
                           float *__restrict__ out_a,
                           float *__restrict__ out_b, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t];
    for (int k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + (float)(k + 1) / 16.f;
      sb[k] = sb[k] * y + (float)(k + 2) / 16.f;
    }
  }
  float ra = 0.f;
  for (int k = 0; k < TERMS; ++k)
    ra += sa[k] * sa[(k + 1) % TERMS];
  out_a[t] = ra;
  float rb = 0.f;
  for (int k = 0; k < TERMS; ++k)
    rb += sb[k] * sb[(k + 1) % TERMS];
  out_b[t] = rb;
}

// The second recurrence's input reads the first one's array, which the
// inner loop updates (`y` uses `sa[TERMS - 1]`): the inner loop alone may
// split, but the outer copies may not, since the second would read `sa`
// after the first had finished every iteration.
__global__ void tied_tables(const float *__restrict__ a,
                            const float *__restrict__ b,
                            float *__restrict__ out, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t] + sa[TERMS - 1] * 0.5f;
    for (int k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + (float)(k + 1) / 16.f;
      sb[k] = sb[k] * y + (float)(k + 2) / 16.f;
    }
  }
  float r = 0.f;
  for (int k = 0; k < TERMS; ++k)
    r += sa[k] * sb[k];
  out[t] = r;
}

// Each step's first terms are stored after the inner loop: each store goes
// with its array's copy of the outer loop.
__global__ void stepped_tables(const float *__restrict__ a,
                               const float *__restrict__ b,
                               float *__restrict__ steps_a,
                               float *__restrict__ steps_b, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t];
    for (int k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + (float)(k + 1) / 16.f;
      sb[k] = sb[k] * y + (float)(k + 2) / 16.f;
    }
    float ea = 0.f;
    for (int k = 0; k < TERMS; ++k)
      ea += sa[k] * (float)(k & 3);
    steps_a[i * n + t] = ea;
    float eb = 0.f;
    for (int k = 0; k < TERMS; ++k)
      eb += sb[k] * (float)(k & 3);
    steps_b[i * n + t] = eb;
  }
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

// The host's reference of one thread's two recurrences, in the kernel's
// order of operations (nvcc may contract them into fused multiply-adds: the
// checks allow for that).
static void reference(const std::vector<float> &a, const std::vector<float> &b,
                      int n, int len, int t, bool tied, float sa[TERMS],
                      float sb[TERMS]) {
  for (int k = 0; k < TERMS; ++k)
    sa[k] = sb[k] = 0.f;
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t] + (tied ? sa[TERMS - 1] * 0.5f : 0.f);
    for (int k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + (float)(k + 1) / 16.f;
      sb[k] = sb[k] * y + (float)(k + 2) / 16.f;
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 300;
  int len = argc > 2 ? std::atoi(argv[2]) : 7;
  int reps = argc > 3 ? std::atoi(argv[3]) : 0;
  std::vector<float> a(n * len), b(n * len);
  for (int i = 0; i < n * len; ++i) {
    a[i] = (float)((i * 37) % 101) / 101.f - 0.5f;
    b[i] = (float)((i * 53) % 97) / 97.f - 0.5f;
  }
  float *da, *db, *d1, *d2;
  cudaMalloc(&da, n * len * sizeof(float));
  cudaMalloc(&db, n * len * sizeof(float));
  cudaMalloc(&d1, n * sizeof(float));
  cudaMalloc(&d2, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * len * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * len * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = (n + 255) / 256;
  std::vector<float> r1(n), r2(n);
  bool ok = true;

  std::vector<float> ms;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int r = 0; r <= reps; ++r) {
    cudaEventRecord(start);
    two_tables<<<blocks, 256>>>(da, db, d1, d2, n, len);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms_one = 0.f;
    cudaEventElapsedTime(&ms_one, start, stop);
    if (r > 0) // The first launch warms up.
      ms.push_back(ms_one);
  }
  if (reps > 0) {
    std::sort(ms.begin(), ms.end());
    printf("two_tables n %d len %d: median %.4f ms, min %.4f ms\n", n, len,
           ms[ms.size() / 2], ms[0]);
  }
  cudaMemcpy(r1.data(), d1, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(r2.data(), d2, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> sums(r1);
  sums.insert(sums.end(), r2.begin(), r2.end());
  printf("checksum two_tables %016llx\n", bits_of(sums));
  // Checked to a tolerance: nvcc may contract the recurrences and the sums
  // (the checksums compare the original with the rewrite bit for bit).
  for (int t = 0; t < n; t += 7) {
    float sa[TERMS], sb[TERMS], ra = 0.f, rb = 0.f;
    reference(a, b, n, len, t, false, sa, sb);
    for (int k = 0; k < TERMS; ++k) {
      ra += sa[k] * sa[(k + 1) % TERMS];
      rb += sb[k] * sb[(k + 1) % TERMS];
    }
    ok &= std::abs(r1[t] - ra) <= 1e-4f * (1.f + std::abs(ra)) &&
          std::abs(r2[t] - rb) <= 1e-4f * (1.f + std::abs(rb));
  }

  tied_tables<<<blocks, 256>>>(da, db, d1, n, len);
  cudaMemcpy(r1.data(), d1, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("checksum tied_tables %016llx\n", bits_of(r1));
  for (int t = 0; t < n; t += 7) {
    float sa[TERMS], sb[TERMS], r = 0.f;
    reference(a, b, n, len, t, true, sa, sb);
    for (int k = 0; k < TERMS; ++k)
      r += sa[k] * sb[k];
    ok &= std::abs(r1[t] - r) <= 1e-4f * (1.f + std::abs(r));
  }
  float *ds1, *ds2;
  cudaMalloc(&ds1, n * len * sizeof(float));
  cudaMalloc(&ds2, n * len * sizeof(float));
  stepped_tables<<<blocks, 256>>>(da, db, ds1, ds2, n, len);
  std::vector<float> s1(n * len), s2(n * len);
  cudaMemcpy(s1.data(), ds1, n * len * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(s2.data(), ds2, n * len * sizeof(float), cudaMemcpyDeviceToHost);
  s1.insert(s1.end(), s2.begin(), s2.end());
  printf("checksum stepped_tables %016llx\n", bits_of(s1));
  for (int t = 0; t < n; t += 7) {
    float sa[TERMS], sb[TERMS];
    reference(a, b, n, len, t, false, sa, sb);
    float ea = 0.f, eb = 0.f;
    for (int k = 0; k < TERMS; ++k) {
      ea += sa[k] * (float)(k & 3);
      eb += sb[k] * (float)(k & 3);
    }
    int i = len - 1;
    ok &= std::abs(s1[i * n + t] - ea) <= 1e-4f * (1.f + std::abs(ea)) &&
          std::abs(s2[i * n + t] - eb) <= 1e-4f * (1.f + std::abs(eb));
  }
  cudaFree(ds1);
  cudaFree(ds2);
  cudaFree(da);
  cudaFree(db);
  cudaFree(d1);
  cudaFree(d2);
  printf("fission_nest: %s (n = %d, len = %d)\n", ok ? "OK" : "MISMATCH", n,
         len);
  return ok ? 0 : 1;
}
