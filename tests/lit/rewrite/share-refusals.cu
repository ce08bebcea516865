// Variable sharing's refusals (issue 15), each with the reason the remark
// gives; forced, so that only legality decides, and nothing is rewritten.
//  - a divergent definition: the table is block-uniform until a thread
//    changes an entry of its own copy;
//  - an early return before the fill when the fill loads memory;
//  - the shared budget: a 64 KiB table;
//  - side effects: the loop that fills the table also stores to memory;
//  - a value read before its fill is complete.
// A thread's own values (its index, what it loaded) are not mentioned.
// RUN: %warpwise rewrite %s -o %t.cu --force-transforms --transforms share --no-ptxas 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: cmp %s %t.cu
//
// CHECK:      remark: share: `divergent_entry`: no block-uniform value is shared; `bias` stays private: it is divergent: its value is computed under the divergent `if` at line {{[0-9]+}} (divergence analysis) [WW3004]
// CHECK-NEXT: remark: share: `early_return` (`coef`, filled at lines {{[0-9]+}}-{{[0-9]+}}): not shared: its fill loads memory, and the return at line [[#RET:]] comes first: moved above it, the fill would load in blocks whose threads all return, what the original never loads (early return before the fill) [WW3004]
// CHECK-NEXT: remark: share: `too_big` (`big`, filled at lines {{[0-9]+}}-{{[0-9]+}}): not shared: the shared copies need 65536 bytes per block, and with the kernel's 0 bytes that exceeds the 49152 bytes of shared memory a block may have on sm_90 (shared budget) [WW3004]
// CHECK-NEXT: remark: share: `fill_stores`: no block-uniform value is shared; `w` stays private: its fill at line {{[0-9]+}} has a store to memory through `hist` [WW3004]
// CHECK-NEXT: remark: share: `read_early`: no block-uniform value is shared; `w` stays private: it is read at line {{[0-9]+}} before its fill is complete (line {{[0-9]+}}) [WW3004]
// CHECK-NOT:  remark: share:

__global__ void divergent_entry(const int *idx, float *out, int n, float p) {
  float bias[8];
  for (int k = 0; k < 8; ++k)
    bias[k] = p * k;
  if (threadIdx.x & 1)
    bias[0] = 0.0f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = bias[idx[i]];
}

__global__ void early_return(const float *coefs, const int *idx, float *out,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float coef[16];
  for (int k = 0; k < 16; ++k)
    coef[k] = coefs[blockIdx.y * 16 + k];
  out[i] = coef[idx[i]];
}

__global__ void too_big(const int *idx, float *out, int n, float p) {
  float big[16384];
  for (int k = 0; k < 16384; ++k)
    big[k] = p * k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = big[idx[i]];
}

__global__ void fill_stores(const int *idx, int *hist, float *out, int n,
                            float p) {
  float w[16];
  for (int k = 0; k < 16; ++k) {
    w[k] = p * k;
    hist[k] = 0;
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = w[idx[i]];
}

__global__ void read_early(const int *idx, float *out, int n, float p) {
  float w[16];
  w[0] = p;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = w[0];
  for (int k = 1; k < 16; ++k)
    w[k] = w[k - 1] * p;
  if (i < n)
    out[i] = w[idx[i]];
}

// Per-thread values and an already-shared table: nothing to say.
__global__ void nothing_to_say(const float *in, float *out, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[4];
  for (int k = 0; k < 4; ++k)
    acc[k] = in[i * 4 + k];
  tile[threadIdx.x] = acc[i & 3];
  __syncthreads();
  for (int k = 0; k < 4; ++k)
    out[i] += tile[(threadIdx.x + k) % 256] * acc[k];
}
