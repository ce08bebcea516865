// Variable sharing on the CPU executor (issue 15): each kernel is rewritten
// (forced, so that only legality decides), and the original and rewritten
// programs must print the same results. The kernels are the shapes an
// adversarial review found wrong in a first version:
//  - a table filled by a loop and then accumulated in place (one thread must
//    fill it all: neither loop is spread);
//  - two fill loops of one table with different starts (not spread);
//  - a fill loop that breaks (not spread);
//  - a narrow loop index (not spread: it would wrap);
//  - a return whose condition the divergence analysis cannot see through a
//    pointer (the fill moves above it);
//  - two 1-D fills spread over a 2-D block (the linear thread index).
// RUN: %warpwise rewrite %s -o %t.cu --force-transforms --transforms share --no-ptxas 2> %t.err
// RUN: FileCheck %s --input-file %t.err
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.rewritten
// RUN: %t.orig > %t.orig.out
// RUN: %t.rewritten > %t.rewritten.out
// RUN: diff %t.orig.out %t.rewritten.out
// RUN: FileCheck %s --check-prefix=OUT --input-file %t.rewritten.out
//
// CHECK:      remark: share: `accumulate` ({{.*}}): {{.*}}filled by one thread{{.*}} [WW4004]
// CHECK-NEXT: remark: share: `two_starts` ({{.*}}): {{.*}}filled by one thread{{.*}} [WW4004]
// CHECK-NEXT: remark: share: `breaks` ({{.*}}): {{.*}}filled by one thread{{.*}} [WW4004]
// CHECK-NEXT: remark: share: `narrow` ({{.*}}): {{.*}}filled by one thread{{.*}} [WW4004]
// CHECK-NEXT: remark: share: `hidden_return` ({{.*}}): {{.*}}the fill moves above the return at line {{[0-9]+}}{{.*}}filled by the block's threads together{{.*}} [WW4004]
// CHECK-NEXT: remark: share: `two_d` ({{.*}}): {{.*}}filled by the block's threads together{{.*}} [WW4004]
// OUT:      accumulate 10 50 250
// OUT-NEXT: two_starts 32
// OUT-NEXT: breaks 15
// OUT-NEXT: narrow 6 103
// OUT-NEXT: hidden_return 0 70 86 34
// OUT-NEXT: two_d 3 6 11

#include <cstdio>

__global__ void accumulate(const int *idx, float *out, int n, float p) {
  float w[64];
  for (int k = 0; k < 64; ++k)
    w[k] = p;
  for (int k = 1; k < 64; ++k)
    w[k] += w[k - 1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < 4; ++t)
    acc += w[idx[(i + t) % n]];
  if (i < n)
    out[i] = acc;
}

__global__ void two_starts(const int *idx, float *out, int n, float p) {
  float w[64];
  for (int k = 0; k < 64; ++k)
    w[k] = 0.0f;
  for (int k = 32; k < 64; ++k)
    w[k] = p;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < 64; ++t)
    acc += w[idx[(i + t) % n]];
  if (i < n)
    out[i] = acc;
}

__global__ void breaks(const int *idx, float *out, int n, float p) {
  float w[32];
  for (int k = 0; k < 32; ++k) {
    if (k == 15)
      break;
    w[k] = p;
  }
  for (int k = 15; k < 32; ++k)
    w[k] = 0.0f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < 32; ++t)
    acc += w[idx[(i + t) % n] % 32];
  if (i < n)
    out[i] = acc;
}

__global__ void narrow(const int *idx, float *out, int n, float p) {
  float w[100];
  for (unsigned char k = 0; k < 100; ++k)
    w[k] = p + k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < 3; ++t)
    acc += w[idx[(i + t) % n] % 100];
  if (i < n)
    out[i] = acc;
}

__global__ void hidden_return(const int *idx, float *out, int n, float p) {
  int skip = 0;
  int *flag = &skip;
  *flag = threadIdx.x < 16;
  if (skip)
    return;
  float w[32];
  for (int k = 0; k < 32; ++k)
    w[k] = p * k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < 4; ++t)
    acc += w[idx[(i + t) % n] % 32];
  if (i < n)
    out[i] = acc;
}

__global__ void two_d(const int *idx, float *out, int n, float p) {
  float w[48];
  for (int k = 0; k < 48; ++k)
    w[k] = p * (k % 7);
  int i = (threadIdx.y * blockDim.x + threadIdx.x) + blockIdx.x * 64;
  float acc = 0.0f;
  for (int t = 0; t < 3; ++t)
    acc += w[idx[(i + t) % n] % 48];
  if (i < n)
    out[i] = acc;
}

static float run(const char *name, int which, int blocks, dim3 block, int n,
                 const int *picks, int count) {
  int hidx[256];
  for (int j = 0; j < n; ++j)
    hidx[j] = j;
  int *didx;
  float *dout;
  cudaMalloc((void **)&didx, n * sizeof(int));
  cudaMalloc((void **)&dout, n * sizeof(float));
  cudaMemset(dout, 0, n * sizeof(float));
  cudaMemcpy(didx, hidx, n * sizeof(int), cudaMemcpyHostToDevice);
  switch (which) {
  case 0: accumulate<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  case 1: two_starts<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  case 2: breaks<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  case 3: narrow<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  case 4: hidden_return<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  default: two_d<<<blocks, block>>>(didx, dout, n, 1.0f); break;
  }
  float h[256];
  cudaMemcpy(h, dout, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%s", name);
  for (int c = 0; c < count; ++c)
    printf(" %g", h[picks[c]]);
  printf("\n");
  cudaFree(didx);
  cudaFree(dout);
  return 0;
}

int main() {
  const int a[] = {0, 10, 60}, b[] = {0}, c[] = {0, 99}, d[] = {0, 16, 20, 63},
            e[] = {0, 1, 5};
  run("accumulate", 0, 1, dim3(64), 64, a, 3);
  run("two_starts", 1, 1, dim3(64), 64, b, 1);
  run("breaks", 2, 1, dim3(32), 32, b, 1);
  run("narrow", 3, 1, dim3(256), 100, c, 2);
  run("hidden_return", 4, 2, dim3(32), 64, d, 4);
  run("two_d", 5, 2, dim3(16, 4), 128, e, 3);
  return 0;
}
