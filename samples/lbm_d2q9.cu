// lbm_d2q9.cu - a D2Q9 lattice Boltzmann channel with an obstacle
// (seed 003: the kernels the journal paper splits; seed 000, section 3.3).
//
// Exercises: loop fission and branch splitting (issue #4).
//   lbm_boundary        one loop sets the inlet/outlet columns (k < ny) and
//                       the wall rows (k < nx) to equilibrium: two groups that
//                       write disjoint nodes and read nothing, so the loop can
//                       be split in two;
//   lbm_collide_stream  each node is solid (bounce back: light) or fluid
//                       (density, velocity, nine equilibria, collision: heavy),
//                       so the branch can be split into two kernels.
//
// Usage: lbm_d2q9 [size] [steps] [--bench N]   (size 128 or 256; default 256, 100)
// ci-args: 32 10
#include <cuda_runtime.h>

#include "sample_util.h"

#define Q 9

__constant__ int cx[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int cy[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ float wt[Q] = {4.0f / 9,  1.0f / 9,  1.0f / 9,
                            1.0f / 9,  1.0f / 9,  1.0f / 36,
                            1.0f / 36, 1.0f / 36, 1.0f / 36};
__constant__ int opposite[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

static const int h_cx[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int h_cy[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const float h_wt[Q] = {4.0f / 9,  1.0f / 9,  1.0f / 9,
                              1.0f / 9,  1.0f / 9,  1.0f / 36,
                              1.0f / 36, 1.0f / 36, 1.0f / 36};
static const int h_opp[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

__global__ void lbm_boundary(float *f, int nx, int ny, float u_in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  int cells = nx * ny;
  int longest = nx > ny ? nx : ny;
  for (int k = t; k < longest; k += stride) {
    if (k >= 1 && k < ny - 1) {
      // Inlet (x = 0) at u_in, outlet (x = nx - 1) at rest, both at rho = 1.
      for (int q = 0; q < Q; ++q) {
        float cu = 3.0f * cx[q] * u_in;
        f[q * cells + k * nx] =
            wt[q] * (1.0f + cu + 0.5f * cu * cu - 1.5f * u_in * u_in);
        f[q * cells + k * nx + nx - 1] = wt[q];
      }
    }
    if (k < nx) {
      // Walls (y = 0 and y = ny - 1) at rest, rho = 1.
      for (int q = 0; q < Q; ++q) {
        f[q * cells + k] = wt[q];
        f[q * cells + (ny - 1) * nx + k] = wt[q];
      }
    }
  }
}

__global__ void lbm_collide_stream(const float *fin, float *fout,
                                   const int *solid, int nx, int ny,
                                   float omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= nx)
    return;
  int cells = nx * ny;
  int node = y * nx + x;
  if (solid[node]) {
    // Bounce back: push each population, reversed, to its neighbour.
    for (int q = 0; q < Q; ++q) {
      int xn = (x + cx[q] + nx) % nx, yn = (y + cy[q] + ny) % ny;
      fout[q * cells + yn * nx + xn] = fin[opposite[q] * cells + node];
    }
  } else {
    float f[Q];
    float rho = 0.0f, ux = 0.0f, uy = 0.0f;
    for (int q = 0; q < Q; ++q) {
      f[q] = fin[q * cells + node];
      rho += f[q];
      ux += f[q] * cx[q];
      uy += f[q] * cy[q];
    }
    ux /= rho;
    uy /= rho;
    float usq = 1.5f * (ux * ux + uy * uy);
    for (int q = 0; q < Q; ++q) {
      float cu = 3.0f * (cx[q] * ux + cy[q] * uy);
      float feq = wt[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
      int xn = (x + cx[q] + nx) % nx, yn = (y + cy[q] + ny) % ny;
      fout[q * cells + yn * nx + xn] = f[q] - omega * (f[q] - feq);
    }
  }
}

static void reference_step(std::vector<float> &f, std::vector<float> &g,
                           const std::vector<int> &solid, int nx, int ny,
                           float omega, float u_in) {
  int cells = nx * ny;
  for (int k = 1; k < ny - 1; ++k)
    for (int q = 0; q < Q; ++q) {
      float cu = 3.0f * h_cx[q] * u_in;
      f[q * cells + k * nx] =
          h_wt[q] * (1.0f + cu + 0.5f * cu * cu - 1.5f * u_in * u_in);
      f[q * cells + k * nx + nx - 1] = h_wt[q];
    }
  for (int k = 0; k < nx; ++k)
    for (int q = 0; q < Q; ++q) {
      f[q * cells + k] = h_wt[q];
      f[q * cells + (ny - 1) * nx + k] = h_wt[q];
    }
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      int node = y * nx + x;
      if (solid[node]) {
        for (int q = 0; q < Q; ++q) {
          int xn = (x + h_cx[q] + nx) % nx, yn = (y + h_cy[q] + ny) % ny;
          g[q * cells + yn * nx + xn] = f[h_opp[q] * cells + node];
        }
        continue;
      }
      float fl[Q], rho = 0, ux = 0, uy = 0;
      for (int q = 0; q < Q; ++q) {
        fl[q] = f[q * cells + node];
        rho += fl[q];
        ux += fl[q] * h_cx[q];
        uy += fl[q] * h_cy[q];
      }
      ux /= rho;
      uy /= rho;
      float usq = 1.5f * (ux * ux + uy * uy);
      for (int q = 0; q < Q; ++q) {
        float cu = 3.0f * (h_cx[q] * ux + h_cy[q] * uy);
        float feq = h_wt[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
        int xn = (x + h_cx[q] + nx) % nx, yn = (y + h_cy[q] + ny) % ny;
        g[q * cells + yn * nx + xn] = fl[q] - omega * (fl[q] - feq);
      }
    }
  f.swap(g);
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int size = arg_int(args, 0, 256), steps = arg_int(args, 1, 100);
  int nx = size, ny = size, cells = nx * ny;
  float omega = 1.2f, u_in = 0.05f;
  std::vector<int> solid(cells, 0);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      int dx = x - nx / 4, dy = y - ny / 2;
      solid[y * nx + x] = dx * dx + dy * dy <= (ny / 8) * (ny / 8);
    }
  std::vector<float> f(Q * cells), g(Q * cells), out(Q * cells);
  for (int q = 0; q < Q; ++q)
    for (int c = 0; c < cells; ++c)
      f[q * cells + c] = h_wt[q];
  float *d_f, *d_g;
  int *d_solid;
  cudaMalloc((void **)&d_f, Q * cells * sizeof(float));
  cudaMalloc((void **)&d_g, Q * cells * sizeof(float));
  cudaMalloc((void **)&d_solid, cells * sizeof(int));
  cudaMemcpy(d_f, f.data(), Q * cells * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_g, f.data(), Q * cells * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_solid, solid.data(), cells * sizeof(int), cudaMemcpyHostToDevice);
  const int block = 128;
  dim3 grid((nx + block - 1) / block, ny);
  float *cur = d_f, *next = d_g;
  for (int s = 0; s < steps; ++s) {
    lbm_boundary<<<4, 64>>>(cur, nx, ny, u_in);
    lbm_collide_stream<<<grid, block>>>(cur, next, d_solid, nx, ny, omega);
    float *t = cur;
    cur = next;
    next = t;
  }
  check_cuda("lbm_d2q9");
  cudaMemcpy(out.data(), cur, Q * cells * sizeof(float), cudaMemcpyDeviceToHost);
  for (int s = 0; s < steps; ++s)
    reference_step(f, g, solid, nx, ny, omega, u_in);
  if (!compare_floats("lbm_d2q9", out.data(), f.data(), Q * cells, 1e-3f))
    return 1;
  printf("lbm_d2q9: OK (%dx%d, %d steps)\n", nx, ny, steps);
  print_checksum("out", checksum_bytes(out.data(), Q * cells * sizeof(float)));
  if (args.bench) {
    printf("kernel lbm_boundary\n");
    bench(args.bench, [&]() { lbm_boundary<<<4, 64>>>(cur, nx, ny, u_in); });
    printf("kernel lbm_collide_stream\n");
    bench(args.bench, [&]() {
      lbm_collide_stream<<<grid, block>>>(cur, next, d_solid, nx, ny, omega);
    });
  }
  cudaFree(d_f);
  cudaFree(d_g);
  cudaFree(d_solid);
  return 0;
}
