// The work refill hoists the declarations before the loop into the lanes'
// state (`T v{};`, then `v = init;` per item). A variable the kernel sets
// and never reads keeps its `[[maybe_unused]]` or `__attribute__((unused))`
// on the hoisted copy, spelled as written; without it nvcc's "set but never
// used" (#550) fails a -Werror build that the original passes (fuzz batch F,
// seed 10180). Another attribute would not travel: the refill declines.
// REQUIRES: nvcc
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %s -o %t.orig.o
// RUN: %warpwise rewrite %s --transforms refill --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite %t.cu --transforms refill --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu

__global__ void standard(const float *__restrict__ a, float *__restrict__ out,
                         int n, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
  [[maybe_unused]] float x = (float)(i % 7) * 0.125f;
  for (int r = 0; r < rows; r++) {
    float v = a[r * n + i];
    if (v > 0.875f)
      continue;
    s += v;
  }
  out[i] = s;
}

__global__ void gnu(const float *__restrict__ a, float *__restrict__ out, int n,
                    int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
  __attribute__((unused)) float y = (float)(i % 5) * 0.25f;
  for (int r = 0; r < rows; r++) {
    float v = a[r * n + i];
    if (v > 0.875f)
      break;
    s += v;
  }
  out[i] = s;
}

__global__ void aligned(const float *__restrict__ a, float *__restrict__ out,
                        int n, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  alignas(16) float s = 0.0f;
  for (int r = 0; r < rows; r++) {
    float v = a[r * n + i];
    if (v > 0.875f)
      break;
    s += v;
  }
  out[i] = s;
}

void run(const float *__restrict__ a, float *__restrict__ out, int n,
         int rows) {
  standard<<<(n + 127) / 128, 128>>>(a, out, n, rows);
  gnu<<<(n + 127) / 128, 128>>>(a, out, n, rows);
  aligned<<<(n + 127) / 128, 128>>>(a, out, n, rows);
}

// CHECK:      __global__ void standard_ww_refill(
// CHECK:        {{\[\[}}maybe_unused{{\]\]}} float x{};
// CHECK:        x = (float)(i % 7) * 0.125f;
// CHECK:      __global__ void gnu_ww_refill(
// CHECK:        __attribute__((unused)) float y{};
// CHECK:        y = (float)(i % 5) * 0.25f;
// CHECK-NOT:  aligned_ww_refill

// REMARK: remark: refill: the for loop at line 25 of `standard`: {{.*}}applied because of --force-transforms {{.*}}[WW4005]
// REMARK: remark: refill: the for loop at line 41 of `gnu`: {{.*}}applied because of --force-transforms {{.*}}[WW4005]
// REMARK: remark: refill: the for loop at line 56 of `aligned`: not refilled: the declaration of `s` carries an attribute (alignas) that its hoisted copy would not [WW3005]
