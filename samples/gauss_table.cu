// gauss_table.cu - a dithered Gaussian blur along rows, one sigma per row.
//
// Exercises: a block-uniform table in local memory. `gauss_blur_rows` lets
// every thread compute its row's 32 Gaussian weights (sigma depends only on
// blockIdx.y) into a private array before the bounds check, then reads the
// array with data-dependent indices: each element takes 16 taps at 16
// consecutive distances that start at its own offset (0-15, a dither against
// banding), alternating sides. The run-time indices keep the table in local
// memory (ptxas reports a 128-byte stack frame): every thread of a block
// computes, stores and reloads the same 32 values. (Masked indices,
// `(start + t) & 31`, would let ptxas 13.0 keep the table in registers and
// read it through chains of compares and selects instead.)
//
// Usage: gauss_table [n] [rows] [--bench N]   (defaults 1048576, 16)
// ci-args: 1000 3
// ci-args: 20 2
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void gauss_blur_rows(const float *in, const int *offsets, float *out,
                                int n, float sigma0, float growth) {
  float sigma = sigma0 + growth * blockIdx.y;
  float inv = 1.0f / (2.0f * sigma * sigma);
  float weights[32];
  for (int k = 0; k < 32; ++k)
    weights[k] = expf(-(float)(k * k) * inv);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float *row = in + blockIdx.y * n;
  int start = offsets[i];
  float acc = 0.0f, total = 0.0f;
  for (int t = 0; t < 16; ++t) {
    int d = start + t;
    int j = (t & 1) ? i + d : i - d;
    j = j < 0 ? 0 : (j >= n ? n - 1 : j);
    float w = weights[d];
    acc += w * row[j];
    total += w;
  }
  out[blockIdx.y * n + i] = acc / total;
}

static void reference(const float *in, const int *offsets, float *out, int n,
                      int rows, float sigma0, float growth) {
  for (int y = 0; y < rows; ++y) {
    float sigma = sigma0 + growth * (float)y;
    float inv = 1.0f / (2.0f * sigma * sigma);
    float weights[32];
    for (int k = 0; k < 32; ++k)
      weights[k] = expf(-(float)(k * k) * inv);
    const float *row = in + (size_t)y * n;
    for (int i = 0; i < n; ++i) {
      float acc = 0.0f, total = 0.0f;
      for (int t = 0; t < 16; ++t) {
        int d = offsets[i] + t;
        int j = (t & 1) ? i + d : i - d;
        j = j < 0 ? 0 : (j >= n ? n - 1 : j);
        acc += weights[d] * row[j];
        total += weights[d];
      }
      out[(size_t)y * n + i] = acc / total;
    }
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int n = arg_int(args, 0, 1 << 20), rows = arg_int(args, 1, 16);
  size_t total = (size_t)n * rows;
  float sigma0 = 3.0f, growth = 0.5f;
  std::vector<float> in(total), out(total), ref(total);
  std::vector<int> offsets(n);
  for (size_t k = 0; k < total; ++k)
    in[k] = rand_float(-1, 1);
  for (int k = 0; k < n; ++k)
    offsets[k] = next_rand() % 16;
  float *d_in, *d_out;
  int *d_offsets;
  cudaMalloc((void **)&d_in, total * sizeof(float));
  cudaMalloc((void **)&d_out, total * sizeof(float));
  cudaMalloc((void **)&d_offsets, n * sizeof(int));
  cudaMemcpy(d_in, in.data(), total * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_offsets, offsets.data(), n * sizeof(int),
             cudaMemcpyHostToDevice);
  const int block = 256;
  dim3 grid((n + block - 1) / block, rows);
  gauss_blur_rows<<<grid, block>>>(d_in, d_offsets, d_out, n, sigma0, growth);
  check_cuda("gauss_table");
  cudaMemcpy(out.data(), d_out, total * sizeof(float), cudaMemcpyDeviceToHost);
  reference(in.data(), offsets.data(), ref.data(), n, rows, sigma0, growth);
  if (!compare_floats("gauss_table", out.data(), ref.data(), total, 1e-3f))
    return 1;
  printf("gauss_table: OK (%d elements, %d rows)\n", n, rows);
  print_checksum("out", checksum_bytes(out.data(), total * sizeof(float)));
  if (args.bench) {
    printf("kernel gauss_blur_rows\n");
    bench(args.bench, [&]() {
      gauss_blur_rows<<<grid, block>>>(d_in, d_offsets, d_out, n, sigma0,
                                       growth);
    });
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_offsets);
  return 0;
}
