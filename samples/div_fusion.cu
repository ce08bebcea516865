// div_fusion.cu - branch fusion (seed 001, "Branch Fusion", div1/div2/div3).
//
// Exercises: branch fusion (issue #5). Both kernels walk a column with a loop
// whose body is an if/else of two straight-line sides with the same shape
// (three rounds of multiply, multiply, multiply, divide, multiply-add) on
// different constants,
// enough arithmetic per load for the kernels to be bound by instruction issue:
//   odd_even_lanes  branches on tid % 2: divergent inside every warp, so a
//                   fused body issues the shared work once instead of twice;
//   odd_even_warps  branches on (tid / 32) % 2: uniform within each warp, so
//                   fusing only adds selects (warpwise must leave it alone).
//
// Usage: div_fusion [width] [rows] [--bench N]   (defaults 1048576, 64)
// ci-args: 2048 8
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void odd_even_lanes(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}

__global__ void odd_even_warps(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    if ((tid / 32) % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}

static void reference(const float *in, float *out, int width, int rows,
                      bool by_warp) {
  for (int tid = 0; tid < width; ++tid) {
    float scale = tid * 0.001f + 1.0f;
    float acc = 0.0f;
    bool odd = by_warp ? (tid / 32) % 2 : tid % 2;
    for (int k = tid; k < width * rows; k += width) {
      float x = in[k];
      for (int r = 0; r < 3; ++r) {
        if (odd)
          x = x * x * x * 1.5f / scale - x * 0.25f + 0.125f;
        else
          x = x * x * 2.5f * x / (scale + 1.0f) + x * 0.75f - 0.125f;
      }
      acc += odd ? x * 0.5f : x * 0.25f;
    }
    out[tid] = acc;
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int width = arg_int(args, 0, 1 << 20);
  int rows = arg_int(args, 1, 64);
  size_t n = (size_t)width * rows;
  std::vector<float> in(n), lanes(width), warps(width), ref(width);
  for (size_t k = 0; k < n; ++k)
    in[k] = rand_float(-1, 1);
  float *d_in, *d_lanes, *d_warps;
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_lanes, width * sizeof(float));
  cudaMalloc((void **)&d_warps, width * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_lanes, 0xff, width * sizeof(float));
  cudaMemset(d_warps, 0xff, width * sizeof(float));
  const int block = 256, grid = (width + block - 1) / block;
  odd_even_lanes<<<grid, block>>>(d_in, d_lanes, width, rows);
  odd_even_warps<<<grid, block>>>(d_in, d_warps, width, rows);
  check_cuda("div_fusion");
  cudaMemcpy(lanes.data(), d_lanes, width * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(warps.data(), d_warps, width * sizeof(float), cudaMemcpyDeviceToHost);
  reference(in.data(), ref.data(), width, rows, false);
  if (!compare_floats("div_fusion lanes", lanes.data(), ref.data(), width, 1e-3f))
    return 1;
  reference(in.data(), ref.data(), width, rows, true);
  if (!compare_floats("div_fusion warps", warps.data(), ref.data(), width, 1e-3f))
    return 1;
  printf("div_fusion: OK (%d columns, %d rows)\n", width, rows);
  print_checksum("lanes", checksum_bytes(lanes.data(), width * sizeof(float)));
  print_checksum("warps", checksum_bytes(warps.data(), width * sizeof(float)));
  if (args.bench) {
    printf("kernel odd_even_lanes\n");
    bench(args.bench, [&]() {
      odd_even_lanes<<<grid, block>>>(d_in, d_lanes, width, rows);
    });
    printf("kernel odd_even_warps\n");
    bench(args.bench, [&]() {
      odd_even_warps<<<grid, block>>>(d_in, d_warps, width, rows);
    });
  }
  cudaFree(d_in);
  cudaFree(d_lanes);
  cudaFree(d_warps);
  return 0;
}
