// Every level of the lattice and every rule of the divergence analysis, with
// the verdicts checked line by line.
// RUN: %warpwise analyze %s --no-ptxas > %t.out 2>&1
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.out | FileCheck %s

__device__ int pick(int x, int *out) {
  if (x > 3) {
    *out = x;
    return 1;
  }
  return 0;
}

__global__ void levels(float *a, const int *data, int n, int m) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = threadIdx.x / 32;
  if (n > 3)
    a[0] = 1;
  if (blockIdx.x > 2)
    a[1] = 2;
  if (warp % 2)
    a[2] = 3;
  if (tid < n)
    a[tid] = 4;
  // Temporal divergence: s leaves a loop whose exit is divergent.
  int s = 0;
  for (int i = 0; i < m; ++i) {
    s += data[i];
    if (data[tid] > 5)
      break;
  }
  if (s > 10)
    a[3] = 5;
  // Sync dependence: u is assigned under a divergent branch; inner is
  // declared inside it, so it stays uniform there.
  int u = 0;
  if (tid & 1) {
    int inner = 7;
    if (inner > m)
      a[4] = 1;
    u = 1;
  }
  if (u)
    a[5] = 2;
  // Device-function contexts: uniform arguments, uniform result.
  int o = 0;
  int r = pick(m, &o);
  if (r)
    a[6] = 1;
  int q = pick(tid, &o);
  if (q)
    a[7] = 1;
  // A warp-wide vote is warp-uniform; threadIdx.y is warp-uniform when the
  // block is 32 wide.
  unsigned ballot = __ballot_sync(0xffffffffu, tid & 1);
  if (ballot != 0)
    a[8] = 1;
  if (threadIdx.y > 1)
    a[9] = 1;
  // Atomics return a different value to every thread.
  int ticket = atomicAdd((int *)data, 1);
  if (ticket == 0)
    a[10] = 1;
}

void launch(float *a, const int *d, int n) {
  dim3 block(32, 8);
  levels<<<n / 256, block>>>(a, d, n, 4);
}

// CHECK: kernel levels (line 14)
// CHECK: if at 17:3: uniform
// CHECK: if at 19:3: block-uniform - the condition depends on `blockIdx.x`
// CHECK: if at 21:3: warp-uniform - `warp` (line 16) depends on a warp index {{.*}}blockDim.x is a multiple of 32 in the launch at line 68
// CHECK: if at 23:3: divergent - `tid` (line 15) depends on `threadIdx.x`
// CHECK: for loop at 27:3: divergent - the loop has a divergent `break` at line 30 under the divergent `if` at line 29, where the condition depends on a load at a divergent address
// CHECK: if at 32:3: divergent - `s` (line 26) is assigned under the divergent `for` loop at line 27
// CHECK: if at 37:3: divergent - `tid` (line 15) depends on `threadIdx.x`
// CHECK: if at 39:5: uniform
// CHECK: if at 43:3: divergent - `u` (line 36) is assigned under the divergent `if` at line 37
// CHECK: if at 48:3: uniform
// CHECK: if at 51:3: divergent - `q` (line 50) depends on the result of `pick` (line 50), which is divergent
// CHECK: if at 56:3: warp-uniform - `ballot` (line 55) depends on `__ballot_sync`, the same in every lane
// CHECK: if at 58:3: warp-uniform - the condition depends on `threadIdx.y`, uniform within each warp because blockDim.x is a multiple of 32 in the launch at line 68
// CHECK: if at 62:3: divergent - `ticket` (line 61) depends on `atomicAdd` (line 61)
// CHECK: __device__ pick (line 6), 2 calling contexts
// CHECK: if at 7:3: divergent
