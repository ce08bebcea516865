/* warpwise: declarations nvcc's headers give a CUDA file and Clang's lack.
 *
 * Included (-include) in every CUDA parse, after Clang's CUDA wrapper, so
 * that code nvcc accepts parses: the cache-hinted loads and stores, host
 * min and max, and <time.h>. Nothing here is ever compiled into a program
 * (the output is built with nvcc, whose own definitions apply). The
 * system_header pragma makes these library functions for warpwise's memory
 * analysis: rules/callees.json says each load reads through its pointer
 * argument and each store writes through it.
 *
 * nvcc declares __ldg, __ldcg, __ldca, __ldcs, __ldlu, __ldcv, __stwb,
 * __stcg, __stcs and __stwt for 30 scalar and vector types
 * (sm_32_intrinsics.h). Clang's CUDA headers define only __ldg, __ldcg,
 * __ldcs, __ldcv and __stwt, and those without some `long` overloads. */
#ifndef WARPWISE_CUDA_HINTS_H
#define WARPWISE_CUDA_HINTS_H
#pragma clang system_header

/* nvcc's cuda_runtime.h includes <time.h> (crt/common_functions.h), so
 * host code calls time() without including it; Clang's wrapper skips that
 * header. */
#include <time.h>

#define __WW_HINT_TYPES(X)                                                     \
  X(char) X(signed char) X(short) X(int) X(long) X(long long)                  \
  X(unsigned char) X(unsigned short) X(unsigned int) X(unsigned long)          \
  X(unsigned long long) X(float) X(double) X(char2) X(char4) X(short2)         \
  X(short4) X(int2) X(int4) X(longlong2) X(uchar2) X(uchar4) X(ushort2)        \
  X(ushort4) X(uint2) X(uint4) X(ulonglong2) X(float2) X(float4) X(double2)

#define __WW_HINT_LOAD(Name, T) __device__ T Name(const T *__ptr);
#define __WW_HINT_STORE(Name, T) __device__ void Name(T *__ptr, T __value);
#define __WW_HINT_MISSING(T)                                                   \
  __WW_HINT_LOAD(__ldca, T) __WW_HINT_LOAD(__ldlu, T)                          \
  __WW_HINT_STORE(__stwb, T) __WW_HINT_STORE(__stcg, T)                        \
  __WW_HINT_STORE(__stcs, T)

__WW_HINT_TYPES(__WW_HINT_MISSING)

#ifdef __WARPWISE_CUDA_STUB__
/* Without the toolkit, Clang's wrapper is not there either: the families it
 * defines are declared here too. */
#define __WW_HINT_CLANG_HAS(T)                                                 \
  __WW_HINT_LOAD(__ldg, T) __WW_HINT_LOAD(__ldcg, T) __WW_HINT_LOAD(__ldcs, T) \
  __WW_HINT_LOAD(__ldcv, T) __WW_HINT_STORE(__stwt, T)
__WW_HINT_TYPES(__WW_HINT_CLANG_HAS)
#undef __WW_HINT_CLANG_HAS
#else

/* The overloads Clang's own families leave out. */
__WW_HINT_LOAD(__ldcg, unsigned long)
__WW_HINT_LOAD(__ldcs, unsigned long)
__WW_HINT_LOAD(__ldcv, unsigned long)
__WW_HINT_STORE(__stwt, long)
__WW_HINT_STORE(__stwt, unsigned long)
#endif

/* nvcc's min and max are __host__ __device__ (crt/math_functions.h), with
 * overloads for mixed signedness and for float with double; Clang's wrapper
 * makes them __device__ only, so host code that calls them (block counts,
 * buffer sizes) does not parse. The host overloads nvcc declares: */
#define __WW_MIN_MAX(R, A, B)                                                  \
  __host__ R min(A __a, B __b);                                                \
  __host__ R max(A __a, B __b);
__WW_MIN_MAX(int, int, int)
__WW_MIN_MAX(unsigned int, unsigned int, unsigned int)
__WW_MIN_MAX(unsigned int, int, unsigned int)
__WW_MIN_MAX(unsigned int, unsigned int, int)
__WW_MIN_MAX(long int, long int, long int)
__WW_MIN_MAX(unsigned long int, unsigned long int, unsigned long int)
__WW_MIN_MAX(unsigned long int, long int, unsigned long int)
__WW_MIN_MAX(unsigned long int, unsigned long int, long int)
__WW_MIN_MAX(long long int, long long int, long long int)
__WW_MIN_MAX(unsigned long long int, unsigned long long int,
             unsigned long long int)
__WW_MIN_MAX(unsigned long long int, long long int, unsigned long long int)
__WW_MIN_MAX(unsigned long long int, unsigned long long int, long long int)
__WW_MIN_MAX(float, float, float)
__WW_MIN_MAX(double, double, double)
__WW_MIN_MAX(double, float, double)
__WW_MIN_MAX(double, double, float)
#undef __WW_MIN_MAX

#undef __WW_HINT_MISSING
#undef __WW_HINT_STORE
#undef __WW_HINT_LOAD
#undef __WW_HINT_TYPES
#endif /* WARPWISE_CUDA_HINTS_H */
