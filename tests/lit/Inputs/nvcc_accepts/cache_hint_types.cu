// Every cache-hinted load and store nvcc declares, for each of its types.
#include <cuda_runtime.h>

#define USE_HINTS(T)                                                           \
  {                                                                            \
    T *p = (T *)v;                                                             \
    T x = __ldg(p);                                                            \
    x = __ldcg(p);                                                             \
    x = __ldca(p);                                                             \
    x = __ldcs(p);                                                             \
    x = __ldlu(p);                                                             \
    x = __ldcv(p);                                                             \
    __stwb(p, x);                                                              \
    __stcg(p, x);                                                              \
    __stcs(p, x);                                                              \
    __stwt(p, x);                                                              \
  }

__global__ void every_type(void *v) {
  USE_HINTS(char) USE_HINTS(signed char) USE_HINTS(short) USE_HINTS(int)
  USE_HINTS(long) USE_HINTS(long long) USE_HINTS(unsigned char)
  USE_HINTS(unsigned short) USE_HINTS(unsigned int) USE_HINTS(unsigned long)
  USE_HINTS(unsigned long long) USE_HINTS(float) USE_HINTS(double)
  USE_HINTS(char2) USE_HINTS(char4) USE_HINTS(short2) USE_HINTS(short4)
  USE_HINTS(int2) USE_HINTS(int4) USE_HINTS(longlong2) USE_HINTS(uchar2)
  USE_HINTS(uchar4) USE_HINTS(ushort2) USE_HINTS(ushort4) USE_HINTS(uint2)
  USE_HINTS(uint4) USE_HINTS(ulonglong2) USE_HINTS(float2) USE_HINTS(float4)
  USE_HINTS(double2)
}
