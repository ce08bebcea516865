// cfm_shapes.cu - the SB1, SB2 and SB3 control-flow shapes of the CFM paper
// (seed 004, section 5, figure 6), written anew.
//
// Exercises: control-flow melding (issue #5). Each kernel stages two inputs
// in shared memory and runs two nested loops; the inner loop holds a branch
// divergent inside every warp (even and odd lanes). Even lanes work on `a`,
// odd lanes on `b`, with the same operations:
//   sb1  a diamond: one straight-line block per side;
//   sb2  each side holds an if-then region;
//   sb3  each side holds two if-then regions around a straight-line block.
//
// Usage: cfm_shapes [log2_elements] [outer] [inner] [--bench N]
//        (defaults 20, 4, 16)
// ci-args: 10 2 4
#include <cuda_runtime.h>

#include "sample_util.h"

#define BLOCK 256

__global__ void sb1(const float *a, const float *b, float *out_a,
                    float *out_b, int outer, int inner) {
  __shared__ float sa[BLOCK];
  __shared__ float sb[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  sa[t] = a[i];
  sb[t] = b[i];
  __syncthreads();
  for (int o = 0; o < outer; ++o) {
    for (int j = 0; j < inner; ++j) {
      if (t % 2 == 0) {
        float x = sa[t];
        float y = x * 0.75f + 0.125f;
        float z = y * y - x * 0.5f;
        sa[t] = z * 0.5f + j * 0.001f;
      } else {
        float x = sb[t];
        float y = x * 0.75f + 0.125f;
        float z = y * y - x * 0.5f;
        sb[t] = z * 0.5f + j * 0.001f;
      }
    }
  }
  __syncthreads();
  out_a[i] = sa[t];
  out_b[i] = sb[t];
}

__global__ void sb2(const float *a, const float *b, float *out_a,
                    float *out_b, int outer, int inner) {
  __shared__ float sa[BLOCK];
  __shared__ float sb[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  sa[t] = a[i];
  sb[t] = b[i];
  __syncthreads();
  for (int o = 0; o < outer; ++o) {
    for (int j = 0; j < inner; ++j) {
      if (t % 2 == 0) {
        float x = sa[t] * 0.75f + 0.125f;
        if (x > 0.25f) {
          x = x * x - 0.5f;
        }
        sa[t] = x;
      } else {
        float x = sb[t] * 0.75f + 0.125f;
        if (x > 0.25f) {
          x = x * x - 0.5f;
        }
        sb[t] = x;
      }
    }
  }
  __syncthreads();
  out_a[i] = sa[t];
  out_b[i] = sb[t];
}

__global__ void sb3(const float *a, const float *b, float *out_a,
                    float *out_b, int outer, int inner) {
  __shared__ float sa[BLOCK];
  __shared__ float sb[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  sa[t] = a[i];
  sb[t] = b[i];
  __syncthreads();
  for (int o = 0; o < outer; ++o) {
    for (int j = 0; j < inner; ++j) {
      if (t % 2 == 0) {
        float x = sa[t];
        if (x > 0.0f) {
          x = x * 0.5f + 0.25f;
        }
        x = x * x - 0.125f;
        if (x < 0.5f) {
          x = x + 0.375f;
        }
        sa[t] = x;
      } else {
        float x = sb[t];
        if (x > 0.0f) {
          x = x * 0.5f + 0.25f;
        }
        x = x * x - 0.125f;
        if (x < 0.5f) {
          x = x + 0.375f;
        }
        sb[t] = x;
      }
    }
  }
  __syncthreads();
  out_a[i] = sa[t];
  out_b[i] = sb[t];
}

// One element's journey, the same for all shapes' even (a) and odd (b) lanes.
static float step(int shape, float x, int j) {
  if (shape == 1) {
    float y = x * 0.75f + 0.125f;
    float z = y * y - x * 0.5f;
    return z * 0.5f + j * 0.001f;
  }
  if (shape == 2) {
    x = x * 0.75f + 0.125f;
    if (x > 0.25f)
      x = x * x - 0.5f;
    return x;
  }
  if (x > 0.0f)
    x = x * 0.5f + 0.25f;
  x = x * x - 0.125f;
  if (x < 0.5f)
    x = x + 0.375f;
  return x;
}

static void reference(int shape, const float *a, const float *b, float *oa,
                      float *ob, int n, int outer, int inner) {
  for (int i = 0; i < n; ++i) {
    float x = a[i], y = b[i];
    for (int o = 0; o < outer; ++o)
      for (int j = 0; j < inner; ++j) {
        if ((i % BLOCK) % 2 == 0)
          x = step(shape, x, j);
        else
          y = step(shape, y, j);
      }
    oa[i] = x;
    ob[i] = y;
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int n = 1 << arg_int(args, 0, 20);
  int outer = arg_int(args, 1, 4), inner = arg_int(args, 2, 16);
  std::vector<float> a(n), b(n), oa(n), ob(n), ra(n), rb(n);
  for (int k = 0; k < n; ++k) {
    a[k] = rand_float(-1, 1);
    b[k] = rand_float(-1, 1);
  }
  float *da, *db, *doa, *dob;
  cudaMalloc((void **)&da, n * sizeof(float));
  cudaMalloc((void **)&db, n * sizeof(float));
  cudaMalloc((void **)&doa, n * sizeof(float));
  cudaMalloc((void **)&dob, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int grid = n / BLOCK;
  unsigned long long h = 1469598103934665603ull;
  for (int shape = 1; shape <= 3; ++shape) {
    cudaMemset(doa, 0xff, n * sizeof(float));
    cudaMemset(dob, 0xff, n * sizeof(float));
    if (shape == 1)
      sb1<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner);
    else if (shape == 2)
      sb2<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner);
    else
      sb3<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner);
    check_cuda("cfm_shapes");
    cudaMemcpy(oa.data(), doa, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(ob.data(), dob, n * sizeof(float), cudaMemcpyDeviceToHost);
    reference(shape, a.data(), b.data(), ra.data(), rb.data(), n, outer, inner);
    char name[32];
    snprintf(name, sizeof name, "cfm_shapes sb%d", shape);
    if (!compare_floats(name, oa.data(), ra.data(), n, 1e-3f) ||
        !compare_floats(name, ob.data(), rb.data(), n, 1e-3f))
      return 1;
    h = checksum_bytes(oa.data(), n * sizeof(float), h);
    h = checksum_bytes(ob.data(), n * sizeof(float), h);
  }
  printf("cfm_shapes: OK (%d elements, %d x %d iterations)\n", n, outer, inner);
  print_checksum("out", h);
  if (args.bench) {
    printf("kernel sb1\n");
    bench(args.bench, [&]() { sb1<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner); });
    printf("kernel sb2\n");
    bench(args.bench, [&]() { sb2<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner); });
    printf("kernel sb3\n");
    bench(args.bench, [&]() { sb3<<<grid, BLOCK>>>(da, db, doa, dob, outer, inner); });
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(doa);
  cudaFree(dob);
  return 0;
}
