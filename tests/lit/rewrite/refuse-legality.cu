// Branches that cannot be merged safely are left alone, each with a reason:
// a side that returns, and a store whose target differs between the sides
// is kept guarded (here nothing else matches, so the similarity is too low).
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err

__global__ void exits(float *a, float *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 2) {
    a[t] = 1.0f;
    return;
  } else {
    a[t] = 2.0f;
  }
  if (t % 3) {
    a[t] = a[t] * 2.0f;
  } else {
    b[t] = b[t] / 3.0f;
  }
}

// CHECK: remark: fuse: if-else at line {{[0-9]+}} is divergent, but cannot be merged: the branch contains a `ReturnStmt` at line 12, which leaves or restructures the region [WW3001]
// CHECK: remark: fuse: if-else at line {{[0-9]+}} is divergent; similarity 0.00 {{.*}} is below the threshold 0.20 (rules/costs.json); 0 statement pairs merged, 1 then- and 1 else-statements kept under guards, 0 operand selects; declined [WW3001]
