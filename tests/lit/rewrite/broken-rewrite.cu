// A change whose code does not compile is dropped, not written: here
// WARPWISE_DEBUG_BREAK=fission puts an #error into fission's first change
// (a testing hook, as WARPWISE_DEBUG_CRASH is for crashes). The rewrite's
// second pass fails to parse its first pass's output; each change of that
// pass is tried alone on the text before it, and the one that fails is
// dropped. WW1012 names the transformation and the decision, gives clang's
// error and no advice about build flags (it is warpwise's bug, not the
// user's); the other fission is kept; the exit code is 3.
// RUN: env WARPWISE_DEBUG_BREAK=fission %warpwise rewrite --fmad=false %s --no-ptxas --transforms fission --force-transforms -o %t.cu --report %t.json > %t.out 2>&1 || echo "rc=$?" >> %t.out
// RUN: FileCheck %s --check-prefix=ERR --input-file %t.out
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.cu
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.json
// The output is one that compiles: analysing it finds no error.
// RUN: %warpwise analyze %t.cu --no-ptxas > /dev/null
// Without the hook both loops are split, and the exit code is 0.
// RUN: %warpwise rewrite --fmad=false %s --no-ptxas --transforms fission --force-transforms -o %t.2.cu 2> /dev/null
// RUN: grep -c "// warpwise WW4002 fission\.k\.[12]:" %t.2.cu | FileCheck %s --check-prefix=BOTH

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

// ERR: remark: fission: loop at line 24 {{.*}}applied because of --force-transforms
// ERR: remark: fission: loop at line 31 {{.*}}applied because of --force-transforms
// ERR: broken-rewrite.cu:24: error: internal error: warpwise's rewrite does not compile with clang: the fission transformation's decision fission.k.{{1}} (fission of the loop at line 24) produced code that fails (1 compile error (first: WARPWISE_DEBUG_BREAK)); the output is written without that change and with the other changes; please report this with the file [WW1012]
// ERR-NOT: BUILD_DIR
// ERR-NOT: error:
// ERR: rc=3

// CODE-NOT: {{^}}#error
// CODE-NOT: fission.k.{{1}}:
// CODE:      for (int r = 0; r < rows; ++r) {
// CODE-NEXT:   s0 += a[r * 64 + i];
// CODE-NEXT:   q0 += b[r * 64 + i] * b[r * 64 + i];
// CODE-NEXT: }
// CODE:      // warpwise WW4002 fission.k.{{2}}:
// CODE-NOT: {{^}}#error

// REPORT: "applied": false,
// REPORT-NEXT: "code": "WW3002",
// REPORT: "id": "fission.k.{{1}}",
// REPORT: "reason": "dropped: its code does not compile with clang ({{.*}}; WW1012); it had been applied: {{.*}}"
// REPORT: "applied": true,
// REPORT: "id": "fission.k.{{2}}",
// REPORT: "id": "WW1012"
// REPORT: "status": "rewritten"

// BOTH: 2

// --fmad=false: fission of this float loop would otherwise be declined
// (whether nvcc contracts it differently needs nvcc, or is declined on
// its code); this test is about a rewrite that does not compile.
