//===- omp_support.cuh - run-time support of offload's outputs -*- CUDA -*-===//
//
// What every file `warpwise offload` writes (with at least one loop offloaded)
// needs at run time: the CUDA error check around each call, the optional
// kernel timing (-DWARPWISE_OFFLOAD_TIMING), the disjointness test of two host
// ranges, the grid size, and the block reduction with its operators.
//
// Part of offload.cuh, which warpwise writes, with its parts inlined, as
// warpwise_offload.cuh beside each output. Its names all begin with ww_omp_
// or WW_OMP_; the guard keeps one copy where a program includes two outputs
// in one unit.
//
//===----------------------------------------------------------------------===//

#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#ifndef WW_OMP_SUPPORT
#define WW_OMP_SUPPORT
#define WW_OMP_CHECK(call)                                                     \
  do {                                                                         \
    cudaError_t ww_err = (call);                                               \
    if (ww_err != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,           \
              cudaGetErrorString(ww_err));                                     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#ifdef WARPWISE_OFFLOAD_TIMING
#define WW_OMP_TIME_BEGIN                                                      \
  cudaEvent_t ww_t0, ww_t1;                                                    \
  cudaEventCreate(&ww_t0);                                                     \
  cudaEventCreate(&ww_t1);                                                     \
  cudaEventRecord(ww_t0);
#define WW_OMP_TIME_END(name)                                                  \
  {                                                                            \
    float ww_ms = 0;                                                           \
    cudaEventRecord(ww_t1);                                                    \
    cudaEventSynchronize(ww_t1);                                               \
    cudaEventElapsedTime(&ww_ms, ww_t0, ww_t1);                                \
    fprintf(stderr, "kernel_ms %s %.6f\n", name, ww_ms);                       \
    cudaEventDestroy(ww_t0);                                                   \
    cudaEventDestroy(ww_t1);                                                   \
  }
#else
#define WW_OMP_TIME_BEGIN
#define WW_OMP_TIME_END(name)
#endif
/// Whether two host ranges are apart (then separate device copies are
/// exact).
inline bool ww_omp_disjoint(const void *a, size_t a_bytes,
                                   const void *b, size_t b_bytes) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x + a_bytes <= y || y + b_bytes <= x;
}
/// Page-locks the \p bytes at \p p for the region's \p copies of them, where
/// they move at least \p min_bytes in all (rules/offload.json,
/// pin_min_copied_bytes): a pageable copy goes through the driver's staging
/// buffer at a fraction of the bus's speed. Memory that cannot be locked
/// (already locked, by the program or for an overlapping array) keeps its
/// pageable copies.
inline bool ww_omp_pin(const void *p, size_t bytes, int copies,
                       unsigned long long min_bytes) {
  if (bytes == 0 || (unsigned long long)bytes * copies < min_bytes)
    return false;
  if (cudaHostRegister((void *)p, bytes, cudaHostRegisterDefault) ==
      cudaSuccess)
    return true;
  (void)cudaGetLastError(); // Not an error of the program's: clear it.
  return false;
}
inline void ww_omp_unpin(const void *p) {
  WW_OMP_CHECK(cudaHostUnregister((void *)p));
}
/// Blocks for \p n items of \p per_block each, at least 1, at most \p cap.
inline unsigned ww_omp_blocks(long long n, unsigned per_block,
                                     unsigned cap) {
  long long b = (n + per_block - 1) / per_block;
  return b < 1 ? 1u : b > (long long)cap ? cap : (unsigned)b;
}
struct ww_omp_plus {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct ww_omp_times {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a * b;
  }
};
struct ww_omp_min {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct ww_omp_max {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
/// The reduction of \p v over the block (blockDim a multiple of 32): warp
/// shuffles, then the warps' results through shared memory. Valid in thread
/// 0. Every thread of the block must call it.
template <class T, class Op>
__device__ T ww_omp_block_reduce(T v, Op op, T identity) {
  __shared__ T ww_warp_results[32];
  unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  __syncthreads(); // an earlier reduction may still read ww_warp_results
  for (int o = 16; o > 0; o >>= 1)
    v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  if (tid % 32 == 0)
    ww_warp_results[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < threads / 32 ? ww_warp_results[tid] : identity;
    for (int o = 16; o > 0; o >>= 1)
      v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}
#endif
