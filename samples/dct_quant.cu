// dct_quant.cu - quantisation of 8x8 DCT coefficient blocks with separate
// positive and negative paths (seed 004, section 6: "DCT quantization").
//
// Exercises: branch fusion / melding (issue #5). The sign of each coefficient
// picks one of two arms of the same shape (add or subtract half the step,
// divide by the step, scale back), so neighbouring lanes diverge on data.
//
// Usage: dct_quant [blocks] [--bench N]   (default 65536 blocks of 64)
// ci-args: 16
#include <cuda_runtime.h>

#include "sample_util.h"

__constant__ float quant_table[64];

__global__ void quantize(float *coeffs, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total)
    return;
  float q = quant_table[i % 64];
  float v = coeffs[i];
  if (v >= 0.0f) {
    float shifted = v + q * 0.5f;
    float steps = floorf(shifted / q);
    coeffs[i] = steps * q;
  } else {
    float shifted = v - q * 0.5f;
    float steps = ceilf(shifted / q);
    coeffs[i] = steps * q;
  }
}

static void reference(const float *table, float *c, int total) {
  for (int i = 0; i < total; ++i) {
    float q = table[i % 64], v = c[i];
    if (v >= 0.0f)
      c[i] = floorf((v + q * 0.5f) / q) * q;
    else
      c[i] = ceilf((v - q * 0.5f) / q) * q;
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int blocks = arg_int(args, 0, 65536);
  int total = blocks * 64;
  float table[64];
  for (int k = 0; k < 64; ++k)
    table[k] = 1.0f + (k % 8) + (k / 8) * 2.0f;
  std::vector<float> in(total), out(total), ref(total);
  for (int k = 0; k < total; ++k)
    in[k] = rand_float(-200.0f, 200.0f);
  cudaMemcpyToSymbol(quant_table, table, sizeof(table));
  float *d;
  cudaMalloc((void **)&d, total * sizeof(float));
  cudaMemcpy(d, in.data(), total * sizeof(float), cudaMemcpyHostToDevice);
  const int block = 256, grid = (total + block - 1) / block;
  quantize<<<grid, block>>>(d, total);
  check_cuda("dct_quant");
  cudaMemcpy(out.data(), d, total * sizeof(float), cudaMemcpyDeviceToHost);
  ref = in;
  reference(table, ref.data(), total);
  if (!compare_floats("dct_quant", out.data(), ref.data(), total))
    return 1;
  printf("dct_quant: OK (%d blocks of 64)\n", blocks);
  print_checksum("out", checksum_bytes(out.data(), total * sizeof(float)));
  // Quantising quantised data repeats the same work and keeps the values.
  bench(args.bench, [&]() { quantize<<<grid, block>>>(d, total); });
  cudaFree(d);
  return 0;
}
