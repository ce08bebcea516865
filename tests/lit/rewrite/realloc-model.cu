// Whether packing a partner guard pays: the execution model counts, lane by
// lane at each launch's block size, the warps that issue the guarded work
// as written and once packed. Distances of 32 and more leave whole warps
// idle already; distances below 32 leave half of every warp idle.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms realloc -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#define N 256

__global__ void small_strides(int *data) {
  __shared__ int s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned j = 16; j > 0; j /= 2) {
    unsigned p = tid ^ j;
    if (p > tid) {
      int a = s[tid], b = s[p];
      if (b < a) {
        s[tid] = b;
        s[p] = a;
      }
    }
    __syncthreads();
  }
  data[blockIdx.x * N + tid] = s[tid];
}
// CHECK: [[@LINE-11]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-11]]: {{.*}}; model: at 256 threads 160 -> 80 of 160 warp-steps issue the work, predicted {{[0-9.]+}}x; `small_strides` registers {{[0-9]+}} -> {{[0-9]+}}, no occupancy step lost; SASS instructions {{[0-9]+}} -> {{[0-9]+}}; applied [WW4001]

__global__ void wide_strides(int *data) {
  __shared__ int s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned j = N / 2; j >= 32; j /= 2) {
    unsigned p = tid ^ j;
    if (p > tid) {
      int a = s[tid], b = s[p];
      if (b < a) {
        s[tid] = b;
        s[p] = a;
      }
    }
    __syncthreads();
  }
  data[blockIdx.x * N + tid] = s[tid];
}
// CHECK: [[@LINE-11]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-11]]: {{.*}}; model: at 256 threads 48 -> 48 of 96 warp-steps issue the work, predicted 0.{{[0-9]+}}x; declined: a case is predicted below 0.99x (rules/costs.json) [WW3001]

// No launch in the file: whether it pays depends on the block size.
__global__ void unlaunched(int *data) {
  __shared__ int s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[tid];
  __syncthreads();
  for (unsigned j = 16; j > 0; j /= 2) {
    unsigned p = tid ^ j;
    if (p > tid)
      s[p] += s[tid];
    __syncthreads();
  }
  data[tid] = s[tid];
}
// CHECK: [[@LINE-6]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-6]]: {{.*}}; but no launch of `unlaunched` has a block size warpwise can read, and whether packing pays depends on it (--block-size gives one); declined [WW3001]

void run(int *d, int blocks) {
  small_strides<<<blocks, N>>>(d);
  wide_strides<<<blocks, N>>>(d);
}
