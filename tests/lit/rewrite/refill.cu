// The work refill (issue #30) by default: applied where the loop's trip
// count comes from data and ptxas shows the refill kernel keeping the
// original's occupancy; declined where the trip count follows the item
// index, and where the body only steps what the condition tests (nvcc runs
// that unrolled). The original kernel stays; the launch chooses at run time
// (warpwise's runtime, included once). The output compiles without a
// warning, and a second rewrite changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms refill -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: grep -c "^#include \"warpwise_runtime.cuh\"" %t.code | FileCheck %s --check-prefix=ONE-HELPER
// ONE-HELPER: 1
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite %t.cu --transforms refill -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu

__global__ void escape_time(int *iters, int width, int height, float x0,
                            float y0, float dx, float dy, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height)
    return;
  float cx = x0 + (float)(p % width) * dx;
  float cy = y0 + (float)(p / width) * dy;
  float zx = 0.0f, zy = 0.0f;
  int it = 0;
  while (zx * zx + zy * zy <= 4.0f && it < max_iter) {
    float t = zx * zx - zy * zy + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++it;
  }
  iters[p] = it;
}

__global__ void dec2zero(int *v, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    while (v[x] > 0) {
      v[x]--;
    }
  }
}

__global__ void triangle(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < i; ++k)
      s += 1.0f / (float)(k + 1);
    out[i] = s;
  }
}

void run(int *iters, int *v, float *out, int w, int h, int n,
         cudaStream_t stream) {
  escape_time<<<(w * h + 255) / 256, 256, 0, stream>>>(
      iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000);
  dec2zero<<<(n + 255) / 256, 256>>>(v, n);
  triangle<<<(n + 127) / 128, 128>>>(out, n);
}
