// decision_mask.cu - the CF'09 decision-mask benchmark (seed 000, section 3).
//
// Exercises: branch splitting (issue #4). Each element takes the if-side
// (light: a few registers) or the else-side (heavy: a stencil over WIDTH
// values held in registers) according to a decision mask, so the whole kernel
// runs at the heavy side's occupancy even where no thread takes it.
//
// Usage: decision_mask [log2_elements] [else_percent] [layout] [--bench N]
//   log2_elements  2^N elements (default 22: 4M, as in the paper)
//   else_percent   share of elements that take the else (heavy) side, 0..100
//   layout         1 = linear (the first else_percent of the mask is 1, two
//                  sections), 0 = random (each element independently)
// ci-args: 12 30 0
// ci-args: 12 30 1
// ci-args: 12 0 0
// ci-args: 12 100 0
#include <cuda_runtime.h>

#include "sample_util.h"

#define WIDTH 32
#define ROUNDS 4

__global__ void decide_and_compute(const int *mask, const float *in,
                                   float *out, int n) {
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

static void reference(const int *mask, const float *in, float *out, int n) {
  for (int i = 0; i < n; ++i) {
    float x = in[i];
    if (mask[i] == 0) {
      out[i] = x * 0.5f + 1.0f;
      continue;
    }
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

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int log2n = arg_int(args, 0, 22);
  int else_percent = arg_int(args, 1, 10);
  int linear = arg_int(args, 2, 0);
  int n = 1 << log2n;
  std::vector<int> mask(n);
  std::vector<float> in(n), out(n), ref(n);
  for (int i = 0; i < n; ++i) {
    in[i] = rand_float(-1.0f, 1.0f);
    if (linear)
      mask[i] = (long long)i * 100 < (long long)n * else_percent;
    else
      mask[i] = (int)(next_rand() % 100) < else_percent;
  }
  int *d_mask;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_mask, n * sizeof(int));
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMemcpy(d_mask, mask.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xff, n * sizeof(float)); // poison: NaNs

  int block = 256;
  int grid = (n + block - 1) / block;
  decide_and_compute<<<grid, block>>>(d_mask, d_in, d_out, n);
  check_cuda("decision_mask");
  cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  reference(mask.data(), in.data(), ref.data(), n);
  if (!compare_floats("decision_mask", out.data(), ref.data(), n))
    return 1;
  printf("decision_mask: OK (%d elements, %d%% else, %s mask)\n", n,
         else_percent, linear ? "linear" : "random");
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(float)));
  bench(args.bench, [&]() {
    decide_and_compute<<<grid, block>>>(d_mask, d_in, d_out, n);
  });
  cudaFree(d_mask);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
