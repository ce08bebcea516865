__global__ void guarded(float *a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  a[threadIdx.x] = 1.0f;
#else
  a[threadIdx.x] = 2.0f;
#endif
}
