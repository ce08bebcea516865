// A small divergent diamond that nvcc already compiles to shared code: the
// candidate leaves the SASS the same size, so warpwise declines and says why
// (the execution model alone predicts a gain: it does not see nvcc's own
// sharing).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err

__global__ void diamond(const float *in, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float v = in[tid];
  float acc = 0.0f;
  for (int k = 0; k < 16; ++k) {
    if (tid & 1) {
      float a = v * v;
      float b = a * 1.5f;
      float c = b / (v + 2.0f);
      acc += c * 0.5f;
    } else {
      float a = v * v;
      float b = a * 2.5f;
      float c = b / (v + 3.0f);
      acc += c * 0.25f;
    }
    v = v + 0.125f;
  }
  out[tid] = acc;
}

// REMARK: fuse: if-else at line {{[0-9]+}} is divergent; similarity {{0\.[0-9]+}} (saves {{[0-9]+}} of {{[0-9]+}} cost units); model (fuse): {{.*}}; but nvcc's code is the same size (SASS instructions [[N:[0-9]+]] -> [[N]], branches [[B:[0-9]+]] -> [[B]]): it already shares that work; declined [WW3001]
