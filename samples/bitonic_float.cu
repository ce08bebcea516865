// bitonic_float.cu - bitonic sort of float buckets in shared memory, written
// as in seed 004's figure 1: the compare-exchange reads the two keys inside
// each side of the direction branch and swaps them through a __device__
// function, so both sides load, compare and store shared memory.
//
// Exercises: melding and the branch-free form (issue #14). The direction
// test (tid & k) == 0 splits warps while k < 32; the swap is data-dependent.
// Both keys a thread swaps are keys it has just compared, in the same barrier
// interval, which is what lets warpwise store them unconditionally.
//
// Usage: bitonic_float [log2_elements] [--bench N]
//        (default 2^24 elements in buckets of 256; every run sorts the same
//        random input, read from a separate buffer)
// ci-args: 12
#include <cuda_runtime.h>

#include "sample_util.h"

#define BUCKET 256

__device__ inline void swap_keys(float &a, float &b) {
  float t = a;
  a = b;
  b = t;
}

// One block of BUCKET threads sorts one BUCKET-element bucket of `in` into
// `out` (figure 1's NUM is BUCKET).
__global__ void bitonic_float(const float *in, float *out) {
  extern __shared__ float shared[];
  const unsigned tid = threadIdx.x;
  const unsigned offset = blockIdx.x * BUCKET;
  shared[tid] = in[offset + tid];
  __syncthreads();
  for (unsigned k = 2; k <= BUCKET; k *= 2) {
    for (unsigned j = k / 2; j > 0; j /= 2) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        if ((tid & k) == 0) {
          if (shared[ixj] < shared[tid])
            swap_keys(shared[tid], shared[ixj]);
        } else {
          if (shared[ixj] > shared[tid])
            swap_keys(shared[tid], shared[ixj]);
        }
      }
      __syncthreads();
    }
  }
  out[offset + tid] = shared[tid];
}

static int compare_float(const void *x, const void *y) {
  float a = *(const float *)x, b = *(const float *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int log2n = arg_int(args, 0, 24);
  if (log2n < 8 || log2n > 28) {
    printf("bitonic_float: log2_elements must be 8..28\n");
    return 2;
  }
  size_t n = (size_t)1 << log2n;
  int tiles = (int)(n / BUCKET);
  std::vector<float> in(n), out(n), ref(n);
  for (size_t k = 0; k < n; ++k)
    in[k] = rand_float(-1000.0f, 1000.0f);
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, n * sizeof(float));
  cudaMalloc((void **)&d_out, n * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  bitonic_float<<<tiles, BUCKET, BUCKET * sizeof(float)>>>(d_in, d_out);
  check_cuda("bitonic_float");
  cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  ref = in;
  for (int t = 0; t < tiles; ++t)
    qsort(ref.data() + (size_t)t * BUCKET, BUCKET, sizeof(float),
          compare_float);
  if (!compare_floats("bitonic_float", out.data(), ref.data(), n, 0.0f))
    return 1;
  printf("bitonic_float: OK (%d buckets of %d)\n", tiles, BUCKET);
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(float)));
  bench(args.bench, [&]() {
    bitonic_float<<<tiles, BUCKET, BUCKET * sizeof(float)>>>(d_in, d_out);
  });
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
