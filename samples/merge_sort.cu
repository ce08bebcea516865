// merge_sort.cu - bottom-up merge sort, one thread per pair of runs
// (seed 004, section 6: "merge sort").
//
// Exercises: control-flow melding (issue #5). The merge loop's body takes one
// element from the left or the right run; both sides store, advance an index
// and are otherwise alike, and the choice diverges on data.
//
// Usage: merge_sort [log2_elements] [--bench N]   (default 16; the last passes
// are nearly serial, one thread merging half the array)
// ci-args: 10
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void merge_pass(const int *src, int *dst, int n, int width) {
  int pair = blockIdx.x * blockDim.x + threadIdx.x;
  int begin = pair * 2 * width;
  if (begin >= n)
    return;
  int mid = min(begin + width, n);
  int end = min(begin + 2 * width, n);
  int i = begin, j = mid;
  for (int k = begin; k < end; ++k) {
    if (j >= end || (i < mid && src[i] <= src[j])) {
      dst[k] = src[i];
      i = i + 1;
    } else {
      dst[k] = src[j];
      j = j + 1;
    }
  }
}

static int compare_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

/// All passes; returns the buffer holding the sorted data.
static int *sort_all(int *a, int *b, int n) {
  for (int width = 1; width < n; width *= 2) {
    int pairs = (n + 2 * width - 1) / (2 * width);
    int block = 128;
    merge_pass<<<(pairs + block - 1) / block, block>>>(a, b, n, width);
    int *t = a;
    a = b;
    b = t;
  }
  return a;
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int n = 1 << arg_int(args, 0, 16);
  std::vector<int> in(n), out(n), ref(n);
  for (int k = 0; k < n; ++k)
    in[k] = (int)(next_rand() % 1000000);
  int *a, *b, *pristine;
  cudaMalloc((void **)&a, n * sizeof(int));
  cudaMalloc((void **)&b, n * sizeof(int));
  cudaMalloc((void **)&pristine, n * sizeof(int));
  cudaMemcpy(pristine, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(a, pristine, n * sizeof(int), cudaMemcpyDeviceToDevice);
  int *sorted = sort_all(a, b, n);
  check_cuda("merge_sort");
  cudaMemcpy(out.data(), sorted, n * sizeof(int), cudaMemcpyDeviceToHost);
  ref = in;
  qsort(ref.data(), n, sizeof(int), compare_int);
  if (!compare_ints("merge_sort", out.data(), ref.data(), n))
    return 1;
  printf("merge_sort: OK (%d elements)\n", n);
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(int)));
  // Each timed run sorts the same unsorted data again (the device-to-device
  // copy that restores it is timed too, in both versions alike).
  bench(args.bench, [&]() {
    cudaMemcpy(a, pristine, n * sizeof(int), cudaMemcpyDeviceToDevice);
    sort_all(a, b, n);
  });
  cudaFree(pristine);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
