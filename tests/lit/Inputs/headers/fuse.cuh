// A divergent diamond (as rewrite/fuse-diamond.cu), defined in a header.
#pragma once
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
