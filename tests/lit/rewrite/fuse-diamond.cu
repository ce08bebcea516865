// A divergent diamond whose sides have the same shape: every statement pair
// merges, differing operands become selects on the condition, evaluated once.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cu -o %t.90.o

__global__ void diamond(const float *in, float *out, int n, float scale) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n)
    return;
  float acc = 0.0f;
  for (int k = tid; k < n * 8; k += n) {
    float v = in[k];
    if (tid & 1) {
      float a = v * v;
      float b = a * v;
      float c = b * 1.5f;
      float d = c / scale;
      float e = d * d + a;
      float f = e / (scale + v);
      acc += f * 0.5f;
    } else {
      float a = v * v;
      float b = a * 2.5f;
      float c = b * v;
      float d = c / (scale + 1.0f);
      float e = d * d + b;
      float f = e / (scale + a);
      acc += f * 0.25f;
    }
  }
  out[tid] = acc;
}

// CHECK:        // warpwise WW4001 fuse.diamond.{{[0-9]+}}: fused the two sides of a divergent
// CHECK-NOT:    {{^ *[^ /]}}
// CHECK:        const bool ww_cond_[[L:[0-9]+]] = tid & 1;
// CHECK-NEXT:   float a = v * v;
// CHECK-NEXT:   float b = a * (ww_cond_[[L]] ? v : 2.5f);
// CHECK-NEXT:   float c = b * (ww_cond_[[L]] ? 1.5f : v);
// CHECK-NEXT:   float d = c / (ww_cond_[[L]] ? scale : (scale + 1.0f));
// CHECK-NEXT:   float e = d * d + (ww_cond_[[L]] ? a : b);
// CHECK-NEXT:   float f = e / (scale + (ww_cond_[[L]] ? v : a));
// CHECK-NEXT:   acc += f * (ww_cond_[[L]] ? 0.5f : 0.25f);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: out[tid] = acc;
// CHECK-NOT:  {{^}} *} else

// REMARK: fuse: if-else at line {{[0-9]+}} is divergent (`tid` (line 12) depends on `threadIdx.x`); similarity {{0\.[0-9]+}} {{.*}}; 7 statement pairs merged, 0 then- and 0 else-statements kept under guards, 6 operand selects; model (fuse): issue slots per warp {{[0-9]+}} -> {{[0-9]+}} where lanes disagree, {{.*}}; diamond at 256 threads: 100.0% of warps mixed (evaluated lane by lane at 256 threads per block), predicted {{[0-9.]+}}x; `diamond` registers {{[0-9]+}} -> {{[0-9]+}}, occupancy {{.*}}; SASS instructions [[BEFORE:[0-9]+]] -> [[AFTER:[0-9]+]], {{.*}}; applied [WW4001]
