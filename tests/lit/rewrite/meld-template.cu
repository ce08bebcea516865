// A template kernel instantiated for two block sizes: the register guard
// checks each instantiation (nvcc compiles them separately) at every block
// size the file launches it with, found in the instantiations of the
// launching template.
// REQUIRES: nvcc
// RUN: %warpwise analyze %s > %t.analysis 2>&1
// RUN: FileCheck %s --check-prefix=ANALYZE --input-file %t.analysis
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

template <unsigned TILE> __global__ void exchange(int *data, unsigned size) {
  __shared__ int tile[TILE];
  unsigned tid = threadIdx.x;
  tile[tid] = data[tid];
  __syncthreads();
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
  data[blockIdx.x * TILE + tid] = tile[tid];
}

template <unsigned TILE> void run(int *data, int tiles, unsigned size) {
  exchange<TILE><<<tiles, TILE>>>(data, size);
}

void run_all(int *data, unsigned size) {
  run<64>(data, 8, size);
  run<256>(data, 2, size);
}

// ANALYZE-NOT: WW2005
// ANALYZE: kernel exchange (line 15) [template]
// ANALYZE: at 256 threads (largest of 2 launch block sizes)
// ANALYZE: launch exchange<<<tiles, TILE>>> at line 43

// The model picks the branch-free form; its legality is proven on each
// instantiation (the pattern has no lvalue-to-rvalue conversions where the
// types depend on TILE).
// CHECK:      template <unsigned TILE> __global__ void exchange(int *data, unsigned size) {
// CHECK:      const bool ww_c[[L:[0-9]+]]_0 = (tid & size) == 0;
// CHECK:      tile[tid] = (ww_c[[L]]_0 ? (ww_c[[L]]_1 ? b : a) : (ww_c[[L]]_2 ? b : a));

// REMARK: meld: if-else at line 25 is divergent {{.*}}branch-free form: 2 location(s) stored unconditionally{{.*}}model (branch-free): {{.*}}exchange<64> at 64 threads: {{.*}}exchange<256> at 256 threads: {{.*}}`exchange` registers {{[0-9.]+}} -> {{[0-9.]+}} over 2 instantiations, no occupancy step lost at 64, 256 threads on sm_{{[0-9]+}}; SASS instructions {{.*}}applied [WW4001]
