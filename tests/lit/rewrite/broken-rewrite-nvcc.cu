// clang accepting warpwise's rewrite is not nvcc accepting it: before the
// output is written, nvcc compiles the final text of every changed file
// (through the planner's measurement cache), and a rejection is handled as
// a parse failure is (broken-rewrite.cu): the change responsible is dropped
// with WW1012. WARPWISE_DEBUG_BREAK=fission:nvcc gives fission's first
// change an #error that only nvcc sees (under #ifdef __NVCC__).
// REQUIRES: nvcc
// RUN: env WARPWISE_DEBUG_BREAK=fission:nvcc %warpwise rewrite --fmad=false %s -v --transforms fission --force-transforms -o %t.cu > %t.out 2>&1 || echo "rc=$?" >> %t.out
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.out
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.cu
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.o
// With --no-ptxas nvcc is not run: the line only nvcc rejects is written,
// which is the limit of what clang alone can tell.
// RUN: env WARPWISE_DEBUG_BREAK=fission:nvcc %warpwise rewrite --fmad=false %s --no-ptxas --transforms fission --force-transforms -o %t.2.cu 2> /dev/null
// RUN: grep -c "^#error WARPWISE_DEBUG_BREAK" %t.2.cu | FileCheck %s --check-prefix=NO-NVCC
// Without the hook nvcc compiles the rewrite, and says so under -v.
// RUN: %warpwise rewrite --fmad=false %s -v --transforms fission --force-transforms -o %t.3.cu 2> %t.3.err
// RUN: FileCheck %s --check-prefix=GOOD --input-file %t.3.err

__global__ void k(const float *__restrict__ a, const float *__restrict__ b,
                  float *__restrict__ s, float *__restrict__ q,
                  float *__restrict__ u, float *__restrict__ v, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, q0 = 0;
  for (int r = 0; r < rows; ++r) {
    s0 += a[r * 64 + i];
    q0 += b[r * 64 + i] * b[r * 64 + i];
  }
  s[i] = s0;
  q[i] = q0;
  float u0 = 0, v0 = 0;
  for (int r = 0; r < rows; ++r) {
    u0 += a[r * 64 + i] * 2.0f;
    v0 += b[r * 64 + i] * 3.0f;
  }
  u[i] = u0;
  v[i] = v0;
}

// ERR: warpwise: {{.*}}broken-rewrite-nvcc.cu: nvcc rejects the rewrite
// ERR: broken-rewrite-nvcc.cu:25: error: internal error: warpwise's rewrite does not compile with nvcc: the fission transformation's decision fission.k.{{1}} (fission of the loop at line 25) produced code that fails (the rewritten broken-rewrite-nvcc.cu:{{[0-9]+}}:{{[0-9]+}}: error: #error WARPWISE_DEBUG_BREAK); the output is written without that change and with the other changes; please report this with the file [WW1012]
// ERR-NOT: error:
// ERR: rc=3

// CODE-NOT: {{^}}#error
// CODE-NOT: fission.k.{{1}}:
// CODE:      // warpwise WW4002 fission.k.{{2}}:
// CODE-NOT: {{^}}#error

// NO-NVCC: 1

// GOOD: warpwise: {{.*}}broken-rewrite-nvcc.cu: nvcc compiles the rewrite
// GOOD-NOT: error:

// --fmad=false: fission of this float loop would otherwise be declined
// (whether nvcc contracts it differently needs nvcc, or is declined on
// its code); this test is about a rewrite that does not compile.
