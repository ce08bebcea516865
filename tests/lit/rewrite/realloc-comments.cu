// Thread reallocation keeps the user's comments next to what they describe:
// the lines above the guard stay right above it (the packing goes above
// them), a comment on the guard's `{` line stays on it (the index shadows go
// below it), and a guard without braces gets its `{` on the guard's line,
// ahead of the comment there, and its `}` after the comment ending the
// guarded statement. Rewriting the output again changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms realloc --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms realloc --force-transforms -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#define N 256

__global__ void sort_step(int *data) {
  __shared__ int s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned j = 16; j > 0; j /= 2) {
    unsigned p = tid ^ j; // the partner
    // compare the pair and swap it
    if (p > tid) { // the lower thread works
      int a = s[tid], b = s[p]; // both values
      if (b < a) {
        s[tid] = b;
        s[p] = a;
      }
    }
    __syncthreads();
  }
  data[blockIdx.x * N + tid] = s[tid];
}

// CHECK-LABEL: __global__ void sort_step(
// CHECK:      unsigned p = tid ^ j; // the partner
// CHECK-NEXT: // warpwise WW4001 realloc.sort_step.{{[0-9]+}}: the threads that pass this guard are
// CHECK:      const unsigned ww_first[[L:[0-9]+]] =
// CHECK-NEXT:     ww_packed[[L]] ? 2u * tid - (tid & (ww_stride[[L]] - 1u)) : tid;
// CHECK-NEXT: // compare the pair and swap it
// CHECK-NEXT: if (ww_packed[[L]] ? ww_first[[L]] < blockDim.x
// CHECK-NEXT:                 : (p > tid)) { // the lower thread works
// CHECK-NEXT:   const unsigned int tid = ww_first[[L]];
// CHECK-NEXT:   const unsigned int p = ww_first[[L]] ^ ww_stride[[L]];
// CHECK-NEXT:   int a = s[tid], b = s[p]; // both values

__global__ void min_step(int *data) {
  __shared__ int s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned j = 16; j > 0; j /= 2) {
    unsigned p = tid ^ j;
    if (p > tid) // lower thread
      s[tid] = s[tid] < s[p] ? s[tid] : s[p]; // keep the minimum
    __syncthreads();
  }
  data[blockIdx.x * N + tid] = s[tid];
}

// CHECK-LABEL: __global__ void min_step(
// CHECK:      if (ww_packed[[M:[0-9]+]] ? ww_first[[M]] < blockDim.x : (p > tid)) { // lower thread
// CHECK-NEXT:   const unsigned int tid = ww_first[[M]];
// CHECK-NEXT:   const unsigned int p = ww_first[[M]] ^ ww_stride[[M]];
// CHECK-NEXT:   s[tid] = s[tid] < s[p] ? s[tid] : s[p]; // keep the minimum
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();

int main() {
  int *d;
  cudaMalloc(&d, 4096);
  sort_step<<<1, N>>>(d);
  min_step<<<1, N>>>(d);
}

// --fmad=false: at nvcc's default a rewrite here may be declined, as nvcc
// rounds its float arithmetic differently after it; this test is about
// the comments in the rewritten text (fmad-contraction.cu is about that).
