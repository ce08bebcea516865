// loop_fission.cu - two independent reductions over four arrays in one loop
// (seed 000, section 2.1, figure 1).
//
// Exercises: loop fission (issue #4). Each thread owns one column i and
// accumulates dot[i] = sum a*b and quot[i] = sum c/d over the rows. The two
// reductions share nothing, so the loop can be split in two; with eight
// partial sums each and all loads hoisted, the fused loop needs more
// registers than either half, enough to cross an occupancy step on sm_90.
// The pointers are plain, as in most real code: warpwise proves from the
// launches in main() that they are distinct cudaMalloc buffers, and that is
// what lets the first reduction's store move up between the two loops.
// The loop is kept rolled (`#pragma unroll 1`): unrolled, nvcc spends any
// registers the split frees on deeper unrolling, and no occupancy step is
// gained (warpwise then declines the split).
//
// Usage: loop_fission [columns] [rows] [--bench N]   (defaults 262144, 64)
// ci-args: 1024 32
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void two_reductions(const float *a, const float *b, const float *c,
                               const float *d, float *dot, float *quot,
                               int columns, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= columns)
    return;
  float x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0;
  float y0 = 0, y1 = 0, y2 = 0, y3 = 0, y4 = 0, y5 = 0, y6 = 0, y7 = 0;
#pragma unroll 1
  for (int r = 0; r < rows; r += 8) {
    const int o = r * columns + i;
    x0 += a[o] * b[o];
    x1 += a[o + columns] * b[o + columns];
    x2 += a[o + 2 * columns] * b[o + 2 * columns];
    x3 += a[o + 3 * columns] * b[o + 3 * columns];
    x4 += a[o + 4 * columns] * b[o + 4 * columns];
    x5 += a[o + 5 * columns] * b[o + 5 * columns];
    x6 += a[o + 6 * columns] * b[o + 6 * columns];
    x7 += a[o + 7 * columns] * b[o + 7 * columns];
    y0 += c[o] / d[o];
    y1 += c[o + columns] / d[o + columns];
    y2 += c[o + 2 * columns] / d[o + 2 * columns];
    y3 += c[o + 3 * columns] / d[o + 3 * columns];
    y4 += c[o + 4 * columns] / d[o + 4 * columns];
    y5 += c[o + 5 * columns] / d[o + 5 * columns];
    y6 += c[o + 6 * columns] / d[o + 6 * columns];
    y7 += c[o + 7 * columns] / d[o + 7 * columns];
  }
  dot[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
  quot[i] = ((y0 + y1) + (y2 + y3)) + ((y4 + y5) + (y6 + y7));
}

static void reference(const float *a, const float *b, const float *c,
                      const float *d, float *dot, float *quot, int columns,
                      int rows) {
  for (int i = 0; i < columns; ++i) {
    float x[8] = {0}, y[8] = {0};
    for (int r = 0; r < rows; r += 8)
      for (int k = 0; k < 8; ++k) {
        int o = (r + k) * columns + i;
        x[k] += a[o] * b[o];
        y[k] += c[o] / d[o];
      }
    dot[i] = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
    quot[i] = ((y[0] + y[1]) + (y[2] + y[3])) + ((y[4] + y[5]) + (y[6] + y[7]));
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int columns = arg_int(args, 0, 262144);
  int rows = arg_int(args, 1, 64) / 8 * 8;
  size_t n = (size_t)columns * rows;
  std::vector<float> a(n), b(n), c(n), d(n);
  for (size_t k = 0; k < n; ++k) {
    a[k] = rand_float(-1, 1);
    b[k] = rand_float(-1, 1);
    c[k] = rand_float(-1, 1);
    d[k] = rand_float(0.5f, 2.0f);
  }
  float *da, *db, *dc, *dd, *ddot, *dquot;
  cudaMalloc((void **)&da, n * sizeof(float));
  cudaMalloc((void **)&db, n * sizeof(float));
  cudaMalloc((void **)&dc, n * sizeof(float));
  cudaMalloc((void **)&dd, n * sizeof(float));
  cudaMalloc((void **)&ddot, columns * sizeof(float));
  cudaMalloc((void **)&dquot, columns * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dd, d.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(ddot, 0xff, columns * sizeof(float));
  cudaMemset(dquot, 0xff, columns * sizeof(float));

  const int block = 256;
  const int grid = (columns + block - 1) / block;
  two_reductions<<<grid, block>>>(da, db, dc, dd, ddot, dquot, columns, rows);
  check_cuda("loop_fission");
  std::vector<float> dot(columns), quot(columns), rdot(columns), rquot(columns);
  cudaMemcpy(dot.data(), ddot, columns * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(quot.data(), dquot, columns * sizeof(float), cudaMemcpyDeviceToHost);
  reference(a.data(), b.data(), c.data(), d.data(), rdot.data(), rquot.data(),
            columns, rows);
  if (!compare_floats("loop_fission dot", dot.data(), rdot.data(), columns) ||
      !compare_floats("loop_fission quot", quot.data(), rquot.data(), columns))
    return 1;
  printf("loop_fission: OK (%d columns, %d rows)\n", columns, rows);
  unsigned long long h = checksum_bytes(dot.data(), columns * sizeof(float));
  print_checksum("out", checksum_bytes(quot.data(), columns * sizeof(float), h));
  bench(args.bench, [&]() {
    two_reductions<<<grid, block>>>(da, db, dc, dd, ddot, dquot, columns, rows);
  });
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
  cudaFree(ddot);
  cudaFree(dquot);
  return 0;
}
