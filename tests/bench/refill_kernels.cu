// refill_kernels.cu - the kernels of the work-refill benchmark
// (refill_bench.sh): loops whose trip count comes from each item's data.
// Compiled twice: as written (-DBENCH_NS=orig) and as warpwise rewrote it
// (refill/refill_kernels.ww.cu, -DBENCH_NS=refill); refill_bench.cu calls
// both through the host functions at the end.
#include <cuda_runtime.h>

#ifndef BENCH_NS
#define BENCH_NS orig
#endif

namespace BENCH_NS {

// Seed 001's thread-reallocation example: each thread counts its element
// down to zero.
__global__ void dec2zero(int *v, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    while (v[x] > 0) {
      v[x]--;
    }
  }
}

// An escape-time fractal (the Mandelbrot set): iterations until |z| > 2.
__global__ void escape_time(int *iters, int width, int height, float x0,
                            float y0, float dx, float dy, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height)
    return;
  float cx = x0 + (float)(p % width) * dx;
  float cy = y0 + (float)(p / width) * dy;
  float zx = 0.0f, zy = 0.0f;
  int it = 0;
  while (zx * zx + zy * zy <= 4.0f && it < max_iter) {
    float t = zx * zx - zy * zy + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++it;
  }
  iters[p] = it;
}

// A ray march through a lattice of spheres: steps until the ray hits one
// or leaves the scene.
__global__ void ray_march(const float *__restrict__ dir,
                          float *__restrict__ depth,
                          int *__restrict__ steps_out, int n, int max_steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float rx = dir[3 * i], ry = dir[3 * i + 1], rz = dir[3 * i + 2];
    float t = 0.0f;
    int steps = 0;
    for (; steps < max_steps; ++steps) {
      float px = rx * t + 0.5f, py = ry * t + 0.5f, pz = rz * t + 0.5f;
      float qx = px - floorf(px + 0.5f), qy = py - floorf(py + 0.5f),
            qz = pz - floorf(pz + 0.5f);
      float d = sqrtf(qx * qx + qy * qy + qz * qz) - 0.2f;
      if (d < 1e-3f)
        break;
      t += d;
      if (t > 40.0f)
        break;
    }
    depth[i] = t;
    steps_out[i] = steps;
  }
}

void run_dec2zero(int *v, int n, int block) {
  dec2zero<<<(n + block - 1) / block, block>>>(v, n);
}

void run_escape_time(int *iters, int width, int height, float x0, float y0,
                     float dx, float dy, int max_iter, int block) {
  escape_time<<<(width * height + block - 1) / block, block>>>(
      iters, width, height, x0, y0, dx, dy, max_iter);
}

void run_ray_march(const float *dir, float *depth, int *steps, int n,
                   int max_steps, int block) {
  ray_march<<<(n + block - 1) / block, block>>>(dir, depth, steps, n,
                                                max_steps);
}

} // namespace BENCH_NS
