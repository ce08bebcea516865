// dec2zero.cu - a thread's work proportional to its own input element
// (seed 001, "Thread Reallocation").
//
// Exercises: divergence analysis (issue #3): the loop's exit condition
// depends on a load at a divergent address, so the loop is divergent and
// warps run as long as their slowest lane. With random inputs that is nearly
// twice the work of sorted inputs of the same sum; warpwise reports it (it
// does not reallocate threads).
//
// Usage: dec2zero [log2_elements] [layout] [--bench N]
//        layout 0 = random values in [0, n), 1 = sorted (v[i] = i), 2 = n/2
// ci-args: 10 0
// ci-args: 10 1
#include <cuda_runtime.h>

#include "sample_util.h"

__global__ void dec2zero(int *v, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    while (v[x] > 0) {
      v[x]--;
    }
  }
}

int main(int argc, char **argv) {
  SampleArgs args = parse_args(argc, argv);
  int n = 1 << arg_int(args, 0, 16);
  int layout = arg_int(args, 1, 0);
  std::vector<int> in(n), out(n);
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = layout == 0 ? (int)(next_rand() % n) : layout == 1 ? i : n / 2;
    sum += in[i];
  }
  int *d;
  cudaMalloc((void **)&d, n * sizeof(int));
  cudaMemcpy(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  const int block = 256;
  dec2zero<<<(n + block - 1) / block, block>>>(d, n);
  check_cuda("dec2zero");
  cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (out[i] != 0) {
      printf("dec2zero: MISMATCH at %d: %d\n", i, out[i]);
      return 1;
    }
  printf("dec2zero: OK (%d elements, layout %d, %lld decrements)\n", n, layout,
         sum);
  print_checksum("out", checksum_bytes(out.data(), n * sizeof(int)));
  bench(args.bench, [&]() {
    cudaMemcpy(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    dec2zero<<<(n + block - 1) / block, block>>>(d, n);
  });
  cudaFree(d);
  return 0;
}
