// The same diamond on a warp-uniform condition is left alone, with the
// reason; so is a branch on a kernel parameter (uniform).
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err

__global__ void by_warp(const float *in, float *out, int n, int mode) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[tid];
  float r;
  if ((tid / 32) % 2) {
    r = v * v * 1.5f;
  } else {
    r = v * v * 2.5f;
  }
  if (mode > 1) {
    r = r * 3.0f;
  } else {
    r = r * 4.0f;
  }
  out[tid] = r;
}

void launch(const float *in, float *out, int n) {
  by_warp<<<n / 256, 256>>>(in, out, n, 2);
}

// CHECK: refuse-warp-uniform.cu:11:3: remark: fuse: if-else at line {{[0-9]+}} is warp-uniform ({{.*}}blocks are one-dimensional in the launch at line 25): each warp runs one side only, so merging would add selects without saving issue slots (measured 0.76x-0.90x on H100); declined [WW3001]
// CHECK: refuse-warp-uniform.cu:16:3: remark: fuse: if-else at line {{[0-9]+}} is uniform {{.*}}declined [WW3001]
