// decision_mask.cu - the CF'09 decision-mask benchmark (seed 000, section 3).
//
// Exercises: branch splitting (issue #4). The kernel branches on a per-element
// decision mask: the if-side is light (a few registers), the else-side heavy
// (a stencil over WIDTH values kept in registers), so the whole kernel runs at
// the heavy side's occupancy even where no thread takes it.
//
// Usage: decision_mask [log2_elements] [else_percent] [linear|random]
//   log2_elements  problem size, 2^N elements (default 22: 4M, as in the paper)
//   else_percent   share of elements taking the else (heavy) side, 0..100
//   linear         the first else_percent of the mask is 1 (two sections)
//   random         each element is 1 with probability else_percent
// The program checks the GPU result against a CPU reference and prints
// "decision_mask: OK" or the first mismatch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define WIDTH 24
#define ROUNDS 6

__global__ void decide_and_compute(const int *mask, const float *in,
                                   float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x * 0.5f + 1.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    for (int r = 0; r < ROUNDS; ++r)
      for (int k = 0; k < WIDTH; ++k)
        v[k] = v[k] * 0.75f + v[(k + 1) % WIDTH] * 0.25f + x;
    float s = 0.0f;
    for (int k = 0; k < WIDTH; ++k)
      s += v[k] * (float)(k + 1);
    out[i] = s;
  }
}

static void reference(const int *mask, const float *in, float *out, int n) {
  for (int i = 0; i < n; ++i) {
    float x = in[i];
    if (mask[i] == 0) {
      out[i] = x * 0.5f + 1.0f;
    } else {
      float v[WIDTH];
      for (int k = 0; k < WIDTH; ++k)
        v[k] = in[(i + k * 977) % n];
      for (int r = 0; r < ROUNDS; ++r)
        for (int k = 0; k < WIDTH; ++k)
          v[k] = v[k] * 0.75f + v[(k + 1) % WIDTH] * 0.25f + x;
      float s = 0.0f;
      for (int k = 0; k < WIDTH; ++k)
        s += v[k] * (float)(k + 1);
      out[i] = s;
    }
  }
}

static unsigned rng_state = 12345u;
static unsigned next_random(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 22;
  int else_percent = argc > 2 ? atoi(argv[2]) : 10;
  int random_mask = !(argc > 3 && strcmp(argv[3], "linear") == 0);
  int n = 1 << log2n;
  int *mask = (int *)malloc(n * sizeof(int));
  float *in = (float *)malloc(n * sizeof(float));
  float *out = (float *)malloc(n * sizeof(float));
  float *ref = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    in[i] = (float)(next_random() % 1000) / 500.0f - 1.0f;
    if (random_mask)
      mask[i] = (int)(next_random() % 100) < else_percent;
    else
      mask[i] = (long long)i * 100 < (long long)n * else_percent;
  }
  int *d_mask;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_mask, n * sizeof(int));
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMemcpy(d_mask, mask, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xff, n * sizeof(float));
  int block = 256;
  int grid = (n + block - 1) / block;
  decide_and_compute<<<grid, block>>>(d_mask, d_in, d_out, n);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    printf("decision_mask: CUDA error %s\n", cudaGetErrorString(err));
    return 2;
  }
  cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  reference(mask, in, ref, n);
  for (int i = 0; i < n; ++i) {
    float d = out[i] - ref[i];
    if (d > 1e-3f || d < -1e-3f) {
      printf("decision_mask: MISMATCH at %d: gpu %f cpu %f\n", i, out[i],
             ref[i]);
      return 1;
    }
  }
  printf("decision_mask: OK (%d elements, %d%% else, %s mask)\n", n,
         else_percent, random_mask ? "random" : "linear");
  cudaFree(d_mask);
  cudaFree(d_in);
  cudaFree(d_out);
  free(mask);
  free(in);
  free(out);
  free(ref);
  return 0;
}
