#include <cuda_runtime.h>

#include "fuse.cuh"

void run(const float *in, float *out, int n) {
  diamond<<<(n + 127) / 128, 128>>>(in, out, n, 3.0f);
}
