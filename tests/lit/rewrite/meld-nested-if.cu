// Bitonic compare-exchange: each side is an if-then region with the same
// body. Melding leaves one guarded swap with a selected comparison; the
// branch-free form stores both slots unconditionally, which is legal because
// the thread read both (into a and b) in the same barrier interval under the
// same guard. One exchange per launch is bound by its global loads and
// stores, so by default neither form is applied; both are checked forced.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.plain.cu 2> %t.plain.err
// RUN: cmp %s %t.plain.cu
// RUN: FileCheck %s --check-prefix=PLAIN --input-file %t.plain.err
// RUN: %warpwise rewrite %s --force-transforms --meld-form merged -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite %s --force-transforms --meld-form branch-free -o %t.bf.cu 2> %t.bf.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.bf.cu > %t.bf.code
// RUN: FileCheck %s --check-prefix=BF --input-file %t.bf.code
// RUN: FileCheck %s --check-prefix=BF-REMARK --input-file %t.bf.err
// RUN: %nvcc -arch=sm_90 -c %t.bf.cu -o %t.bf.90.o

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

// CHECK:      // warpwise WW4001 meld.exchange.{{[0-9]+}}: melded the two sides of a divergent
// CHECK-NEXT: // if-else; forced: profitability was not checked
// CHECK-NEXT: const bool ww_cond_[[L:[0-9]+]] = (tid & size) == 0;
// CHECK-NEXT: if ((ww_cond_[[L]] ? b < a : b > a)) {
// CHECK-NEXT:   tile[tid] = b;
// CHECK-NEXT:   tile[partner] = a;
// CHECK-NEXT: }
// CHECK-NEXT: }

// The outer `if (partner > tid)` has no else: nothing to merge, no remark.
// REMARK-NOT: line 29
// REMARK: meld: if-else at line {{[0-9]+}} is divergent{{.*}}1 of them control-flow regions{{.*}}applied because of --force-transforms{{.*}}[WW4001]

// PLAIN: meld: if-else at line {{[0-9]+}} is divergent; similarity 0.73 {{.*}}; model: `exchange` is bound by memory traffic, not issue (2 global accesses outside loops: {{[0-9]+}} slot-equivalents per warp against {{[0-9]+}} issue slots), so issue saved there does not shorten it; declined [WW3001]
// PLAIN-NOT: model: `exchange` is bound

// BF:      // warpwise WW4001 meld.exchange.{{[0-9]+}}: made a divergent if-else branch-free;
// BF-NEXT: // forced: profitability was not checked (each location stored once; a
// BF-NEXT: // path that stored nothing writes back what it read)
// BF-NEXT: const bool ww_c[[L:[0-9]+]]_0 = (tid & size) == 0;
// BF-NEXT: const bool ww_c[[L]]_1 = b < a;
// BF-NEXT: const bool ww_c[[L]]_2 = b > a;
// BF-NEXT: tile[tid] = (ww_c[[L]]_0 ? (ww_c[[L]]_1 ? b : a) : (ww_c[[L]]_2 ? b : a));
// BF-NEXT: tile[partner] = (ww_c[[L]]_0 ? (ww_c[[L]]_1 ? a : b) : (ww_c[[L]]_2 ? a : b));
// BF-NEXT: }
// BF-NEXT: }

// BF-REMARK: meld: if-else at line {{[0-9]+}} is divergent; {{.*}}; branch-free form: 2 location(s) stored unconditionally, 3 condition(s) evaluated once; store speculation is legal because `tile[tid]`, `tile[partner]` are read by the same thread before the branch (line {{[0-9]+}}) in the same barrier interval under the same guard, so a racing writer would already make the original racy; no volatile or atomic access; every storing path stores them in the same order; applied because of --force-transforms (profitability was not checked)
