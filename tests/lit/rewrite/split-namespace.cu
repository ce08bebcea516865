// A kernel in a namespace, launched from outside it: the new kernels go next
// to the original, inside the namespace, and each launch keeps the
// qualifier it was written with. The compact form's pool helper goes at file
// scope, before the namespace (and the comment on it), where every launch
// can name it.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.lit.cu 2> %t.lit.err
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.lit.cu
// RUN: %nvcc -arch=sm_90 -c %t.lit.cu -o %t.lit.o
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.cmp.cu 2> %t.cmp.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cmp.cu > %t.cmp.code
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.cmp.code
// RUN: %nvcc -arch=sm_90 -c %t.cmp.cu -o %t.cmp.o
// RUN: %warpwise rewrite %s --transforms split --split-form efficient -o %t.eff.cu 2> %t.eff.err
// RUN: FileCheck %s --check-prefix=EFFICIENT --input-file %t.eff.cu
// RUN: %nvcc -arch=sm_90 -c %t.eff.cu -o %t.eff.o

// The lab's kernels.
namespace lab {
__global__ void pick(const int *__restrict__ mask, float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] == 0)
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}
} // namespace lab

void run(const int *m, float *o, int n) {
  lab::pick<<<n / 256, 256>>>(m, o);
  ::lab::pick<<<n / 256, 256>>>(m, o);
}

// LITERAL: __global__ void pick_ww_then(
// LITERAL: __global__ void pick_ww_else(
// LITERAL: } // namespace lab
// LITERAL: { lab::pick_ww_then<<<n / 256, 256>>>(m, o); lab::pick_ww_else<<<n / 256, 256>>>(m, o); } /* warpwise: split launch [WW4003] */
// LITERAL: { ::lab::pick_ww_then<<<n / 256, 256>>>(m, o); ::lab::pick_ww_else<<<n / 256, 256>>>(m, o); } /* warpwise: split launch [WW4003] */

// COMPACT:      static cudaMemPool_t ww_list_pool(int device) {
// COMPACT:      // The lab's kernels.
// COMPACT-NEXT: namespace lab {
// COMPACT:      lab::pick_ww_light<<<{{.*}}lab::pick_ww_heavy<<<
// COMPACT:      ::lab::pick_ww_light<<<{{.*}}::lab::pick_ww_heavy<<<

// EFFICIENT: lab::pick_ww_then<<<{{.*}}cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ww_per_sm_{{[0-9_]+}}, lab::pick_ww_wave, {{.*}}lab::pick_ww_wave<<<
