// Kernels defined in a project header, the layout of Rodinia and of
// cuda-samples dct8x8: the .cu files include it and launch them.
#ifndef KERNELS_CUH
#define KERNELS_CUH

template <typename T> __device__ T heavy(T v) {
  T r = v;
  for (int k = 0; k < 16; ++k)
    r = r * (T)1.0001 + (T)0.5;
  return r;
}

__global__ void ka(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.5f) {
    out[i] = sqrtf(fabsf(v)) + heavy(v);
  } else {
    out[i] = v * 0.5f;
  }
}

__global__ void kb(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
  if (v > 0.25f) {
    out[i] = sqrtf(fabsf(v)) * heavy(v);
  } else {
    out[i] = v * 0.25f;
  }
}

__global__ void reduce2(const float *__restrict__ a, const float *__restrict__ b,
                        float *__restrict__ sum, float *__restrict__ sq, int n,
                        int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, s1 = 0, q0 = 0, q1 = 0;
  for (int r = 0; r < rows; r += 2) {
    const int o = r * n + i;
    s0 += a[o];
    s1 += a[o + n];
    q0 += b[o] * b[o];
    q1 += b[o + n] * b[o + n];
  }
  sum[i] = s0 + s1;
  sq[i] = q0 + q1;
}

#endif
