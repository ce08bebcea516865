// A kernel in a namespace, launched from outside it: the new kernels go next
// to the original, inside the namespace, and each launch keeps the
// qualifier it was written with. The line that includes warpwise's runtime
// (the compact form's list pool, the adaptive form's dispatch) goes at file
// scope, before the namespace (and the comment on it), where every launch can
// name them.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.lit.cu 2> %t.lit.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.lit.cu > %t.lit.code
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.lit.code
// RUN: %nvcc -arch=sm_90 -c %t.lit.cu -o %t.lit.o
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.cmp.cu 2> %t.cmp.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cmp.cu > %t.cmp.code
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.cmp.code
// RUN: %nvcc -arch=sm_90 -c %t.cmp.cu -o %t.cmp.o
// RUN: %warpwise rewrite %s --transforms split --split-form adaptive -o %t.ada.cu 2> %t.ada.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.ada.cu > %t.ada.code
// RUN: FileCheck %s --check-prefix=ADAPTIVE --input-file %t.ada.code
// RUN: %nvcc -arch=sm_90 -c %t.ada.cu -o %t.ada.o

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

// LITERAL:      // The lab's kernels.
// LITERAL-NEXT: namespace lab {
// LITERAL:      // warpwise WW4003 split.pick.[[N:[0-9]+]]: split `pick` (literal form);
// LITERAL:      __global__ void pick_ww_then(
// LITERAL:      __global__ void pick_ww_else(
// LITERAL:      } // namespace lab
// LITERAL:      { // warpwise WW4003 split.pick.[[N]]: split launch
// LITERAL-NEXT: {{^ *}}lab::pick_ww_then<<<n / 256, 256>>>(m, o);
// LITERAL-NEXT: {{^ *}}lab::pick_ww_else<<<n / 256, 256>>>(m, o);
// LITERAL-NEXT: }
// LITERAL-NEXT: { // warpwise WW4003 split.pick.[[N]]: split launch
// LITERAL-NEXT: {{^ *}}::lab::pick_ww_then<<<n / 256, 256>>>(m, o);
// LITERAL-NEXT: {{^ *}}::lab::pick_ww_else<<<n / 256, 256>>>(m, o);
// LITERAL-NEXT: }

// COMPACT:      #include "warpwise_runtime.cuh" // warpwise's runtime (WW4003)
// COMPACT-EMPTY:
// COMPACT-NEXT: // The lab's kernels.
// COMPACT-NEXT: namespace lab {
// COMPACT:      { // warpwise WW4003 split.pick.[[N:[0-9]+]]: split launch, compact form
// COMPACT:      {{^ *}}lab::pick_ww_light<<<ww_grid_[[L:[0-9]+_[0-9]+]], ww_block_[[L]], 0, 0>>>(
// COMPACT-NEXT:     m, o, ww_list_[[L]] + 1, ww_list_[[L]]);
// COMPACT-NEXT: {{^ *}}lab::pick_ww_heavy<<<ww_grid_[[L]], ww_block_[[L]], 0, 0>>>(
// COMPACT-NEXT:     m, o, ww_list_[[L]] + 1, ww_list_[[L]]);
// COMPACT:      { // warpwise WW4003 split.pick.[[N]]: split launch, compact form
// COMPACT:      {{^ *}}::lab::pick_ww_light<<<ww_grid_[[M:[0-9]+_[0-9]+]], ww_block_[[M]], 0, 0>>>(
// COMPACT-NEXT:     m, o, ww_list_[[M]] + 1, ww_list_[[M]]);
// COMPACT-NEXT: {{^ *}}::lab::pick_ww_heavy<<<ww_grid_[[M]], ww_block_[[M]], 0, 0>>>(
// COMPACT-NEXT:     m, o, ww_list_[[M]] + 1, ww_list_[[M]]);

// ADAPTIVE:      #include "warpwise_runtime.cuh" // warpwise's runtime (WW4003)
// ADAPTIVE-EMPTY:
// ADAPTIVE-NEXT: // The lab's kernels.
// ADAPTIVE-NEXT: namespace lab {
// ADAPTIVE:      __global__ void pick_ww_adaptive(
// ADAPTIVE:      __global__ void pick_ww_heavy(
// ADAPTIVE:      } // namespace lab
// ADAPTIVE:      { // warpwise WW4003 split.pick.[[N:[0-9]+]]: split launch, adaptive form
// ADAPTIVE:      lab::pick_ww_adaptive<<<ww_grid_[[A:[0-9]+_0]], ww_block_[[A]], 0, 0>>>(
// ADAPTIVE:      lab::pick_ww_heavy<<<ww_plan_[[A]].heavy_blocks, ww_block_[[A]], 0, 0>>>(
// ADAPTIVE:      lab::pick<<<ww_grid_[[A]], ww_block_[[A]], 0, 0>>>(m, o);
// ADAPTIVE:      { // warpwise WW4003 split.pick.[[N]]: split launch, adaptive form
// ADAPTIVE:      ::lab::pick_ww_adaptive<<<
// ADAPTIVE:      ::lab::pick_ww_heavy<<<
// ADAPTIVE:      ::lab::pick<<<
