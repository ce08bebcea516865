// refill_kernels.cu - the kernels of the work-refill benchmark
// (refill_bench.sh): loops whose trip count comes from each item's data.
// Compiled twice: as written (-DBENCH_NS=orig) and as warpwise rewrote it
// (refill/refill_kernels.ww.cu, -DBENCH_NS=refill); refill_bench.cu calls
// both through the host functions at the end.
#include <cuda_runtime.h>

#ifndef BENCH_NS
#define BENCH_NS orig
#endif

#include "warpwise_runtime.cuh" // warpwise's runtime (WW4003)

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

// warpwise WW4005 refill.dec2zero.1: work refill of `dec2zero`'s data-dependent
// loop; forced: profitability was not checked
__global__ void dec2zero_ww_refill(int *v, int n, unsigned int *ww_next,
                                   unsigned int ww_items) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  // Iterations between two rounds of the warp's bookkeeping.
  const unsigned int ww_chunk = WARPWISE_REFILL_CHUNK_OR(256u);
  // The thread's own item first, then those the counter hands out.
  bool ww_active = (x < n), ww_more = ww_active;
  if (ww_active) {
  }
  for (;;) {
    if (ww_active) {
      unsigned int ww_k = 0u;
      for (; ww_k < ww_chunk; ++ww_k) {
        if (!(v[x] > 0))
          break;
        {
          v[x]--;
        }
      }
      if (ww_k != ww_chunk) {
        ww_active = false;
      }
    }
    if (__all_sync(0xffffffffu, ww_active))
      continue;
    // Lanes done with their item take the next ones: one atomicAdd per warp.
    const unsigned int ww_want =
        __ballot_sync(0xffffffffu, ww_more && !ww_active);
    // Few idle lanes while others are busy wait for more: one atomicAdd
    // and one round of prologues serve them together.
    if (__popc(ww_want) < 8 && __any_sync(0xffffffffu, ww_active))
      continue;
    if (ww_want != 0u) {
      const unsigned int ww_lane = threadIdx.x % 32u;
      const int ww_leader = __ffs((int)ww_want) - 1;
      unsigned int ww_base = 0u;
      if ((int)ww_lane == ww_leader)
        ww_base = atomicAdd(ww_next, (unsigned int)__popc(ww_want));
      ww_base = __shfl_sync(0xffffffffu, ww_base, ww_leader);
      if ((ww_want >> ww_lane) & 1u) {
        const unsigned long long ww_item =
            (unsigned long long)gridDim.x * blockDim.x + ww_base +
            (unsigned int)__popc(ww_want & ((1u << ww_lane) - 1u));
        ww_more = ww_item < ww_items;
        if (ww_more) {
          x = (int)ww_item;
          ww_more = (x < n);
          ww_active = ww_more;
          if (ww_active) {
          }
        }
      }
    }
    if (!__any_sync(0xffffffffu, ww_active))
      break;
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

// warpwise WW4005 refill.escape_time.1: work refill of `escape_time`'s
// data-dependent loop; forced: profitability was not checked
__global__ void escape_time_ww_refill(int *iters, int width, int height,
                                      float x0, float y0, float dx, float dy,
                                      int max_iter, unsigned int *ww_next,
                                      unsigned int ww_items) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  float cx{};
  float cy{};
  float zx{};
  float zy{};
  int it{};
  // Iterations between two rounds of the warp's bookkeeping.
  const unsigned int ww_chunk = WARPWISE_REFILL_CHUNK_OR(64u);
  // The thread's own item first, then those the counter hands out.
  bool ww_active = !(p >= width * height), ww_more = ww_active;
  if (ww_active) {
    cx = x0 + (float)(p % width) * dx;
    cy = y0 + (float)(p / width) * dy;
    zx = 0.0f;
    zy = 0.0f;
    it = 0;
  }
  for (;;) {
    if (ww_active) {
      unsigned int ww_k = 0u;
      for (; ww_k < ww_chunk; ++ww_k) {
        if (!(zx * zx + zy * zy <= 4.0f && it < max_iter))
          break;
        {
          float t = zx * zx - zy * zy + cx;
          zy = 2.0f * zx * zy + cy;
          zx = t;
          ++it;
        }
      }
      if (ww_k != ww_chunk) {
        {
          iters[p] = it;
        }
        ww_active = false;
      }
    }
    if (__all_sync(0xffffffffu, ww_active))
      continue;
    // Lanes done with their item take the next ones: one atomicAdd per warp.
    const unsigned int ww_want =
        __ballot_sync(0xffffffffu, ww_more && !ww_active);
    // Few idle lanes while others are busy wait for more: one atomicAdd
    // and one round of prologues serve them together.
    if (__popc(ww_want) < 8 && __any_sync(0xffffffffu, ww_active))
      continue;
    if (ww_want != 0u) {
      const unsigned int ww_lane = threadIdx.x % 32u;
      const int ww_leader = __ffs((int)ww_want) - 1;
      unsigned int ww_base = 0u;
      if ((int)ww_lane == ww_leader)
        ww_base = atomicAdd(ww_next, (unsigned int)__popc(ww_want));
      ww_base = __shfl_sync(0xffffffffu, ww_base, ww_leader);
      if ((ww_want >> ww_lane) & 1u) {
        const unsigned long long ww_item =
            (unsigned long long)gridDim.x * blockDim.x + ww_base +
            (unsigned int)__popc(ww_want & ((1u << ww_lane) - 1u));
        ww_more = ww_item < ww_items;
        if (ww_more) {
          p = (int)ww_item;
          ww_more = !(p >= width * height);
          ww_active = ww_more;
          if (ww_active) {
            cx = x0 + (float)(p % width) * dx;
            cy = y0 + (float)(p / width) * dy;
            zx = 0.0f;
            zy = 0.0f;
            it = 0;
          }
        }
      }
    }
    if (!__any_sync(0xffffffffu, ww_active))
      break;
  }
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

// warpwise WW4005 refill.ray_march.1: work refill of `ray_march`'s
// data-dependent loop; forced: profitability was not checked
__global__ void ray_march_ww_refill(const float *__restrict__ dir,
                                    float *__restrict__ depth,
                                    int *__restrict__ steps_out, int n,
                                    int max_steps, unsigned int *ww_next,
                                    unsigned int ww_items) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float rx{};
  float ry{};
  float rz{};
  float t{};
  int steps{};
  // Iterations between two rounds of the warp's bookkeeping.
  const unsigned int ww_chunk = WARPWISE_REFILL_CHUNK_OR(32u);
  // The thread's own item first, then those the counter hands out.
  bool ww_active = (i < n), ww_more = ww_active;
  if (ww_active) {
    rx = dir[3 * i];
    ry = dir[3 * i + 1];
    rz = dir[3 * i + 2];
    t = 0.0f;
    steps = 0;
  }
  for (;;) {
    if (ww_active) {
      unsigned int ww_k = 0u;
      for (; ww_k < ww_chunk; ++ww_k, ++steps) {
        if (!(steps < max_steps))
          break;
        {
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
      }
      if (ww_k != ww_chunk) {
        {
          depth[i] = t;
          steps_out[i] = steps;
        }
        ww_active = false;
      }
    }
    if (__all_sync(0xffffffffu, ww_active))
      continue;
    // Lanes done with their item take the next ones: one atomicAdd per warp.
    const unsigned int ww_want =
        __ballot_sync(0xffffffffu, ww_more && !ww_active);
    // Few idle lanes while others are busy wait for more: one atomicAdd
    // and one round of prologues serve them together.
    if (__popc(ww_want) < 8 && __any_sync(0xffffffffu, ww_active))
      continue;
    if (ww_want != 0u) {
      const unsigned int ww_lane = threadIdx.x % 32u;
      const int ww_leader = __ffs((int)ww_want) - 1;
      unsigned int ww_base = 0u;
      if ((int)ww_lane == ww_leader)
        ww_base = atomicAdd(ww_next, (unsigned int)__popc(ww_want));
      ww_base = __shfl_sync(0xffffffffu, ww_base, ww_leader);
      if ((ww_want >> ww_lane) & 1u) {
        const unsigned long long ww_item =
            (unsigned long long)gridDim.x * blockDim.x + ww_base +
            (unsigned int)__popc(ww_want & ((1u << ww_lane) - 1u));
        ww_more = ww_item < ww_items;
        if (ww_more) {
          i = (int)ww_item;
          ww_more = (i < n);
          ww_active = ww_more;
          if (ww_active) {
            rx = dir[3 * i];
            ry = dir[3 * i + 1];
            rz = dir[3 * i + 2];
            t = 0.0f;
            steps = 0;
          }
        }
      }
    }
    if (!__any_sync(0xffffffffu, ww_active))
      break;
  }
}

void run_dec2zero(int *v, int n, int block) {
  { // warpwise WW4005 refill.dec2zero.1: work refill launch
    dim3 const ww_grid_71_0((n + block - 1) / block);
    dim3 const ww_block_71_0(block);
    static ww_refill_site ww_site_71_0;
    ww_refill_plan ww_plan_71_0 =
        ww_refill_begin(ww_site_71_0, (const void *)dec2zero_ww_refill,
                        ww_grid_71_0, ww_block_71_0, 0, 0);
    if (ww_plan_71_0.counter)
      dec2zero_ww_refill<<<ww_plan_71_0.grid, ww_block_71_0, 0, 0>>>(
          v, n, ww_plan_71_0.counter, ww_plan_71_0.items);
    else
      dec2zero<<<ww_grid_71_0, ww_block_71_0, 0, 0>>>(v, n);
  }
}

void run_escape_time(int *iters, int width, int height, float x0, float y0,
                     float dx, float dy, int max_iter, int block) {
  { // warpwise WW4005 refill.escape_time.1: work refill launch
    dim3 const ww_grid_76_0((width * height + block - 1) / block);
    dim3 const ww_block_76_0(block);
    static ww_refill_site ww_site_76_0;
    ww_refill_plan ww_plan_76_0 =
        ww_refill_begin(ww_site_76_0, (const void *)escape_time_ww_refill,
                        ww_grid_76_0, ww_block_76_0, 0, 0);
    if (ww_plan_76_0.counter)
      escape_time_ww_refill<<<ww_plan_76_0.grid, ww_block_76_0, 0, 0>>>(
          iters, width, height, x0, y0, dx, dy, max_iter, ww_plan_76_0.counter,
          ww_plan_76_0.items);
    else
      escape_time<<<ww_grid_76_0, ww_block_76_0, 0, 0>>>(
          iters, width, height, x0, y0, dx, dy, max_iter);
  }
}

void run_ray_march(const float *dir, float *depth, int *steps, int n,
                   int max_steps, int block) {
  { // warpwise WW4005 refill.ray_march.1: work refill launch
    dim3 const ww_grid_82_0((n + block - 1) / block);
    dim3 const ww_block_82_0(block);
    static ww_refill_site ww_site_82_0;
    ww_refill_plan ww_plan_82_0 =
        ww_refill_begin(ww_site_82_0, (const void *)ray_march_ww_refill,
                        ww_grid_82_0, ww_block_82_0, 0, 0);
    if (ww_plan_82_0.counter)
      ray_march_ww_refill<<<ww_plan_82_0.grid, ww_block_82_0, 0, 0>>>(
          dir, depth, steps, n, max_steps, ww_plan_82_0.counter,
          ww_plan_82_0.items);
    else
      ray_march<<<ww_grid_82_0, ww_block_82_0, 0, 0>>>(dir, depth, steps, n,
                                                       max_steps);
  }
}

} // namespace BENCH_NS
