// Changes that do not compile, in a rewrite of several passes (the input of
// rewrite-twice-passes.cu: meld and a literal split in pass 1, a fuse of
// the split kernels' inner if-else in pass 2). WARPWISE_DEBUG_BREAK breaks
// one transformation's first change (see broken-rewrite.cu).
// REQUIRES: nvcc
//
// The pass-2 fuse does not parse: it is dropped, and the output is pass 1's,
// the same as a rewrite without fuse.
// RUN: env WARPWISE_DEBUG_BREAK=fuse@2 %warpwise rewrite --fmad=false %s --no-ptxas --force-transforms --split-form literal -o %t.cu > %t.out 2>&1 || echo "rc=$?" >> %t.out
// RUN: FileCheck %s --check-prefix=PASS2 --input-file %t.out
// RUN: %warpwise rewrite --fmad=false %s --no-ptxas --force-transforms --split-form literal --transforms meld,split -o %t.pass1.cu 2> /dev/null
// RUN: cmp %t.cu %t.pass1.cu
//
// Pass 1's meld is rejected by nvcc only, once the rewrite is final: the
// latest pass whose starting text nvcc accepts is pass 1; of its changes the
// meld fails alone and is dropped, the split is kept, and pass 2's fuse,
// decided on the melded text, is dropped with it. The output compiles.
// RUN: env WARPWISE_DEBUG_BREAK=meld:nvcc %warpwise rewrite --fmad=false %s --force-transforms --split-form literal -o %t.2.cu --report %t.2.json > %t.2.out 2>&1 || echo "rc=$?" >> %t.2.out
// RUN: FileCheck %s --check-prefix=MELD --input-file %t.2.out
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.2.cu > %t.2.code
// RUN: FileCheck %s --check-prefix=MELD-CODE --input-file %t.2.code
// RUN: FileCheck %s --check-prefix=MELD-REPORT --input-file %t.2.json
// RUN: %nvcc -arch=sm_90 -c %t.2.cu -o %t.2.o
#include <cstdio>

static __global__ void pick(const int *__restrict__ m,
                            const float *__restrict__ in,
                            float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (m[i] == 0) {
    float y;
    if (i % 2) {
      float a = x * x;
      y = a + 1.0f;
    } else {
      float a = x * x;
      y = a + 2.0f;
    }
    out[i] = y;
  } else {
    out[i] = x * 3.0f;
  }
}

int main() {
  int m[64];
  float in[64], out[64];
  for (int i = 0; i < 64; ++i) {
    m[i] = i % 3 == 0;
    in[i] = 0.25f * i - 3.0f;
  }
  int *d_m;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_m, sizeof m);
  cudaMalloc((void **)&d_in, sizeof in);
  cudaMalloc((void **)&d_out, sizeof out);
  cudaMemcpy(d_m, m, sizeof m, cudaMemcpyHostToDevice);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  pick<<<2, 32>>>(d_m, d_in, d_out, 64);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; ++i)
    printf("%d %.6f\n", i, out[i]);
  return 0;
}


// PASS2: remark: fuse: if-else at line {{[0-9]+}} is divergent; {{.*}}(pass 2: {{.*}}) [WW4001]
// PASS2: error: internal error: warpwise's rewrite does not compile with clang: the fuse transformation's decision fuse.pick_ww_then.{{[0-9]+}} (fuse of the if-else at line {{[0-9]+}}) produced code that fails (1 compile error (first: WARPWISE_DEBUG_BREAK)); the output is written without that change and with the other changes; please report this with the file [WW1012]
// PASS2: rc=3

// MELD: :[[L:[0-9]+]]: error: internal error: warpwise's rewrite does not compile with nvcc: the meld transformation's decision meld.pick.{{[0-9]+}} (meld of the if-else at line [[L]]) produced code that fails ({{.*}}WARPWISE_DEBUG_BREAK{{.*}}); the output is written without that change and with the other changes; the 1 change(s) of later passes, decided on that code, are dropped too; please report this with the file [WW1012]
// MELD: rc=3
// MELD-CODE-NOT: {{^}}#error
// MELD-CODE-NOT: // warpwise WW4001
// MELD-CODE: // warpwise WW4003 split.pick.{{[0-9]+}}: split `pick` (literal form)
// MELD-CODE-NOT: // warpwise WW4001
// MELD-REPORT: "applied": false,
// MELD-REPORT: "id": "meld.pick.{{[0-9]+}}",
// MELD-REPORT: "applied": true,
// MELD-REPORT: "id": "split.pick.{{[0-9]+}}",
// MELD-REPORT: "applied": false,
// MELD-REPORT: "id": "fuse.pick_ww_then.{{[0-9]+}}",
// MELD-REPORT: "reason": "dropped: decided on code that held a change that does not compile (WW1012); it had been applied: {{.*}}"

// --fmad=false: fission of this float loop would otherwise be declined
// (whether nvcc contracts it differently needs nvcc, or is declined on
// its code); this test is about a rewrite that does not compile.
