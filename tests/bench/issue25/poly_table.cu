// poly_table.cu - issue 25's first loss, rebuilt: a kernel in which every
// thread computes the same block-uniform table of 40 polynomial
// coefficients (one sinf per term, from the kernel's parameters and
// blockIdx) before evaluating the polynomial on its own element.
//
// Issue 25 reported that warpwise's internal variable sharing moved such a
// table to shared memory (filled once per block, published by a barrier),
// which lowered the registers, and the kernel ran 0.89x. This program is that
// shape written plainly, as a benchmark: the original and warpwise's rewrites
// of it are built and timed by tests/bench/issue25_losses.sh.
//
// Block b's polynomial is
//   p_b(x) = sum_{k<40} amp * sinf(freq * (k + 1) + phase * b) / (k + 1) x^k
// and out[i] = p_b(in[i]) by Horner's rule, for i in block b.
//
// Usage: poly_table [n] [--bench N]   (default n = 2^25 elements)
// Prints `check ok` or `check FAIL ...` (the CPU's sinf and the GPU's differ
// in the last bits, so the check has a tolerance), `checksum out <hex>` (a
// hash of the output's bytes: compare versions with it), and with --bench N
// `time_ms <median> <min> <max> (N runs)` of N launches timed one by one
// with CUDA events after 10 untimed ones, and `checksum bench <hex>` of the
// output after them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define TERMS 40

__global__ void poly_eval(const float *in, float *out, int n, float amp,
                          float freq, float phase) {
  float coef[TERMS];
  for (int k = 0; k < TERMS; ++k)
    coef[k] = amp * sinf(freq * (float)(k + 1) + phase * (float)blockIdx.x) /
              (float)(k + 1);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  float acc = coef[TERMS - 1];
  for (int k = TERMS - 2; k >= 0; --k)
    acc = acc * x + coef[k];
  out[i] = acc;
}

// ---------------------------------------------------------------- host side

static void cuda_ok(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    printf("poly_table: CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    exit(2);
  }
}

// xorshift32 from a fixed seed: every run gets the same input.
static unsigned rng_state = 0x9e3779b9u;
static unsigned rng_next() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

// FNV-1a over the bytes.
static unsigned long long hash_bytes(const void *p, size_t n) {
  const unsigned char *c = (const unsigned char *)p;
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

// The same polynomials on the CPU: one table per block, then Horner.
static void reference(const std::vector<float> &in, std::vector<float> &out,
                      int n, int block, float amp, float freq, float phase) {
  int blocks = (n + block - 1) / block;
  for (int b = 0; b < blocks; ++b) {
    double coef[TERMS];
    for (int k = 0; k < TERMS; ++k)
      coef[k] = amp * sin((double)(freq * (float)(k + 1) + phase * (float)b)) /
                (k + 1);
    for (int i = b * block; i < n && i < (b + 1) * block; ++i) {
      double acc = coef[TERMS - 1];
      for (int k = TERMS - 2; k >= 0; --k)
        acc = acc * in[i] + coef[k];
      out[i] = (float)acc;
    }
  }
}

int main(int argc, char **argv) {
  int n = 1 << 25, reps = 0;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--bench") == 0 && a + 1 < argc)
      reps = atoi(argv[++a]);
    else
      n = atoi(argv[a]);
  }
  if (n < 1) {
    printf("usage: poly_table [n >= 1] [--bench N]\n");
    return 2;
  }
  const float amp = 0.8f, freq = 0.37f, phase = 0.0021f;
  std::vector<float> in(n), out(n), ref(n);
  for (int i = 0; i < n; ++i)
    in[i] = (float)(rng_next() % 2000001u) / 1000000.0f - 1.0f; // [-1, 1]

  float *d_in, *d_out;
  cuda_ok(cudaMalloc((void **)&d_in, n * sizeof(float)), "cudaMalloc");
  cuda_ok(cudaMalloc((void **)&d_out, n * sizeof(float)), "cudaMalloc");
  cuda_ok(cudaMemcpy(d_in, in.data(), n * sizeof(float),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy");
  const int block = 256;
  const int grid = (n + block - 1) / block;

  poly_eval<<<grid, block>>>(d_in, d_out, n, amp, freq, phase);
  cuda_ok(cudaGetLastError(), "launch");
  cuda_ok(cudaDeviceSynchronize(), "poly_eval");
  cuda_ok(cudaMemcpy(out.data(), d_out, n * sizeof(float),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy");

  reference(in, ref, n, block, amp, freq, phase);
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (!(fabsf(out[i] - ref[i]) <= 1e-4f * fmaxf(1.0f, fabsf(ref[i]))))
      bad = i;
  if (bad >= 0)
    printf("check FAIL at %d: got %.9g, expected %.9g\n", bad, out[bad],
           ref[bad]);
  else
    printf("check ok (%d elements, %d blocks of %d)\n", n, grid, block);
  printf("checksum out %016llx\n", hash_bytes(out.data(), n * sizeof(float)));

  if (reps > 0) {
    for (int r = 0; r < 10; ++r) // untimed: clocks, caches, a dispatch's probes
      poly_eval<<<grid, block>>>(d_in, d_out, n, amp, freq, phase);
    cuda_ok(cudaDeviceSynchronize(), "warm-up");
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; ++r) {
      cudaEventRecord(t0, 0);
      poly_eval<<<grid, block>>>(d_in, d_out, n, amp, freq, phase);
      cudaEventRecord(t1, 0);
      cuda_ok(cudaEventSynchronize(t1), "timed launch");
      cudaEventElapsedTime(&ms[r], t0, t1);
    }
    cuda_ok(cudaGetLastError(), "timed launches");
    std::sort(ms.begin(), ms.end());
    printf("time_ms %.4f %.4f %.4f (%d runs)\n", ms[reps / 2], ms[0],
           ms[reps - 1], reps);
    cuda_ok(cudaMemcpy(out.data(), d_out, n * sizeof(float),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy");
    printf("checksum bench %016llx\n",
           hash_bytes(out.data(), n * sizeof(float)));
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  return bad >= 0 ? 1 : 0;
}
