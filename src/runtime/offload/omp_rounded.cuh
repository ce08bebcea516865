//===- omp_rounded.cuh - offload --fmad=false: rounded products -*- CUDA -*-===//
//
// With `warpwise offload --fmad=false`, a product in a function that an
// offloaded loop calls is written as ww_omp_fmul(a, b) or ww_omp_dmul(a, b):
// rounded on its own on the device (never contracted into an FMA), a plain
// product on the host. Functions, not macros: an operand is one argument
// whatever its commas or operators.
//
// Part of offload.cuh (warpwise_offload.cuh beside each output). The
// functions are static, so two outputs linked into one program do not
// collide.
//
//===----------------------------------------------------------------------===//
#ifndef WW_OMP_ROUNDED
#define WW_OMP_ROUNDED
static __host__ __device__ inline float ww_omp_fmul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
static __host__ __device__ inline double ww_omp_dmul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
#endif
