#ifndef CHAIN_K_CUH
#define CHAIN_K_CUH
__global__ void two_sums(const float *__restrict__ a,
                         const float *__restrict__ b, float *__restrict__ s,
                         float *__restrict__ q, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, q0 = 0;
  for (int r = 0; r < rows; ++r) {
    s0 += a[r * 64 + i];
    q0 += b[r * 64 + i] * b[r * 64 + i];
  }
  s[i] = s0;
  q[i] = q0;
}
// A divergent diamond (as rewrite/fuse-diamond.cu).
__global__ void diamond(const float *in, float *out, int n, float scale) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float acc = 0.0f;
  for (int k = tid; k < n * 8; k += n) {
    float v = in[k];
    if (tid & 1) {
      float a = v * v;
      float b = a * v;
      float c = b * 1.5f;
      float d = c / scale;
      float e = d * d + a;
      float f = e / (scale + v);
      acc += f * 0.5f;
    } else {
      float a = v * v;
      float b = a * 2.5f;
      float c = b * v;
      float d = c / (scale + 1.0f);
      float e = d * d + b;
      float f = e / (scale + a);
      acc += f * 0.25f;
    }
  }
  out[tid] = acc;
}
#endif
