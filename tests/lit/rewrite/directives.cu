// In-source directives (issue 12), as clang-tidy's NOLINT family: a
// disable on the line before a branch, before a kernel, a disable/enable
// region, a directive that names another transformation, a forced fuse the
// model would decline, and a forced split form. Malformed ones warn.
// REQUIRES: nvcc
// --fmad=false: the fused kernels here compute floats that nvcc contracts differently once fused (declined at its default); this test is not about that (fmad-contraction.cu is).
// RUN: %warpwise rewrite --fmad=false %s -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARKS --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite --fmad=false %t.cu -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
//
// REMARKS:      remark: fuse: if-else at line {{[0-9]+}} is divergent {{.*}} applied [WW4001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}}: disabled by `// warpwise-disable-next-line(fuse)` at line {{[0-9]+}}; not considered [WW3001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}}: disabled by `// warpwise-disable-next-line` at line [[#DK:]]; not considered [WW3001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}}: disabled by `// warpwise-disable(fuse, meld)` at line {{[0-9]+}}; not considered [WW3001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}} is divergent {{.*}} applied [WW4001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}} is divergent; similarity {{.*}}; applied because of `// warpwise-force(fuse)` at line {{[0-9]+}} (profitability was not checked){{.*}}[WW4001]
// REMARKS-NEXT: remark: fuse: if-else at line {{[0-9]+}} is divergent; similarity {{.*}}; declined [WW3001]
// REMARKS:      remark: fission: loop at line {{[0-9]+}}: disabled by `// warpwise-disable-next-line` at line [[#DK]]; not considered [WW3002]
// REMARKS:      remark: split: if-else at line {{[0-9]+}} of `pick` {{.*}} literal split applied because it was forced (`// warpwise-force(split=literal)` at line {{[0-9]+}}) [WW4003]
// REMARKS:      warning: `warpwise-force(bogus)`: unknown transformation 'bogus' (available: meld, fuse, realloc, fission, split, refill, share, dispatch); ignored [WW1022]
// REMARKS-NEXT: warning: `warpwise-force(split=tiled)`: 'tiled' is not a form of split (adaptive, literal, compact); the directive is ignored [WW1022]
// REMARKS-NEXT: warning: `warpwise-disable-next-line(fuse=merged)`: only warpwise-force takes a form ('fuse=merged'); the directive is ignored [WW1022]
// REMARKS-NEXT: warning: `warpwise-force`: name the transformation to force, as in warpwise-force(split=compact); ignored [WW1022]
// REMARKS-NEXT: warning: `warpwise-enable(split)`: no warpwise-disable(split) before it to end; ignored [WW1022]
// REMARKS-NEXT: warning: `warpwise-disable(realloc)` has no warpwise-enable after it: it holds to the end of the file [WW1022]
//
// The fused kernels and the forced ones are rewritten; the disabled ones are
// not.
// CODE-LABEL: __global__ void applied(
// CODE:       // warpwise WW4001 fuse.applied.{{[0-9]+}}: fused the two sides of a
// CODE-LABEL: __global__ void disabled_branch(
// CODE-NOT:   warpwise WW4001
// CODE-LABEL: __global__ void disabled_kernel(
// CODE-NOT:   warpwise WW4001
// CODE-LABEL: __global__ void disabled_region(
// CODE-NOT:   warpwise WW4001
// CODE-LABEL: __global__ void other_transform(
// CODE:       // warpwise WW4001 fuse.other_transform.{{[0-9]+}}: fused the two sides
// CODE-LABEL: __global__ void forced(
// CODE:       // warpwise WW4001 fuse.forced.{{[0-9]+}}: fused the two sides of a divergent
// CODE-NEXT:  // if-else; forced: profitability was not checked
// CODE-LABEL: __global__ void unforced(
// CODE-NOT:   warpwise WW4001
// CODE:       { // warpwise WW4003 split.pick.{{[0-9]+}}: split launch
// CODE-NEXT:    pick_ww_then<<<n / 256, 256>>>(m, in, out, n);
// CODE-NEXT:    pick_ww_else<<<n / 256, 256>>>(m, in, out, n);
// CODE-NEXT:  }

#include <cuda_runtime.h>

__global__ void applied(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}

__global__ void disabled_branch(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    // warpwise-disable-next-line(fuse)
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}

// warpwise-disable-next-line
__global__ void disabled_kernel(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}

// warpwise-disable(fuse, meld)
__global__ void disabled_region(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}
// warpwise-enable(fuse, meld)

__global__ void other_transform(const float *in, float *out, int width,
                               int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= width)
    return;
  float scale = tid * 0.001f + 1.0f;
  float acc = 0.0f;
  for (int k = tid; k < width * rows; k += width) {
    float v = in[k];
    // warpwise-disable-next-line(split)
    if (tid % 2) {
      float sq0 = v * v;
      float cube0 = sq0 * v;
      float damped0 = cube0 * 1.5f;
      float ratio0 = damped0 / scale;
      float x0 = ratio0 - v * 0.25f + 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * x0;
      float damped1 = cube1 * 1.5f;
      float ratio1 = damped1 / scale;
      float x1 = ratio1 - x0 * 0.25f + 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * x1;
      float damped2 = cube2 * 1.5f;
      float ratio2 = damped2 / scale;
      float x2 = ratio2 - x1 * 0.25f + 0.125f;
      acc += x2 * 0.5f;
    } else {
      float sq0 = v * v;
      float cube0 = sq0 * 2.5f;
      float damped0 = cube0 * v;
      float ratio0 = damped0 / (scale + 1.0f);
      float x0 = ratio0 + v * 0.75f - 0.125f;
      float sq1 = x0 * x0;
      float cube1 = sq1 * 2.5f;
      float damped1 = cube1 * x0;
      float ratio1 = damped1 / (scale + 1.0f);
      float x1 = ratio1 + x0 * 0.75f - 0.125f;
      float sq2 = x1 * x1;
      float cube2 = sq2 * 2.5f;
      float damped2 = cube2 * x1;
      float ratio2 = damped2 / (scale + 1.0f);
      float x2 = ratio2 + x1 * 0.75f - 0.125f;
      acc += x2 * 0.25f;
    }
  }
  out[tid] = acc;
}
__global__ void forced(const float *in, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float v = in[tid];
  // warpwise-force(fuse)
  if (tid % 2) {
    out[tid] = v * 2.0f;
  } else {
    out[tid] = v + 3.0f;
  }
}

__global__ void unforced(const float *in, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float v = in[tid];
  if (tid % 2) {
    out[tid] = v * 2.0f;
  } else {
    out[tid] = v + 3.0f;
  }
}

// warpwise-force(split=literal)
__global__ void pick(const int *__restrict__ mask, const float *__restrict__ in,
                     float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x + 1.0f;
  } else {
    float a = x * x, b = a * x, c = b * x, d = c * x;
    out[i] = ((a + b) * (c + d)) / (x * x + 1.0f);
  }
}

void run(const int *m, const float *in, float *out, int n) {
  applied<<<n / 256, 256>>>(in, out, n, 4);
  disabled_branch<<<n / 256, 256>>>(in, out, n, 4);
  disabled_kernel<<<n / 256, 256>>>(in, out, n, 4);
  disabled_region<<<n / 256, 256>>>(in, out, n, 4);
  other_transform<<<n / 256, 256>>>(in, out, n, 4);
  forced<<<n / 256, 256>>>(in, out, n);
  unforced<<<n / 256, 256>>>(in, out, n);
  pick<<<n / 256, 256>>>(m, in, out, n);
}

// Malformed directives: each is reported and ignored.
// warpwise-force(bogus)
// warpwise-force(split=tiled)
// warpwise-disable-next-line(fuse=merged)
// warpwise-force
// warpwise-enable(split)
// warpwise-disable(realloc)
