// A transformation that crashes costs its own changes to the file, not the
// run: WW1012 names it, the kernel and the line; the other transformations'
// changes are written; the exit code is 3. WARPWISE_DEBUG_CRASH=<name> is a
// testing hook that makes that transformation crash deliberately (fuse at
// its first candidate; fission, which has no such hook, after its run).
// RUN: env WARPWISE_DEBUG_CRASH=fuse %warpwise rewrite --fmad=false %s --transforms fuse,fission --force-transforms -o %t.cu > %t.out 2>&1 || echo "rc=$?" >> %t.out
// RUN: FileCheck %s --check-prefix=FUSE --input-file %t.out
// RUN: FileCheck %s --check-prefix=FUSE-CODE --input-file %t.cu
// RUN: env WARPWISE_DEBUG_CRASH=fission %warpwise rewrite --fmad=false %s --transforms fuse,fission --force-transforms -o %t.2.cu --report %t.2.json > %t.2.out 2>&1 || echo "rc=$?" >> %t.2.out
// RUN: FileCheck %s --check-prefix=FISSION --input-file %t.2.out
// RUN: FileCheck %s --check-prefix=FISSION-CODE --input-file %t.2.cu
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.2.json
// Without the hook both apply and the exit code is 0.
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse,fission --force-transforms -o %t.3.cu 2> %t.3.err
// RUN: grep -c "^ *// warpwise WW400[0-9] [a-z]*\.k\.[0-9]*: " %t.3.cu | FileCheck %s --check-prefix=BOTH

__global__ void k(const float *__restrict__ a, const float *__restrict__ b,
                  float *__restrict__ s, float *__restrict__ q,
                  float *__restrict__ out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, q0 = 0;
  for (int r = 0; r < rows; ++r) {
    s0 += a[r * 64 + i];
    q0 += b[r * 64 + i] * b[r * 64 + i];
  }
  s[i] = s0;
  q[i] = q0;
  float x;
  if (threadIdx.x % 2) {
    x = a[i] * 2.0f;
  } else {
    x = a[i] * 3.0f;
  }
  out[i] = x;
}

// FUSE: error: internal error: the fuse transformation crashed while working on `k` at line 29; its changes to this file are dropped and the other transformations' are kept; please report this with the file [WW1012]
// FUSE: remark: fission: loop at line 22 {{.*}}applied because of --force-transforms
// FUSE: rc=3
// FUSE-CODE: split into 2 loops
// FUSE-CODE-NOT: fused the two sides
// FUSE-CODE: if (threadIdx.x % 2) {

// FISSION: remark: fuse: if-else at line 29 {{.*}}applied because of --force-transforms
// FISSION: error: internal error: the fission transformation crashed (the candidate is unknown); {{.*}} [WW1012]
// FISSION: rc=3
// FISSION-CODE-NOT: split into
// FISSION-CODE: fused the two sides
// REPORT: "id": "WW1012"
// REPORT: "status": "rewritten"

// BOTH: 2

// --fmad=false: the kernel here computes floats that nvcc contracts differently after the fission (declined at its default); this test is not about that (fmad-contraction.cu is).
