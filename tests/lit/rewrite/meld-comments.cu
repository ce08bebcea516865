// The user's comments in a melded if-else are all kept, each with what it
// described: in merged loops and inner branches, comments on their own
// lines (`for (...) { // each row`) go under the merged header, labelled with
// the side they were on unless both sides had the same; those above and at
// the end of a statement go with the merged statement; one in a loop header
// goes above the merged loop. In the branch-free form a statement's
// comments go above the store it became part of, an inner branch's with its
// condition. The decision's comment stays a block of its own. Rewriting the
// output again changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms meld --force-transforms --meld-form merged -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms meld --force-transforms --meld-form merged -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite --fmad=false %s --transforms meld --force-transforms --meld-form branch-free -o %t.bf.cu 2> %t.bf.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.bf.cu > %t.bf.code
// RUN: FileCheck %s --check-prefix=BF --input-file %t.bf.code
// RUN: %warpwise rewrite --fmad=false %t.bf.cu --transforms meld --force-transforms --meld-form branch-free -o %t.bf.again.cu 2> %t.bf.again.err
// RUN: cmp %t.bf.cu %t.bf.again.cu
// RUN: %nvcc -arch=sm_90 -c %t.bf.cu -o %t.bf.90.o

__global__ void rows(const float *__restrict__ a, const float *__restrict__ b,
                     float *__restrict__ s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0;
  // one row per lane
  if (threadIdx.x % 2) { // odd: row sums of a
    for (int r = 0; r < n; ++r) { // each row
      s0 += a[r * 64 + i]; // from a
      if (s0 > 100.0f) { // clamp
        s0 = 100.0f;
      }
    }
  } else { // even: row sums of b
    // the same loop
    for (int r = 0; /* all rows */ r < n; ++r) { // each row
      s0 += b[r * 64 + i]; // from b
      if (s0 > 50.0f) { // clamp lower
        s0 = 50.0f;
      }
    }
  }
  s[i] = s0;
}

// CHECK-LABEL: __global__ void rows(
// CHECK:      // one row per lane
// CHECK-NEXT: {
// CHECK-NEXT:   // warpwise WW4001 meld.rows.{{[0-9]+}}: melded the two sides of a divergent if-else;
// CHECK-NEXT:   // forced: profitability was not checked
// CHECK-NEXT:   const bool ww_cond_[[L:[0-9]+]] = threadIdx.x % 2;
// CHECK-NEXT:   // ww_cond_[[L]]: odd: row sums of a
// CHECK-NEXT:   // !ww_cond_[[L]]: even: row sums of b
// CHECK-NEXT:   // the same loop
// CHECK-NEXT:   /* all rows */
// CHECK-NEXT:   for (int r = 0; r < n; ++r) {
// CHECK-NEXT:     // each row
// CHECK-NEXT:     // from a
// CHECK-NEXT:     // from b
// CHECK-NEXT:     s0 += (ww_cond_[[L]] ? a : b)[r * 64 + i];
// CHECK-NEXT:     if (s0 > (ww_cond_[[L]] ? 100.0f : 50.0f)) {
// CHECK-NEXT:       // ww_cond_[[L]]: clamp
// CHECK-NEXT:       // !ww_cond_[[L]]: clamp lower
// CHECK-NEXT:       s0 = (ww_cond_[[L]] ? 100.0f : 50.0f);
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: s[i] = s0;

__device__ void swap_ints(int &a, int &b) {
  int t = a;
  a = b;
  b = t;
}

__global__ void exchange(int *data, unsigned stride) {
  __shared__ int tile[256];
  unsigned tid = threadIdx.x;
  tile[tid] = data[tid];
  __syncthreads();
  unsigned partner = tid ^ stride;
  int a = tile[tid], b = tile[partner];
  if (tid & 1 // lanes that sort up
      ) { // ascending
    // out of order?
    if (a > b) // a first
      swap_ints(tile[tid], tile[partner]); // exchange
  } else { // descending
    if (a < b)
      swap_ints(tile[tid], tile[partner]);
  }
  __syncthreads();
  data[tid] = tile[tid];
}

// CHECK-LABEL: __global__ void exchange(
// CHECK:      const bool ww_cond_[[E:[0-9]+]] = tid & 1; // lanes that sort up
// CHECK-NEXT: // ww_cond_[[E]]: ascending
// CHECK-NEXT: // !ww_cond_[[E]]: descending
// CHECK-NEXT: // out of order?
// CHECK-NEXT: if ((ww_cond_[[E]] ? a > b : a < b)) {
// CHECK-NEXT:   // ww_cond_[[E]]: a first
// CHECK-NEXT:   swap_ints(tile[tid], tile[partner]); // exchange
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: __syncthreads();

// BF-LABEL: __global__ void exchange(
// BF:      // warpwise WW4001 meld.exchange.{{[0-9]+}}: made a divergent if-else branch-free;
// BF-NEXT: // forced: profitability was not checked (each location stored once; a path
// BF-NEXT: // that stored nothing writes back what it read)
// BF-NEXT: // lanes that sort up
// BF-NEXT: const bool ww_c[[E:[0-9]+]]_0 = tid & 1;
// BF-NEXT: // ww_c[[E]]_0: ascending
// BF-NEXT: // !ww_c[[E]]_0: descending
// BF-NEXT: // out of order?
// BF-NEXT: const bool ww_c[[E]]_1 = a > b;
// BF-NEXT: // ww_c[[E]]_1: a first
// BF-NEXT: const bool ww_c[[E]]_2 = a < b;
// BF-NEXT: const auto ww_old[[E]]_0 = tile[tid];
// BF-NEXT: const auto ww_old[[E]]_1 = tile[partner];
// BF-NEXT: // exchange
// BF-NEXT: tile[tid] =

int main() {
  float *a, *b, *s;
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 4096);
  cudaMalloc(&s, 4096);
  rows<<<1, 64>>>(a, b, s, 8);
  int *d;
  cudaMalloc(&d, 1024);
  exchange<<<1, 256>>>(d, 1);
}

// --fmad=false: at nvcc's default a rewrite here may be declined, as nvcc
// rounds its float arithmetic differently after it; this test is about
// the comments in the rewritten text (fmad-contraction.cu is about that).
