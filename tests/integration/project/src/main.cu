// main.cu - one kernel with a lane-divergent branch, a launch of the kernel
// of lanes.cuh (split by the rewrite), and the host program.
#include <cstdio>
#include <cuda_runtime.h>

#include "lanes.cuh"
#include "local.h"
#include "tile.h"

void launch_scale(float *data, int n);

__global__ void shade(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = data[i];
  if (i % 2) {
    float a = v * v;
    data[i] = a * 1.5f + ww_bias(i);
  } else {
    float a = v * 2.5f;
    data[i] = a * v + ww_bias(i);
  }
}

int main() {
  const int n = WW_WIDTH;
  float host[n];
  for (int i = 0; i < n; ++i)
    host[i] = i * 0.01f;
  float *dev = nullptr;
  if (cudaMalloc(&dev, sizeof host) != cudaSuccess) {
    std::printf("no device\n");
    return 0;
  }
  float *lanes = nullptr;
  cudaMalloc(&lanes, sizeof host);
  cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
  ww_lanes<<<(n + 127) / 128, 128>>>(dev, lanes, n);
  shade<<<(n + 127) / 128, 128>>>(lanes, n);
  launch_scale(dev, n);
  cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += host[i];
  std::printf("checksum %.6f\n", sum);
  cudaFree(lanes);
  cudaFree(dev);
  return 0;
}
