// A kernel in a header found through -isystem: a library's, never rewritten.
#pragma once
__global__ void sys_reduce(const float *__restrict__ a,
                           const float *__restrict__ b,
                           float *__restrict__ sum, float *__restrict__ sq,
                           int n, int rows) {
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
