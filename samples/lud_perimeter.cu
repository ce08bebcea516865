// lud_perimeter.cu - the perimeter step of a blocked LU decomposition
// (seed 004, section 6: "LUD", after Rodinia's lud_perimeter).
//
// Exercises: control-flow melding of loops (issue #5). In each block the
// first BS threads update a row strip and the next BS threads a column strip;
// the two sides are loops of the same structure over different data, so the
// branch on threadIdx.x < BS splits the block's warps, and the loops can be
// melded into one with selected operands.
//
// Usage: lud_perimeter [strips] [--bench N]   (default 4096)
// ci-args: 16
#include <cuda_runtime.h>

#include "sample_util.h"

#define BS 16

// diag: the factorised diagonal tile (BS x BS, unit lower, upper);
// rows: `strips` tiles to the right of it; cols: `strips` tiles below it.
__global__ void perimeter(const float *diag, float *rows, float *cols) {
  __shared__ float d[BS * BS];
  int t = threadIdx.x;
  for (int k = t; k < BS * BS; k += blockDim.x)
    d[k] = diag[k];
  __syncthreads();
  float *row_tile = rows + blockIdx.x * BS * BS;
  float *col_tile = cols + blockIdx.x * BS * BS;
  if (t < BS) {
    // Forward substitution down column t of the row tile: L * X = A.
    int c = t;
    for (int i = 1; i < BS; ++i) {
      float sum = row_tile[i * BS + c];
      for (int j = 0; j < i; ++j)
        sum -= d[i * BS + j] * row_tile[j * BS + c];
      row_tile[i * BS + c] = sum;
    }
  } else {
    // Substitution along row r of the column tile: X * U = A.
    int r = t - BS;
    for (int i = 0; i < BS; ++i) {
      float sum = col_tile[r * BS + i];
      for (int j = 0; j < i; ++j)
        sum -= col_tile[r * BS + j] * d[j * BS + i];
      col_tile[r * BS + i] = sum / d[i * BS + i];
    }
  }
}

static void reference(const float *d, float *rows, float *cols, int strips) {
  for (int s = 0; s < strips; ++s) {
    float *rt = rows + s * BS * BS, *ct = cols + s * BS * BS;
    for (int c = 0; c < BS; ++c)
      for (int i = 1; i < BS; ++i) {
        float sum = rt[i * BS + c];
        for (int j = 0; j < i; ++j)
          sum -= d[i * BS + j] * rt[j * BS + c];
        rt[i * BS + c] = sum;
      }
    for (int r = 0; r < BS; ++r)
      for (int i = 0; i < BS; ++i) {
        float sum = ct[r * BS + i];
        for (int j = 0; j < i; ++j)
          sum -= ct[r * BS + j] * d[j * BS + i];
        ct[r * BS + i] = sum / d[i * BS + i];
      }
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int strips = arg_int(args, 0, 4096);
  size_t n = (size_t)strips * BS * BS;
  std::vector<float> diag(BS * BS), rows(n), cols(n), rrows, rcols;
  for (int i = 0; i < BS; ++i)
    for (int j = 0; j < BS; ++j)
      diag[i * BS + j] = i == j ? rand_float(2.0f, 3.0f) : rand_float(-0.2f, 0.2f);
  for (size_t k = 0; k < n; ++k) {
    rows[k] = rand_float(-1, 1);
    cols[k] = rand_float(-1, 1);
  }
  float *dd, *dr, *dc, *pr, *pc;
  cudaMalloc((void **)&dd, BS * BS * sizeof(float));
  cudaMalloc((void **)&dr, n * sizeof(float));
  cudaMalloc((void **)&dc, n * sizeof(float));
  cudaMalloc((void **)&pr, n * sizeof(float));
  cudaMalloc((void **)&pc, n * sizeof(float));
  cudaMemcpy(dd, diag.data(), BS * BS * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(pr, rows.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(pc, cols.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dr, pr, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaMemcpy(dc, pc, n * sizeof(float), cudaMemcpyDeviceToDevice);
  perimeter<<<strips, 2 * BS>>>(dd, dr, dc);
  check_cuda("lud_perimeter");
  std::vector<float> gr(n), gc(n);
  cudaMemcpy(gr.data(), dr, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(gc.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  rrows = rows;
  rcols = cols;
  reference(diag.data(), rrows.data(), rcols.data(), strips);
  if (!compare_floats("lud_perimeter rows", gr.data(), rrows.data(), n, 1e-3f) ||
      !compare_floats("lud_perimeter cols", gc.data(), rcols.data(), n, 1e-3f))
    return 1;
  printf("lud_perimeter: OK (%d strips of %dx%d)\n", strips, BS, BS);
  unsigned long long h = checksum_bytes(gr.data(), n * sizeof(float));
  print_checksum("out", checksum_bytes(gc.data(), n * sizeof(float), h));
  // Each timed run restores the input on the device first (timed in both
  // versions alike).
  bench(args.bench, [&]() {
    cudaMemcpy(dr, pr, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(dc, pc, n * sizeof(float), cudaMemcpyDeviceToDevice);
    perimeter<<<strips, 2 * BS>>>(dd, dr, dc);
  });
  cudaFree(pr);
  cudaFree(pc);
  cudaFree(dd);
  cudaFree(dr);
  cudaFree(dc);
  return 0;
}
