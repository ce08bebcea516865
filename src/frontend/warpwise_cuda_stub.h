/* warpwise CUDA stub header.
 *
 * Used with -nocudainc -nocudalib when no CUDA toolkit is found (or with
 * --stub-cuda). It declares just enough of the CUDA runtime for warpwise to
 * parse and analyse kernels: the attribute macros, dim3 and the vector types,
 * the builtin variables (Clang's own definitions), the launch-configuration
 * hooks behind <<<>>>, and the common runtime, synchronisation, atomic, warp
 * and math functions. Nothing here is ever compiled into a program. */
#ifndef WARPWISE_CUDA_STUB_H
#define WARPWISE_CUDA_STUB_H
/* The toolkit's headers must not follow ours when both are reachable. */
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __cuda_cuda_h__

#define __WARPWISE_CUDA_STUB__ 1
#include <stddef.h>
/* cuda_runtime.h brings these in; Clang's cuda_wrappers/new (reached from
 * any standard C++ header) uses ::malloc and ::free. */
#include <stdlib.h>
#include <string.h>
struct uint3 {
  unsigned int x, y, z;
};
#include "__clang_cuda_builtin_vars.h"

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1,
                           unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct float2 { float x, y; };
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
struct double2 { double x, y; };
/* The other types of the cache-hinted loads and stores. */
struct char2 { signed char x, y; };
struct char4 { signed char x, y, z, w; };
struct uchar2 { unsigned char x, y; };
struct uchar4 { unsigned char x, y, z, w; };
struct short2 { short x, y; };
struct short4 { short x, y, z, w; };
struct ushort2 { unsigned short x, y; };
struct ushort4 { unsigned short x, y, z, w; };
struct uint2 { unsigned int x, y; };
struct uint4 { unsigned int x, y, z, w; };
struct longlong2 { long long x, y; };
struct ulonglong2 { unsigned long long x, y; };

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorNotReady = 600
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

extern "C" {
int __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize,
                                size_t sharedMem = 0, cudaStream_t stream = 0);
cudaError_t cudaConfigureCall(dim3 gridSize, dim3 blockSize,
                              size_t sharedMem = 0, cudaStream_t stream = 0);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                             void **args, size_t sharedMem,
                             cudaStream_t stream);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src,
                               size_t count, size_t offset,
                               enum cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
// What the split forms' launches call.
enum cudaDeviceAttr {
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39
};
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaMemAllocationType { cudaMemAllocationTypePinned = 1 };
enum cudaMemLocationType { cudaMemLocationTypeDevice = 1 };
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
struct cudaMemLocation {
  enum cudaMemLocationType type;
  int id;
};
struct cudaMemPoolProps {
  enum cudaMemAllocationType allocType;
  int handleTypes;
  struct cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                            cudaStream_t stream = 0);
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool,
                              const struct cudaMemPoolProps *props);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool,
                                    enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size,
                                    cudaMemPool_t pool, cudaStream_t stream);
// What warpwise's runtime (the adaptive split's dispatch) calls.
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaHostAllocMapped 0x02
cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus *status);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                     unsigned int flags);
}
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                          T func,
                                                          int blockSize,
                                                          size_t dynamicSMem);
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return cudaMalloc((void **)devPtr, size);
}
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                               size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}

__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ unsigned __ballot_sync(unsigned mask, int pred);
__device__ int __any_sync(unsigned mask, int pred);
__device__ int __all_sync(unsigned mask, int pred);
__device__ unsigned __activemask(void);
__device__ int __shfl_sync(unsigned mask, int var, int srcLane, int width = 32);
__device__ float __shfl_sync(unsigned mask, float var, int srcLane, int width = 32);
__device__ int __shfl_up_sync(unsigned mask, int var, unsigned d, int width = 32);
__device__ float __shfl_up_sync(unsigned mask, float var, unsigned d, int width = 32);
__device__ int __shfl_down_sync(unsigned mask, int var, unsigned d, int width = 32);
__device__ float __shfl_down_sync(unsigned mask, float var, unsigned d, int width = 32);
__device__ int __shfl_xor_sync(unsigned mask, int var, int laneMask, int width = 32);
__device__ float __shfl_xor_sync(unsigned mask, float var, int laneMask, int width = 32);
__device__ int __popc(unsigned);
__device__ int __clz(int);
__device__ int __ffs(int);
__device__ int atomicAdd(int *, int);
__device__ unsigned atomicAdd(unsigned *, unsigned);
__device__ float atomicAdd(float *, float);
__device__ double atomicAdd(double *, double);
__device__ int atomicSub(int *, int);
__device__ int atomicExch(int *, int);
__device__ int atomicMin(int *, int);
__device__ int atomicMax(int *, int);
__device__ int atomicCAS(int *, int, int);
__device__ unsigned atomicCAS(unsigned *, unsigned, unsigned);
__device__ int atomicOr(int *, int);
__device__ int atomicAnd(int *, int);
__device__ float __fdividef(float, float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __saturatef(float);
__device__ int __float2int_rn(float);
__device__ int __mul24(int, int);
__device__ int min(int, int);
__device__ int max(int, int);
__device__ unsigned min(unsigned, unsigned);
__device__ unsigned max(unsigned, unsigned);
__device__ float fminf(float, float);
__device__ float fmaxf(float, float);
__device__ float fabsf(float);
__device__ float sqrtf(float);
__device__ float rsqrtf(float);
__device__ float expf(float);
__device__ float logf(float);
__device__ float sinf(float);
__device__ float cosf(float);
__device__ float powf(float, float);
__device__ float floorf(float);
__device__ float ceilf(float);
__device__ float roundf(float);
__device__ float fmaf(float, float, float);
__device__ double sqrt(double);
__device__ double exp(double);
__device__ double log(double);
__device__ double fabs(double);
__device__ double floor(double);
__device__ double fma(double, double, double);

#endif /* WARPWISE_CUDA_STUB_H */
