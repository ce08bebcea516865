// cuda_cpu.h - a small CPU executor for CUDA kernels, for tests only.
//
// Force-included (g++ -include) into a sample whose `k<<<g, b>>>(args)`
// launches were turned into `ww_launch(k, g, b)(args)` by
// tests/equiv/cpu_build.sh. Every simulated thread of a block is a fiber
// (ucontext) with its own stack; blocks run one after another.
//
// Supported: threadIdx/blockIdx/blockDim/gridDim, __syncthreads (a real
// barrier over the block's live threads) and its _count/_and/_or forms,
// __shared__ (a static variable: one copy, shared by the block, reused by the
// next block), __constant__ and __device__ globals, atomics (trivially atomic:
// fibers switch only at barriers), warp intrinsics (__shfl*_sync,
// __ballot_sync, __any_sync, __all_sync, __syncwarp: barriers over the warp's
// live lanes; masks other than full warps are not checked), the runtime calls
// the samples use (cudaMalloc, cudaMemcpy, cudaMemset, cudaFree, events,
// cudaDeviceSynchronize, cudaGetLastError), and float intrinsics mapped to
// their exact libm counterparts.
//
// Events read a pretend GPU clock that only ww::elapse (called by a test's
// kernel) advances, so that elapsed times are 0 unless a test sets them. A
// test may also hold the events back (ww::holdEvents(): cudaEventQuery says
// cudaErrorNotReady for events recorded while held, until it lets go; a
// synchronization while held aborts, as it would wait forever), leave an
// error pending (ww::lastError()), have one stream captured
// (ww::capturingStream()), make cudaEventCreate fail (ww::failEventCreate())
// or pick the current device (ww::currentDevice()).
//
// Dynamic `extern __shared__ T name[];` arrays: cpu_build.py turns the
// declaration into a pointer to a per-launch buffer of the launch's size.
//
// Not supported (a test using them fails to compile or aborts): cooperative
// groups, streams running
// concurrently (launches are synchronous), textures, __nanosleep, clock().
#ifndef WARPWISE_CUDA_CPU_H
#define WARPWISE_CUDA_CPU_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
#define __constant__
#define __managed__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __CUDACC__WW_CPU 1

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct int2 { int x, y; };

typedef int cudaError_t;
enum {
  cudaSuccess = 0,
  cudaErrorMemoryAllocation = 2,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorNotReady = 600
};
typedef void *cudaStream_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
// The pretend GPU's time at the event's record (ms), and which record it
// was (0: never recorded).
typedef struct ww_event {
  double t;
  unsigned long long seq;
} *cudaEvent_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};

namespace ww {

const int WarpSize = 32;

struct Fiber {
  ucontext_t Ctx;
  std::vector<char> Stack;
  uint3 Tid;
  bool Done = false;
  int WaitingAt = 0; // 0 running, 1 block barrier, 2 warp barrier
  // Values exchanged by warp intrinsics.
  uint64_t Exchange = 0;
  int Pred = 0;
};

struct Block {
  std::vector<Fiber> Fibers;
  ucontext_t Scheduler;
  int Current = 0;
  uint3 BlockIdx;
  dim3 BlockDim, GridDim;
  std::function<void()> Body;
  // Results of the last __syncthreads_count/and/or.
  int BarrierCount = 0;
};

inline Block *&block() {
  static Block *B = nullptr;
  return B;
}
inline Fiber &self() { return block()->Fibers[block()->Current]; }

struct ThreadIdxProxy {
  operator uint3() const { return self().Tid; }
};

inline void entry() {
  block()->Body();
  self().Done = true;
  swapcontext(&self().Ctx, &block()->Scheduler);
}

inline int linearId(const uint3 &T) {
  const dim3 &D = block()->BlockDim;
  return T.x + T.y * D.x + T.z * D.x * D.y;
}

/// Waits until every live fiber of the group (block or warp) is waiting.
inline void wait(int Kind) {
  self().WaitingAt = Kind;
  swapcontext(&self().Ctx, &block()->Scheduler);
}

inline void runBlock(Block &B) {
  int N = B.BlockDim.x * B.BlockDim.y * B.BlockDim.z;
  B.Fibers.resize(N);
  for (int I = 0; I < N; ++I) {
    Fiber &F = B.Fibers[I];
    F.Done = false;
    F.WaitingAt = 0;
    F.Tid = {I % B.BlockDim.x, (I / B.BlockDim.x) % B.BlockDim.y,
             I / (B.BlockDim.x * B.BlockDim.y)};
    if (F.Stack.empty())
      F.Stack.resize(256 * 1024);
    getcontext(&F.Ctx);
    F.Ctx.uc_stack.ss_sp = F.Stack.data();
    F.Ctx.uc_stack.ss_size = F.Stack.size();
    F.Ctx.uc_link = nullptr;
    makecontext(&F.Ctx, (void (*)())entry, 0);
  }
  for (;;) {
    bool Progress = false;
    for (int I = 0; I < N; ++I) {
      Fiber &F = B.Fibers[I];
      if (F.Done || F.WaitingAt)
        continue;
      B.Current = I;
      swapcontext(&B.Scheduler, &F.Ctx);
      Progress = true;
    }
    // Everyone is done or waiting: release warp barriers first (a warp whose
    // live lanes all wait), then the block barrier.
    bool Released = false;
    for (int W = 0; W * WarpSize < N; ++W) {
      bool AllWait = true, Any = false;
      for (int I = W * WarpSize; I < N && I < (W + 1) * WarpSize; ++I) {
        if (B.Fibers[I].Done)
          continue;
        Any = true;
        AllWait &= B.Fibers[I].WaitingAt == 2;
      }
      if (Any && AllWait) {
        for (int I = W * WarpSize; I < N && I < (W + 1) * WarpSize; ++I)
          B.Fibers[I].WaitingAt = 0;
        Released = true;
      }
    }
    if (Released)
      continue;
    bool AllBlock = true, AnyLive = false;
    int Count = 0;
    for (Fiber &F : B.Fibers) {
      if (F.Done)
        continue;
      AnyLive = true;
      AllBlock &= F.WaitingAt == 1;
      Count += F.Pred;
    }
    if (!AnyLive)
      return;
    if (AllBlock) {
      B.BarrierCount = Count;
      for (Fiber &F : B.Fibers)
        F.WaitingAt = 0;
      continue;
    }
    if (!Progress) {
      fprintf(stderr, "cuda_cpu: deadlock: threads wait at different barriers\n");
      abort();
    }
  }
}

/// The dynamic shared memory of the running launch (blocks run one after
/// another, so one buffer serves them all, as one block's copy).
inline std::vector<unsigned char> &dynamicSharedBuffer() {
  static std::vector<unsigned char> Buffer;
  return Buffer;
}
inline void *dynamicShared() { return dynamicSharedBuffer().data(); }

template <class Kernel> struct Launcher {
  Kernel K;
  dim3 Grid, BlockD;
  size_t Shared = 0;
  template <class... Args> void operator()(Args... A) {
    dynamicSharedBuffer().assign(Shared + 16, 0xA5);
    Block B;
    B.BlockDim = BlockD;
    B.GridDim = Grid;
    block() = &B;
    B.Body = [&]() { K(A...); };
    for (unsigned Z = 0; Z < Grid.z; ++Z)
      for (unsigned Y = 0; Y < Grid.y; ++Y)
        for (unsigned X = 0; X < Grid.x; ++X) {
          B.BlockIdx = {X, Y, Z};
          runBlock(B);
        }
    block() = nullptr;
  }
};

} // namespace ww

template <class Kernel>
ww::Launcher<Kernel> ww_launch(Kernel K, dim3 Grid, dim3 Block,
                               size_t Shared = 0, cudaStream_t = 0) {
  return ww::Launcher<Kernel>{K, Grid, Block, Shared};
}
template <class Kernel>
ww::Launcher<Kernel> ww_launch(Kernel K, int Grid, int Block,
                               size_t Shared = 0, cudaStream_t S = 0) {
  return ww_launch(K, dim3(Grid), dim3(Block), Shared, S);
}
template <class Kernel>
ww::Launcher<Kernel> ww_launch(Kernel K, dim3 Grid, int Block,
                               size_t Shared = 0, cudaStream_t S = 0) {
  return ww_launch(K, Grid, dim3(Block), Shared, S);
}
template <class Kernel>
ww::Launcher<Kernel> ww_launch(Kernel K, int Grid, dim3 Block,
                               size_t Shared = 0, cudaStream_t S = 0) {
  return ww_launch(K, dim3(Grid), Block, Shared, S);
}

#define threadIdx (ww::self().Tid)
#define blockIdx (ww::block()->BlockIdx)
#define blockDim (ww::block()->BlockDim)
#define gridDim (ww::block()->GridDim)
#define warpSize 32

inline void __syncthreads() {
  ww::self().Pred = 0;
  ww::wait(1);
}
inline int __syncthreads_count(int P) {
  ww::self().Pred = P != 0;
  ww::wait(1);
  return ww::block()->BarrierCount;
}
inline int __syncthreads_or(int P) { return __syncthreads_count(P) != 0; }
inline int __syncthreads_and(int P) {
  int N = 0;
  for (ww::Fiber &F : ww::block()->Fibers)
    N += !F.Done;
  return __syncthreads_count(P) == N;
}
inline void __threadfence() {}
inline void __threadfence_system() {}
inline void __threadfence_block() {}

namespace ww {
/// All live lanes of the warp publish a value; returns the lane values.
inline std::vector<uint64_t> warpExchange(uint64_t V, int &LaneOut,
                                         std::vector<bool> &Live) {
  Block &B = *block();
  int Me = B.Current;
  int Base = (Me / WarpSize) * WarpSize;
  B.Fibers[Me].Exchange = V;
  wait(2);
  std::vector<uint64_t> Vals(WarpSize, 0);
  Live.assign(WarpSize, false);
  for (int L = 0; L < WarpSize && Base + L < (int)B.Fibers.size(); ++L) {
    Fiber &F = B.Fibers[Base + L];
    Vals[L] = F.Exchange;
    Live[L] = !F.Done;
  }
  LaneOut = Me - Base;
  // A second barrier so nobody overwrites Exchange before all have read.
  wait(2);
  return Vals;
}
template <class T> uint64_t bits(T V) {
  uint64_t U = 0;
  memcpy(&U, &V, sizeof(T));
  return U;
}
template <class T> T fromBits(uint64_t U) {
  T V;
  memcpy(&V, &U, sizeof(T));
  return V;
}
} // namespace ww

inline void __syncwarp(unsigned = 0xffffffffu) {
  int Lane;
  std::vector<bool> Live;
  ww::warpExchange(0, Lane, Live);
}
inline unsigned __ballot_sync(unsigned, int P) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(P != 0, Lane, Live);
  unsigned R = 0;
  for (int L = 0; L < ww::WarpSize; ++L)
    if (Live[L] && V[L])
      R |= 1u << L;
  return R;
}
inline int __any_sync(unsigned M, int P) { return __ballot_sync(M, P) != 0; }
inline int __all_sync(unsigned, int P) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(P != 0, Lane, Live);
  for (int L = 0; L < ww::WarpSize; ++L)
    if (Live[L] && !V[L])
      return 0;
  return 1;
}
template <class T> T ww_shfl(T Var, int SrcLane, int Width) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(ww::bits(Var), Lane, Live);
  int Base = Lane - Lane % Width;
  int Src = Base + ((SrcLane % Width) + Width) % Width;
  return ww::fromBits<T>(V[Src]);
}
template <class T> T __shfl_sync(unsigned, T Var, int Src, int Width = 32) {
  return ww_shfl(Var, Src, Width);
}
template <class T>
T __shfl_up_sync(unsigned, T Var, unsigned D, int Width = 32) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(ww::bits(Var), Lane, Live);
  int InSeg = Lane % Width;
  return InSeg >= (int)D ? ww::fromBits<T>(V[Lane - D]) : Var;
}
template <class T>
T __shfl_down_sync(unsigned, T Var, unsigned D, int Width = 32) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(ww::bits(Var), Lane, Live);
  int InSeg = Lane % Width;
  return InSeg + (int)D < Width ? ww::fromBits<T>(V[Lane + D]) : Var;
}
template <class T>
T __shfl_xor_sync(unsigned, T Var, int Mask, int Width = 32) {
  int Lane;
  std::vector<bool> Live;
  std::vector<uint64_t> V = ww::warpExchange(ww::bits(Var), Lane, Live);
  int Src = Lane ^ Mask;
  return (Src / Width == Lane / Width) ? ww::fromBits<T>(V[Src]) : Var;
}

// Atomics: fibers switch only at barriers, so plain read-modify-write is
// atomic here.
template <class T> T atomicAdd(T *P, T V) {
  T Old = *P;
  *P = Old + V;
  return Old;
}
template <class T> T atomicSub(T *P, T V) {
  T Old = *P;
  *P = Old - V;
  return Old;
}
template <class T> T atomicExch(T *P, T V) {
  T Old = *P;
  *P = V;
  return Old;
}
template <class T> T atomicMin(T *P, T V) {
  T Old = *P;
  *P = V < Old ? V : Old;
  return Old;
}
template <class T> T atomicMax(T *P, T V) {
  T Old = *P;
  *P = V > Old ? V : Old;
  return Old;
}
template <class T> T atomicCAS(T *P, T Cmp, T V) {
  T Old = *P;
  if (Old == Cmp)
    *P = V;
  return Old;
}
template <class T> T atomicOr(T *P, T V) {
  T Old = *P;
  *P = Old | V;
  return Old;
}
template <class T> T atomicAnd(T *P, T V) {
  T Old = *P;
  *P = Old & V;
  return Old;
}

inline int __popc(unsigned V) { return __builtin_popcount(V); }
inline int __clz(int V) { return V ? __builtin_clz((unsigned)V) : 32; }
inline int __ffs(int V) { return __builtin_ffs(V); }
inline float __fdividef(float A, float B) { return A / B; }
inline float __expf(float A) { return expf(A); }
inline float __logf(float A) { return logf(A); }
inline float __sinf(float A) { return sinf(A); }
inline float __cosf(float A) { return cosf(A); }
inline float __saturatef(float A) { return A < 0 ? 0 : A > 1 ? 1 : A; }
inline int __float2int_rn(float A) { return (int)nearbyintf(A); }
inline int __mul24(int A, int B) { return A * B; }
inline float rsqrtf(float A) { return 1.0f / sqrtf(A); }
// Round-to-nearest intrinsics are IEEE operations, as the host's are (no
// contraction: each is one rounding, as on the GPU).
inline float __fadd_rn(float A, float B) { return A + B; }
inline float __fsub_rn(float A, float B) { return A - B; }
inline float __fmul_rn(float A, float B) { return A * B; }
inline float __fdiv_rn(float A, float B) { return A / B; }
inline float __fmaf_rn(float A, float B, float C) { return fmaf(A, B, C); }
inline float __fsqrt_rn(float A) { return sqrtf(A); }
inline float __frcp_rn(float A) { return 1.0f / A; }
inline double __dadd_rn(double A, double B) { return A + B; }
inline double __dsub_rn(double A, double B) { return A - B; }
inline double __dmul_rn(double A, double B) { return A * B; }
inline double __ddiv_rn(double A, double B) { return A / B; }
inline double __fma_rn(double A, double B, double C) { return fma(A, B, C); }
inline double __dsqrt_rn(double A) { return sqrt(A); }
using std::max;
using std::min;

// Runtime API: device memory is host memory.
// Device memory starts as garbage, as on a GPU: a pattern no test's values
// take (1.5e127 as a double, 1.5e16 as a float, 1515870810 as an int), so
// that reading what no copy put there shows in the results.
inline cudaError_t cudaMalloc(void **P, size_t N) {
  *P = malloc(N ? N : 1);
  if (*P)
    memset(*P, 0x5A, N ? N : 1);
  return *P ? cudaSuccess : 2;
}
template <class T> cudaError_t cudaMalloc(T **P, size_t N) {
  return cudaMalloc((void **)P, N);
}
inline cudaError_t cudaFree(void *P) {
  free(P);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *D, const void *S, size_t N,
                              cudaMemcpyKind) {
  memmove(D, S, N);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy2D(void *D, size_t DPitch, const void *S,
                                size_t SPitch, size_t Width, size_t Height,
                                cudaMemcpyKind) {
  if (Width > DPitch || Width > SPitch)
    return 1; // cudaErrorInvalidValue, as CUDA answers.
  for (size_t R = 0; R < Height; ++R)
    memmove((char *)D + R * DPitch, (const char *)S + R * SPitch, Width);
  return cudaSuccess;
}
// cudaMemcpy3D between linear memory: positions and widths in bytes, as
// CUDA takes them where no CUDA array is involved.
struct cudaPitchedPtr {
  void *ptr;
  size_t pitch, xsize, ysize;
};
struct cudaPos {
  size_t x, y, z;
};
struct cudaExtent {
  size_t width, height, depth;
};
struct cudaMemcpy3DParms {
  void *srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  void *dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};
inline cudaPitchedPtr make_cudaPitchedPtr(void *P, size_t Pitch, size_t X,
                                          size_t Y) {
  return {P, Pitch, X, Y};
}
inline cudaPos make_cudaPos(size_t X, size_t Y, size_t Z) { return {X, Y, Z}; }
inline cudaExtent make_cudaExtent(size_t W, size_t H, size_t D) {
  return {W, H, D};
}
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *P) {
  const cudaPitchedPtr &S = P->srcPtr, &D = P->dstPtr;
  const cudaExtent &E = P->extent;
  if (P->srcPos.x + E.width > S.pitch || P->dstPos.x + E.width > D.pitch ||
      P->srcPos.y + E.height > S.ysize || P->dstPos.y + E.height > D.ysize)
    return 1; // cudaErrorInvalidValue.
  for (size_t Z = 0; Z < E.depth; ++Z)
    for (size_t Y = 0; Y < E.height; ++Y)
      memmove((char *)D.ptr + ((P->dstPos.z + Z) * D.ysize + P->dstPos.y + Y) *
                                  D.pitch +
                  P->dstPos.x,
              (const char *)S.ptr +
                  ((P->srcPos.z + Z) * S.ysize + P->srcPos.y + Y) * S.pitch +
                  P->srcPos.x,
              E.width);
  return cudaSuccess;
}
// Page-locking: the ranges locked, so that locking one twice fails and an
// unlock must match a lock, as CUDA answers.
enum { cudaHostRegisterDefault = 0 };
inline std::map<const void *, size_t> &wwCpuLocked() {
  static std::map<const void *, size_t> Locked;
  return Locked;
}
inline cudaError_t cudaHostRegister(void *P, size_t N, unsigned) {
  auto &L = wwCpuLocked();
  for (auto &[Q, M] : L)
    if ((const char *)P < (const char *)Q + M && (const char *)Q < (char *)P + N)
      return 712; // cudaErrorHostMemoryAlreadyRegistered.
  if (N == 0)
    return 1;
  L[P] = N;
  return cudaSuccess;
}
inline cudaError_t cudaHostUnregister(void *P) {
  return wwCpuLocked().erase(P) ? cudaSuccess : 713; // NotRegistered.
}
inline cudaError_t cudaMallocAsync(void **P, size_t N, cudaStream_t) {
  return cudaMalloc(P, N);
}
inline cudaError_t cudaFreeAsync(void *P, cudaStream_t) { return cudaFree(P); }
inline cudaError_t cudaMemsetAsync(void *D, int V, size_t N,
                                   cudaStream_t = 0) {
  memset(D, V, N);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *D, int V, size_t N) {
  memset(D, V, N);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyToSymbol(T &Sym, const void *S, size_t N,
                               size_t Off = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice) {
  memcpy((char *)&Sym + Off, S, N);
  return cudaSuccess;
}
// What tests set: see the top of this file.
namespace ww {
inline double &gpuClock() {
  static double Ms = 0;
  return Ms;
}
/// Called by a test's kernel: the launch takes \p Ms longer.
inline void elapse(double Ms) { gpuClock() += Ms; }
inline bool &holdEvents() {
  static bool Held = false;
  return Held;
}
inline unsigned long long &eventsRecorded() {
  static unsigned long long N = 0;
  return N;
}
/// Records up to this one have completed.
inline unsigned long long &eventsCompleted() {
  static unsigned long long N = 0;
  return N;
}
inline cudaError_t &lastError() {
  static cudaError_t E = cudaSuccess;
  return E;
}
inline cudaStream_t &capturingStream() {
  static cudaStream_t S = nullptr;
  return S;
}
inline bool &failEventCreate() {
  static bool Fail = false;
  return Fail;
}
inline int &currentDevice() {
  static int D = 0;
  return D;
}
/// The pretend GPU catches up with everything recorded, unless held.
inline void catchUp() {
  if (!holdEvents())
    eventsCompleted() = eventsRecorded();
}
inline void mustNotWait(const char *What) {
  if (holdEvents()) {
    fprintf(stderr, "cuda_cpu: %s while the test holds the events back\n",
            What);
    abort();
  }
}
} // namespace ww

inline cudaError_t cudaDeviceSynchronize() {
  ww::mustNotWait("cudaDeviceSynchronize");
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
  cudaError_t E = ww::lastError();
  ww::lastError() = cudaSuccess;
  return E;
}
inline cudaError_t cudaPeekAtLastError() { return ww::lastError(); }
inline const char *cudaGetErrorString(cudaError_t E) {
  return E == cudaSuccess ? "no error" : "error";
}
inline cudaError_t cudaEventCreate(cudaEvent_t *E) {
  if (ww::failEventCreate())
    return ww::lastError() = cudaErrorMemoryAllocation;
  *E = new ww_event{0, 0};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t E, cudaStream_t = 0) {
  E->t = ww::gpuClock();
  E->seq = ++ww::eventsRecorded();
  ww::catchUp();
  return cudaSuccess;
}
inline cudaError_t cudaEventQuery(cudaEvent_t E) {
  ww::catchUp();
  return E->seq <= ww::eventsCompleted() ? cudaSuccess : cudaErrorNotReady;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
  ww::mustNotWait("cudaEventSynchronize");
  return cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t A,
                                        cudaEvent_t B) {
  if (cudaEventQuery(A) != cudaSuccess || cudaEventQuery(B) != cudaSuccess)
    return cudaErrorNotReady;
  *Ms = (float)(B->t - A->t);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t E) {
  delete E;
  return cudaSuccess;
}
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39
};
inline cudaError_t cudaGetDevice(int *D) {
  *D = ww::currentDevice();
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *V, cudaDeviceAttr A, int) {
  // A small pretend GPU (persistent kernels loop several times): 4 SMs of
  // 2048 thread slots.
  *V = A == cudaDevAttrMaxThreadsPerMultiProcessor ? 2048 : 4;
  return cudaSuccess;
}
template <class K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *N, K, int,
                                                          size_t) {
  *N = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int *N) {
  *N = 1;
  return cudaSuccess;
}
// Stream-ordered memory pools: allocation is plain malloc here.
typedef struct ww_mem_pool *cudaMemPool_t;
enum cudaMemAllocationType { cudaMemAllocationTypePinned = 1 };
enum cudaMemLocationType { cudaMemLocationTypeDevice = 1 };
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};
struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  int handleTypes;
  cudaMemLocation location;
};
struct ww_mem_pool {};
inline cudaError_t cudaMemPoolCreate(cudaMemPool_t *P,
                                     const cudaMemPoolProps *) {
  *P = new ww_mem_pool;
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr,
                                           void *) {
  return cudaSuccess;
}
inline cudaError_t cudaMallocFromPoolAsync(void **P, size_t N, cudaMemPool_t,
                                           cudaStream_t) {
  return cudaMalloc(P, N);
}
// Mapped host memory is host memory; no stream is captured here but the one
// a test names (ww::capturingStream()).
enum { cudaHostAllocDefault = 0, cudaHostAllocMapped = 2 };
inline cudaError_t cudaHostAlloc(void **P, size_t N, unsigned) {
  return cudaMalloc(P, N);
}
inline cudaError_t cudaHostGetDevicePointer(void **D, void *H, unsigned) {
  *D = H;
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *P) { return cudaFree(P); }
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
inline cudaError_t cudaStreamIsCapturing(cudaStream_t Stream,
                                         cudaStreamCaptureStatus *S) {
  *S = Stream && Stream == ww::capturingStream()
           ? cudaStreamCaptureStatusActive
           : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
inline cudaError_t cudaFuncSetAttribute(const void *, int, int) {
  return cudaSuccess;
}

#endif
