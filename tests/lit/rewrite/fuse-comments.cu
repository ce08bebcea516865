// The user's comments in a fused if-else are all kept, each with what it
// described: the lines above a statement and the end of its line go with the
// merged statement (both sides' when they differ, once when they are the
// same), or with the statement under its guard; comments on the branch's own
// lines and after the last statement of a side go under the condition,
// labelled with the side they were on; one inside the condition's
// parentheses ends the condition's line. The decision's comment is a block of
// its own and the user's comments keep their bytes (`//w` gets no space).
// Rewriting the output again changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms fuse --force-transforms -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms fuse --force-transforms -o %t.again.cu 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void scale(const float *__restrict__ a, float *__restrict__ out,
                      int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[t];
  float w = 0.f;
  if (t % 2 /* odd */) { // odd lanes
    // grow
    v = v * 2.0f + 1.0f; // scale
    w = v - 1.0f; //w
    out[t + 32] = w * 4.0f; /* odd only */
    // done
  } else { // even lanes
    // grow
    v = v * 3.0f + 1.0f;
    w = v - 2.0f; // the even offset
  }
  out[t + 64] = v + w;
}

// CHECK-LABEL: __global__ void scale(
// CHECK:      float w = 0.f;
// CHECK-NEXT: {
// CHECK-NEXT:   // warpwise WW4001 fuse.scale.{{[0-9]+}}: fused the two sides of a divergent if-else;
// CHECK-NEXT:   // forced: profitability was not checked
// CHECK-NEXT:   const bool ww_cond_[[L:[0-9]+]] = t % 2; /* odd */
// CHECK-NEXT:   // ww_cond_[[L]]: odd lanes
// CHECK-NEXT:   // !ww_cond_[[L]]: even lanes
// CHECK-NEXT:   // grow
// CHECK-NEXT:   v = v * (ww_cond_[[L]] ? 2.0f : 3.0f) + 1.0f; // scale
// CHECK-NEXT:   //w
// CHECK-NEXT:   // the even offset
// CHECK-NEXT:   w = v - (ww_cond_[[L]] ? 1.0f : 2.0f);
// CHECK-NEXT:   if (ww_cond_[[L]]) {
// CHECK-NEXT:     out[t + 32] = w * 4.0f; /* odd only */
// CHECK-NEXT:   }
// CHECK-NEXT:   // ww_cond_[[L]]: done
// CHECK-NEXT: }
// CHECK-NEXT: out[t + 64] = v + w;

// Rodinia srad's border cases: the comments that named the `else if` and
// `else` lines are kept with the side they named.
__global__ void border(const float *__restrict__ west,
                       const float *__restrict__ temp, float *__restrict__ out,
                       float jc) {
  int tx = threadIdx.x;
  float n, w;
  if (tx == 31) {
    n = temp[tx] - jc;
    w = temp[tx - 1] - jc;
  }
  else if ( tx == 0 ){ //w
	n  = temp[tx] - jc;
    w  = west[tx] - jc; 
   }
   else{  //the data elements which are not on the borders 
	n  = temp[tx] - jc;
    w  = temp[tx-1] - jc; 
   }
  out[tx] = n + w;
}

// CHECK-LABEL: __global__ void border(
// CHECK:      const bool ww_cond_[[B:[0-9]+]] = tx == 0;
// CHECK-NEXT: // ww_cond_[[B]]: w
// CHECK-NEXT: // !ww_cond_[[B]]: the data elements which are not on the borders
// CHECK-NEXT: n = temp[tx] - jc;
// CHECK-NEXT: w = (ww_cond_[[B]] ? west : temp)[(ww_cond_[[B]] ? tx : tx - 1)] - jc;
// CHECK-NEXT: }
// CHECK-NEXT: out[tx] = n + w;

int main() {
  float *a, *o;
  cudaMalloc(&a, 4096);
  cudaMalloc(&o, 4096);
  scale<<<1, 32>>>(a, o, 8);
  border<<<1, 32>>>(a, a, o, 1.0f);
}

// --fmad=false: at nvcc's default this rewrite is declined, as nvcc rounds
// its float arithmetic differently (e.g. `2.f * u` as u + u after it);
// this test is about the rewritten text (fmad-contraction.cu is about that).
