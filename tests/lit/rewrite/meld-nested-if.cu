// Bitonic compare-exchange: each side is an if-then region with the same
// body. Melding leaves one guarded swap with a selected comparison.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void exchange(int *data, unsigned size, unsigned stride) {
  __shared__ int tile[256];
  unsigned tid = threadIdx.x;
  tile[tid] = data[tid];
  __syncthreads();
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
  data[tid] = tile[tid];
}

// CHECK:      // warpwise: melded the two sides of the divergent if-else at line {{[0-9]+}} [WW4001]
// CHECK-NEXT: const bool ww_cond_[[L:[0-9]+]] = (tid & size) == 0;
// CHECK-NEXT: if ((ww_cond_[[L]] ? b < a : b > a)) {
// CHECK-NEXT:   tile[tid] = b;
// CHECK-NEXT:   tile[partner] = a;
// CHECK-NEXT: }
// CHECK-NEXT: }

// The outer `if (partner > tid)` has no else: nothing to merge, no remark.
// REMARK-NOT: line 17
// REMARK: meld: if-else at line {{[0-9]+}} is divergent {{.*}}1 of them control-flow regions{{.*}}applied [WW4001]
