// Idempotence, found by the fuzz generator (seed 7, forced): melding the
// outer if-else keeps the inner if-else of one side under a guard; a second
// run must not fuse that inner branch now that it stands alone.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms -o %t.cu 2> %t.err
// RUN: %warpwise rewrite %t.cu --force-transforms -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o
__global__ void k(const float *a, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i];
  float s = 0.0f;
  if (i % 2) {
    float t = v * 0.5f;
    if (v > 0.25f) {
      s += t * 1.5f;
    } else {
      s -= v;
    }
  } else {
    float t = v * 0.75f;
    s += t;
  }
  out[i] = s;
}
