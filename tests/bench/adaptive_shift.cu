// adaptive_shift.cu - one launch site whose heavy share changes between
// launches (issue 25, item 3).
//
// A decision-mask kernel with a register-heavy else side (WIDTH floats held
// in registers), launched LAUNCHES times per point from one site while the
// share of heavy elements walks 0% -> 100% -> 0%, first with random heavy
// elements, then with coherent (sorted) ones. For each point it prints the
// mean time per launch over all launches of the point and over the second
// half (after the split's dispatch has had time to adapt), and a checksum
// of the point's output, which every build (original, rewritten, pinned)
// must print identically.
//
// Usage: adaptive_shift [log2_elements] [launches_per_point]
#include <cuda_runtime.h>

#include "../../samples/sample_util.h"

#ifndef WIDTH
#define WIDTH 96
#endif
#define ROUNDS 4

__global__ void shifting_mask(const int *mask, const float *in, float *out,
                              int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x * 0.5f + 1.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    for (int r = 0; r < ROUNDS; ++r)
      for (int k = 0; k < WIDTH; ++k)
        v[k] = v[k] * 0.75f + v[(k + 1) % WIDTH] * 0.25f + x;
    float s = 0.0f;
    for (int k = 0; k < WIDTH; ++k)
      s += v[k] * (float)(k + 1);
    out[i] = s;
  }
}

// The point's mask: each element heavy with probability share/100 (random),
// or the first share percent of the elements (coherent).
__global__ void make_mask(int *mask, int n, int share, int coherent,
                          unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (coherent) {
    mask[i] = (long long)i * 100 < (long long)n * share;
    return;
  }
  unsigned h = (unsigned)i * 2654435761u ^ seed;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  mask[i] = (int)(h % 100u) < share;
}

// The one launch site of the kernel being measured.
static void step(const int *mask, const float *in, float *out, int n,
                 cudaStream_t stream) {
  int block = 256;
  int grid = (n + block - 1) / block;
  shifting_mask<<<grid, block, 0, stream>>>(mask, in, out, n);
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int log2n = arg_int(args, 0, 21);
  int launches = arg_int(args, 1, 24);
  int n = 1 << log2n;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = rand_float(-1.0f, 1.0f);
  int *d_mask;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_mask, n * sizeof(int));
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t marks[2];
  cudaEventCreate(&marks[0]);
  cudaEventCreate(&marks[1]);
  const int shares[] = {0, 1, 2, 5, 10, 25, 50, 75, 100,
                        75, 50, 25, 10, 5, 2, 1, 0};
  const int points = sizeof(shares) / sizeof(shares[0]);
  int failures = 0;
  for (int coherent = 0; coherent <= 1; ++coherent) {
    for (int p = 0; p < points; ++p) {
      make_mask<<<(n + 255) / 256, 256, 0, stream>>>(d_mask, n, shares[p],
                                                      coherent, 12345u + p);
      cudaMemsetAsync(d_out, 0xff, n * sizeof(float), stream);
      int half = launches / 2;
      float first = 0, second = 0;
      cudaEventRecord(marks[0], stream);
      for (int l = 0; l < half; ++l)
        step(d_mask, d_in, d_out, n, stream);
      cudaEventRecord(marks[1], stream);
      cudaEventSynchronize(marks[1]);
      cudaEventElapsedTime(&first, marks[0], marks[1]);
      cudaEventRecord(marks[0], stream);
      for (int l = half; l < launches; ++l)
        step(d_mask, d_in, d_out, n, stream);
      cudaEventRecord(marks[1], stream);
      cudaEventSynchronize(marks[1]);
      cudaEventElapsedTime(&second, marks[0], marks[1]);
      if (cudaGetLastError() != cudaSuccess)
        ++failures;
      cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
      printf("point %2d %s %3d%%: all %.4f ms second-half %.4f ms checksum "
             "%016llx\n",
             p, coherent ? "coherent" : "random  ", shares[p],
             (first + second) / launches,
             second / (launches - half > 0 ? launches - half : 1),
             checksum_bytes(out.data(), n * sizeof(float)));
    }
  }
  cudaFree(d_mask);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}
