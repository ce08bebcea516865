// The branch-free form stores every location on every path, so it is only
// produced when a store the original did not make cannot overwrite another
// thread's write: each location is read by the same thread on every path of
// the branch, or before it in the same barrier interval under the same
// guard; no volatile access; every storing path stores the same locations
// in the same order. Each kernel below breaks one condition (the last one
// breaks none). Forced, so that only legality decides.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms meld --meld-form branch-free -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

__device__ void swap_ints(int &a, int &b) {
  int t = a;
  a = b;
  b = t;
}

__device__ void not_a_swap(int &a, int &b) {
  a = b;
  b = b + 1;
}

// The thread never reads out[t]: a store on the path that did not store
// could overwrite another thread's value.
__global__ void never_read(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[t];
  if (t & 1) {
    if (v > 0)
      out[t] = v;
  } else {
    if (v < 0)
      out[t] = -v;
  }
}
// CHECK: {{[0-9]+}}:3: remark: meld: if-else at line {{[0-9]+}} is divergent, but cannot be made branch-free (--meld-form branch-free): `out[t]` is stored, but this thread does not read it on every path or before the branch in the same barrier interval, so a store the original did not make could overwrite another thread's write [WW3001]

// Read before a barrier: another thread may write s[t] after it.
__global__ void across_barrier(int *data) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  int a = s[t];
  __syncthreads();
  if (t & 1) {
    if (a > 0)
      s[t] = a - 1;
  } else {
    if (a < 0)
      s[t] = a + 1;
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: {{[0-9]+}}:3: remark: meld: {{.*}}cannot be made branch-free (--meld-form branch-free): `s[t]` is stored, but this thread does not read it on every path or before the branch in the same barrier interval{{.*}}[WW3001]

// A store between the read and the branch ends what the read proves.
__global__ void store_between(int *data) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  int a = s[t];
  s[t ^ 1] = 0;
  if (t & 1) {
    if (a > 0)
      s[t] = a - 1;
  } else {
    if (a < 0)
      s[t] = a + 1;
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: {{[0-9]+}}:3: remark: meld: {{.*}}cannot be made branch-free (--meld-form branch-free): `s[t]` is stored, but this thread does not read it{{.*}}[WW3001]

// The two sides store different locations: if they were the same memory,
// writing the old value back on one path would undo the other's store.
__global__ void different_locations(int *data, int k) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  int a = s[t], b = s[t ^ k];
  if (t & 1) {
    if (a > b)
      s[t] = b;
  } else {
    if (a < b)
      s[t ^ k] = a;
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: remark: meld: {{.*}}cannot be made branch-free (--meld-form branch-free): paths that store different locations (a location that one path stores and another does not could be the same memory) (line {{[0-9]+}}) [WW3001]

// Volatile shared memory.
__global__ void volatile_slots(int *data) {
  volatile __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  if (t & 1) {
    if (s[t ^ 1] < s[t])
      s[t] = 0;
  } else {
    if (s[t ^ 1] > s[t])
      s[t] = 1;
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: remark: meld: {{.*}}cannot be made branch-free (--meld-form branch-free): {{.*}}volatile{{.*}}[WW3001]

// A call that does more than exchange two values.
__global__ void calls_other(int *data) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  unsigned p = t ^ 1;
  if (p > t) {
    if (t & 2) {
      if (s[p] < s[t])
        not_a_swap(s[t], s[p]);
    } else {
      if (s[p] > s[t])
        not_a_swap(s[t], s[p]);
    }
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: remark: meld: {{.*}}cannot be made branch-free (--meld-form branch-free): a call that is not a plain swap of two locations (line {{[0-9]+}}) [WW3001]

// Seed 004's figure 1: both slots are read in the conditions on every path.
__global__ void figure_one(int *data) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  unsigned p = t ^ 1;
  if (p > t) {
    if ((t & 2) == 0) {
      if (s[p] < s[t])
        swap_ints(s[t], s[p]);
    } else {
      if (s[p] > s[t])
        swap_ints(s[t], s[p]);
    }
  }
  __syncthreads();
  data[t] = s[t];
}
// CHECK: remark: meld: {{.*}}branch-free form: 2 location(s) stored unconditionally, 3 condition(s) evaluated once; store speculation is legal because `s[t]`, `s[p]` are read by the same thread on every path of the branch, so a racing writer would already make the original racy; no volatile or atomic access; every storing path stores them in the same order; applied because of --force-transforms (profitability was not checked) [WW4001]
