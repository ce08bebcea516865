// bitonic_sort.cu - bitonic sort of 1024-element tiles in shared memory
// (seed 004, figure 1 and section 6: the "bitonic sort" real-world kernel).
//
// Exercises: control-flow melding (issue #5). The compare-exchange step
// branches on the sort direction of the thread's sub-sequence,
//   if ((tid & size) == 0) { if (b < a) swap } else { if (b > a) swap }
// whose two sides have the same structure; melding them leaves one guarded
// swap with a selected comparison, halving the shared-memory stores a warp
// issues.
//
// Usage: bitonic_sort [tiles] [--bench N]   (default 16384 tiles of 1024)
// ci-args: 8
#include <cuda_runtime.h>

#include "sample_util.h"

#define TILE 1024

__global__ void bitonic_tiles(int *data) {
  __shared__ int tile[TILE];
  unsigned tid = threadIdx.x;
  int *base = data + blockIdx.x * TILE;
  tile[tid] = base[tid];
  __syncthreads();
  for (unsigned size = 2; size <= TILE; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      unsigned partner = tid ^ stride;
      if (partner > tid) {
        int a = tile[tid];
        int b = tile[partner];
        if ((tid & size) == 0) {
          if (b < a) {
            tile[tid] = b;
            tile[partner] = a;
          }
        } else {
          if (b > a) {
            tile[tid] = b;
            tile[partner] = a;
          }
        }
      }
      __syncthreads();
    }
  }
  base[tid] = tile[tid];
}

static int compare_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int tiles = arg_int(args, 0, 16384);
  size_t n = (size_t)tiles * TILE;
  std::vector<int> in(n), out(n), ref(n);
  for (size_t k = 0; k < n; ++k)
    in[k] = (int)(next_rand() % 1000000);
  int *d;
  cudaMalloc((void **)&d, n * sizeof(int));
  cudaMemcpy(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  bitonic_tiles<<<tiles, TILE>>>(d);
  check_cuda("bitonic_sort");
  cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  ref = in;
  for (int t = 0; t < tiles; ++t)
    qsort(ref.data() + (size_t)t * TILE, TILE, sizeof(int), compare_int);
  if (!compare_ints("bitonic_sort", out.data(), ref.data(), n))
    return 1;
  printf("bitonic_sort: OK (%d tiles of %d)\n", tiles, TILE);
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(int)));
  bench(args.bench, [&]() {
    // Re-sorting sorted tiles does the same work: the network is oblivious.
    bitonic_tiles<<<tiles, TILE>>>(d);
  });
  cudaFree(d);
  return 0;
}
