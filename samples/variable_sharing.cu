// variable_sharing.cu - internal variable sharing (seed 001, "Variable
// Sharing").
//
// Exercises: divergence analysis (issue #3). `private_terms` computes four
// grid-uniform terms in every thread and keeps them in registers through a
// heavy loop; `shared_terms` lets one thread compute them into shared memory.
// warpwise's analysis shows the terms and the loop as uniform; this sample
// gives the benchmark both forms side by side (warpwise does not apply
// variable sharing itself).
//
// Usage: variable_sharing [columns] [rows] [--bench N]  (defaults 262144, 64)
// ci-args: 1024 16
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void private_terms(const float *in, float *out, int columns,
                              int rows, float p, float q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= columns)
    return;
  float a = p * q + 1.0f;
  float b = p - q * 0.5f;
  float c = (p + q) * 0.25f;
  float d = p * p - q;
  float acc = 0.0f;
  for (int r = 0; r < rows; ++r) {
    float v = in[r * columns + i];
    acc += ((a * v + b) * v + c) * v + d;
  }
  out[i] = acc;
}

__global__ void shared_terms(const float *in, float *out, int columns,
                             int rows, float p, float q) {
  __shared__ float terms[4];
  if (threadIdx.x == 0) {
    terms[0] = p * q + 1.0f;
    terms[1] = p - q * 0.5f;
    terms[2] = (p + q) * 0.25f;
    terms[3] = p * p - q;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= columns)
    return;
  float acc = 0.0f;
  for (int r = 0; r < rows; ++r) {
    float v = in[r * columns + i];
    acc += ((terms[0] * v + terms[1]) * v + terms[2]) * v + terms[3];
  }
  out[i] = acc;
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int columns = arg_int(args, 0, 262144), rows = arg_int(args, 1, 64);
  size_t n = (size_t)columns * rows;
  float p = 0.75f, q = -0.5f;
  std::vector<float> in(n), o1(columns), o2(columns), ref(columns);
  for (size_t k = 0; k < n; ++k)
    in[k] = rand_float(-1, 1);
  float *d_in, *d_o1, *d_o2;
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_o1, columns * sizeof(float));
  cudaMalloc((void **)&d_o2, columns * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int block = 256, grid = (columns + block - 1) / block;
  private_terms<<<grid, block>>>(d_in, d_o1, columns, rows, p, q);
  shared_terms<<<grid, block>>>(d_in, d_o2, columns, rows, p, q);
  check_cuda("variable_sharing");
  cudaMemcpy(o1.data(), d_o1, columns * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(o2.data(), d_o2, columns * sizeof(float), cudaMemcpyDeviceToHost);
  float a = p * q + 1.0f, b = p - q * 0.5f, c = (p + q) * 0.25f, d = p * p - q;
  for (int i = 0; i < columns; ++i) {
    float acc = 0.0f;
    for (int r = 0; r < rows; ++r) {
      float v = in[(size_t)r * columns + i];
      acc += ((a * v + b) * v + c) * v + d;
    }
    ref[i] = acc;
  }
  if (!compare_floats("variable_sharing private", o1.data(), ref.data(), columns, 1e-3f) ||
      !compare_floats("variable_sharing shared", o2.data(), ref.data(), columns, 1e-3f))
    return 1;
  printf("variable_sharing: OK (%d columns, %d rows)\n", columns, rows);
  unsigned long long h = checksum_bytes(o1.data(), columns * sizeof(float));
  print_checksum("out", checksum_bytes(o2.data(), columns * sizeof(float), h));
  if (args.bench) {
    printf("kernel private_terms\n");
    bench(args.bench, [&]() {
      private_terms<<<grid, block>>>(d_in, d_o1, columns, rows, p, q);
    });
    printf("kernel shared_terms\n");
    bench(args.bench, [&]() {
      shared_terms<<<grid, block>>>(d_in, d_o2, columns, rows, p, q);
    });
  }
  cudaFree(d_in);
  cudaFree(d_o1);
  cudaFree(d_o2);
  return 0;
}
