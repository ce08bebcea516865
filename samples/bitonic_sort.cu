// bitonic_sort.cu - bitonic sort of tiles ("buckets") in shared memory
// (seed 004, figure 1 and section 6: the "bitonic sort" real-world kernel,
// whose evaluation varies the bucket size, i.e. the block size).
//
// Exercises: control-flow melding (issue #5). The compare-exchange step
// branches on the sort direction of the thread's sub-sequence,
//   if ((tid & size) == 0) { if (b < a) swap } else { if (b > a) swap }
// whose two sides have the same structure; melding them leaves one guarded
// swap with a selected comparison, halving the shared-memory stores a warp
// issues. The direction diverges within a warp only while size < 32 (10 of
// the log2(B)(log2(B)+1)/2 steps of a B-element bucket), so the gain shrinks
// as the bucket grows: measure every bucket size.
//
// Usage: bitonic_sort [log2_elements] [bucket] [--bench N]
//        (default 2^24 elements in buckets of 1024; bucket 64..1024)
// ci-args: 13 1024
// ci-args: 13 64
#include <cuda_runtime.h>

#include "sample_util.h"

// One block of TILE threads sorts one TILE-element bucket.
template <unsigned TILE> __global__ void bitonic_tiles(int *data) {
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

// Sorts `tiles` buckets of TILE elements in place; `reps` > 0 also times it.
template <unsigned TILE> static void sort_buckets(int *d, int tiles, int reps) {
  bitonic_tiles<TILE><<<tiles, TILE>>>(d);
  check_cuda("bitonic_sort");
  // Re-sorting sorted tiles does the same work: the network is oblivious.
  bench(reps, [&]() { bitonic_tiles<TILE><<<tiles, TILE>>>(d); });
}

static void sort_any_bucket(int bucket, int *d, int tiles, int reps) {
  switch (bucket) {
  case 64:
    sort_buckets<64>(d, tiles, reps);
    break;
  case 128:
    sort_buckets<128>(d, tiles, reps);
    break;
  case 256:
    sort_buckets<256>(d, tiles, reps);
    break;
  case 512:
    sort_buckets<512>(d, tiles, reps);
    break;
  default:
    sort_buckets<1024>(d, tiles, reps);
    break;
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int log2n = arg_int(args, 0, 24);
  int bucket = arg_int(args, 1, 1024);
  if (bucket != 64 && bucket != 128 && bucket != 256 && bucket != 512 &&
      bucket != 1024) {
    printf("bitonic_sort: bucket must be 64, 128, 256, 512 or 1024\n");
    return 2;
  }
  size_t n = (size_t)1 << log2n;
  if (n < (size_t)bucket) {
    printf("bitonic_sort: fewer elements than one bucket\n");
    return 2;
  }
  int tiles = (int)(n / bucket);
  std::vector<int> in(n), out(n), ref(n);
  for (size_t k = 0; k < n; ++k)
    in[k] = (int)(next_rand() % 1000000);
  int *d;
  cudaMalloc((void **)&d, n * sizeof(int));
  cudaMemcpy(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  // The timed runs go after the copy back: they re-sort sorted buckets.
  sort_any_bucket(bucket, d, tiles, 0);
  cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  ref = in;
  for (int t = 0; t < tiles; ++t)
    qsort(ref.data() + (size_t)t * bucket, bucket, sizeof(int), compare_int);
  if (!compare_ints("bitonic_sort", out.data(), ref.data(), n))
    return 1;
  printf("bitonic_sort: OK (%d tiles of %d)\n", tiles, bucket);
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(int)));
  sort_any_bucket(bucket, d, tiles, args.bench);
  cudaFree(d);
  return 0;
}
