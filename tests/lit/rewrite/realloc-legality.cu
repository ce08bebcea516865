// Thread reallocation hands the pair of the i-th thread that passes a
// partner guard `tid ^ j > tid` to thread i. That is only the same program
// when each pair's work is unchanged and nothing can see which thread did
// it. Each kernel below breaks one condition (the first breaks none).
// Forced, so that only legality decides.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms realloc -o %t.cu 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o

#define N 256

__global__ void packed(float *data) {
  __shared__ float s[N];
  const unsigned tid = threadIdx.x;
  s[tid] = data[blockIdx.x * N + tid];
  __syncthreads();
  for (unsigned k = 2; k <= N; k *= 2) {
    for (unsigned j = k / 2; j > 0; j /= 2) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        float a = s[tid], b = s[ixj];
        if (((tid & k) == 0) == (b < a)) {
          s[tid] = b;
          s[ixj] = a;
        }
      }
      __syncthreads();
    }
  }
  data[blockIdx.x * N + tid] = s[tid];
}
// CHECK: [[@LINE-12]]:7: remark: realloc: the partner guard `ixj > tid` at line [[@LINE-12]]: each pair is worked on by one thread as before, in the same barrier interval (a __syncthreads() follows, and nothing since the last one touches memory); the work names the thread only through `tid` and `ixj`, and the distance is the same in every thread; applied because of --force-transforms (profitability was not checked) [WW4001]
// CODE: const unsigned ww_stride22 = (ixj) ^ tid;
// CODE-NEXT: const bool ww_packed22 =
// CODE-NEXT: ww_stride22 != 0u && (ww_stride22 & (ww_stride22 - 1u)) == 0u;
// CODE-NEXT: const unsigned ww_first22 =
// CODE-NEXT: ww_packed22 ? 2u * tid - (tid & (ww_stride22 - 1u)) : tid;
// CODE-NEXT: if (ww_packed22 ? ww_first22 < blockDim.x : (ixj > tid)) {
// CODE-NEXT: const unsigned int tid = ww_first22;
// CODE-NEXT: const unsigned int ixj = ww_first22 ^ ww_stride22;

// The distance depends on the thread.
__global__ void thread_distance(float *s) {
  unsigned tid = threadIdx.x;
  for (unsigned j = 1; j < 32; j *= 2) {
    unsigned p = tid ^ (tid & j);
    if (p > tid)
      s[tid] += s[p];
    __syncthreads();
  }
}
// CHECK: [[@LINE-5]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-5]]: not packed: the partner's distance `(tid & j)` may differ between the threads of a block [WW3001]

// A distance read from memory may differ between threads.
__global__ void loaded_distance(float *s, const unsigned *dist) {
  unsigned tid = threadIdx.x;
  unsigned j = dist[tid];
  __syncthreads();
  if ((tid ^ j) > tid)
    s[tid] += s[tid ^ j];
  __syncthreads();
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `(tid ^ j) > tid` at line [[@LINE-4]]: not packed: the partner's distance `j` may differ between the threads of a block [WW3001]

// An early return: the threads that left cannot take over work.
__global__ void early_return(float *s, int n) {
  unsigned tid = threadIdx.x;
  if (tid >= n)
    return;
  for (unsigned j = 1; j < 32; j *= 2) {
    unsigned p = tid ^ j;
    if (p > tid)
      s[tid] += s[p];
    __syncthreads();
  }
}
// CHECK: [[@LINE-5]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-5]]: not packed: the kernel has a return, so not every thread may reach the guard [WW3001]

// No barrier after the guard: the code after it reads what the pair's work
// wrote, expecting this thread's own work.
__global__ void no_barrier_after(float *s, float *out) {
  unsigned tid = threadIdx.x;
  unsigned p = tid ^ 1u;
  if (p > tid)
    s[tid] = s[p];
  out[tid] = s[tid];
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-4]]: not packed: no __syncthreads() follows the guard, so code after it could see which thread did the work [WW3001]

// A store before the guard in the same barrier interval.
__global__ void memory_before(float *s) {
  unsigned tid = threadIdx.x;
  s[tid] = 1.0f;
  unsigned p = tid ^ 2u;
  if (p > tid)
    s[p] += 1.0f;
  __syncthreads();
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-4]]: not packed: code before the guard in the same barrier interval touches memory, so it could see which thread does the work [WW3001]

// The work reads threadIdx.x itself.
__global__ void reads_thread_index(float *s) {
  unsigned tid = threadIdx.x;
  unsigned p = tid ^ 4u;
  if (p > tid)
    s[p] = threadIdx.x;
  __syncthreads();
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-4]]: not packed: the guarded code may depend on which thread runs it: it reads threadIdx.x itself [WW3001]

// The work reads a variable derived from the thread index.
__global__ void reads_thread_value(float *s) {
  unsigned tid = threadIdx.x;
  unsigned twice = 2 * tid;
  unsigned p = tid ^ 4u;
  if (p > tid)
    s[p] = twice;
  __syncthreads();
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-4]]: not packed: the guarded code may depend on which thread runs it: it reads `twice`, which may differ between threads (only the thread index `tid` and the partner `p` may name the thread) [WW3001]

// The work leaves a value in a variable of the thread.
__global__ void writes_thread_variable(float *s, float *out) {
  unsigned tid = threadIdx.x;
  float kept = 0;
  unsigned p = tid ^ 8u;
  if (p > tid)
    kept = s[p];
  __syncthreads();
  out[tid] = kept;
}
// CHECK: [[@LINE-5]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-5]]: not packed: the guarded code may depend on which thread runs it: the guarded code writes `kept`, a variable of the thread that outlives it [WW3001]

// A shuffle depends on the lanes that run it.
__global__ void shuffles(float *s) {
  unsigned tid = threadIdx.x;
  unsigned p = tid ^ 16u;
  if (p > tid)
    s[p] = __shfl_xor_sync(0xffffffffu, s[tid], 1);
  __syncthreads();
}
// CHECK: [[@LINE-4]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-4]]: not packed: the guarded code may depend on which thread runs it: it calls `__shfl_xor_sync`, which depends on the thread's place in its warp or block [WW3001]

// A branch around the guard leaves threads out.
__global__ void guarded(float *s, int n) {
  unsigned tid = threadIdx.x;
  if (n > 4) {
    unsigned p = tid ^ 1u;
    if (p > tid)
      s[p] += 1.0f;
    __syncthreads();
  }
}
// CHECK: [[@LINE-5]]:5: remark: realloc: the partner guard `p > tid` at line [[@LINE-5]]: not packed: a branch or a while loop around it may leave some threads out [WW3001]

// The other threads run the else side.
__global__ void with_else(float *s) {
  unsigned tid = threadIdx.x;
  unsigned p = tid ^ 1u;
  if (p > tid)
    s[p] += 1.0f;
  else
    s[tid] -= 1.0f;
  __syncthreads();
}
// CHECK: [[@LINE-6]]:3: remark: realloc: the partner guard `p > tid` at line [[@LINE-6]]: not packed: the guard has an else side, which the other threads run [WW3001]

// Not the thread index: a global index is not packed.
__global__ void global_index(float *s) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = i ^ 1u;
  if (p > i)
    s[p] += 1.0f;
  __syncthreads();
}
// CHECK-NOT: line [[@LINE-4]]
