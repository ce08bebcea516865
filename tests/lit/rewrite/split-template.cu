// Branch splitting of a template kernel: the new kernels keep the template
// header, and every launch keeps its template arguments: partly deduced
// (`pick<2>`), all spelled (`pick<4, double>`), or written in a function
// template (`pick<W, T>`). A side-effecting argument is evaluated once into
// a temporary of the specialization's parameter type. Each form compiles as
// C++03 for sm_75 and sm_90, except the adaptive one (C++11).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.lit.cu 2> %t.lit.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.lit.cu > %t.lit.code
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.lit.code
// RUN: %nvcc -std=c++03 -arch=sm_75 -c %t.lit.cu -o %t.lit.75.o
// RUN: %nvcc -std=c++03 -arch=sm_90 -c %t.lit.cu -o %t.lit.90.o
// RUN: %warpwise rewrite %s --transforms split --split-form compact -o %t.cmp.cu 2> %t.cmp.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cmp.cu > %t.cmp.code
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.cmp.code
// RUN: %nvcc -std=c++03 -arch=sm_75 -c %t.cmp.cu -o %t.cmp.75.o
// RUN: %nvcc -std=c++03 -arch=sm_90 -c %t.cmp.cu -o %t.cmp.90.o
// RUN: %warpwise rewrite %s --transforms split --split-form adaptive -o %t.ada.cu 2> %t.ada.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.ada.cu > %t.ada.code
// RUN: FileCheck %s --check-prefix=ADAPTIVE --input-file %t.ada.code
// RUN: FileCheck %s --check-prefix=ADAPTIVE-ERR --input-file %t.ada.err
// The adaptive form's host code needs C++11 (std::mutex); for a file parsed
// as C++03 it is declined.
// RUN: %nvcc -std=c++11 -arch=sm_75 -c %t.ada.cu -o %t.ada.75.o
// RUN: %nvcc -std=c++11 -arch=sm_90 -c %t.ada.cu -o %t.ada.90.o
// RUN: %warpwise rewrite %s --transforms split --split-form adaptive -o %t.ada03.cu 2> %t.ada03.err -- -std=c++03
// RUN: cmp %s %t.ada03.cu
// RUN: FileCheck %s --check-prefix=ADAPTIVE-03 --input-file %t.ada03.err
// Unforced on sm_90, as for any kernel, the planner declines and says why,
// with the largest instantiation's registers.
// RUN: %warpwise rewrite %s --transforms split -o %t.90.cu 2> %t.90.err
// RUN: cmp %s %t.90.cu
// RUN: FileCheck %s --check-prefix=SM90 --input-file %t.90.err

template <int W, typename T>
__global__ void pick(const int *__restrict__ mask, const T *__restrict__ in,
                     T *__restrict__ out, T bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T x = in[i];
  if (mask[i] == 0) {
    out[i] = x + bias;
  } else {
    T s = T(0);
    for (int k = 0; k < W; ++k)
      s += in[i + k] * x;
    out[i] = s;
  }
}

template <int W, typename T>
void pick_all(const int *m, const T *in, T *out, int n) {
  pick<W, T><<<n / 256, 256>>>(m, in, out, T(1));
}

// A launch inside a template that leaves T to deduction: the new kernels'
// launches deduce it the same way.
template <typename T>
__global__ void deduced(const int *__restrict__ mask, T *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] == 0)
    out[i] = T(1);
  else
    out[i] = T(2);
}

template <typename T> void deduce(const int *m, T *out, int n) {
  deduced<<<n / 256, 256>>>(m, out);
}

static float next_bias(float *b) { return (*b)++; }

void run(const int *m, const float *in, float *out, const double *ind,
         double *outd, int n) {
  float b = 0.5f;
  pick<2><<<n / 256, 256>>>(m, in, out, next_bias(&b));
  pick<4, double><<<n / 256, 256>>>(m, ind, outd, 0.0);
  pick_all<8>(m, in, out, n);
  deduce(m, out, n);
}

// LITERAL:      // warpwise WW4003 split.pick.[[P:[0-9]+]]: split `pick` (literal form);
// LITERAL:      // warpwise WW4003 split.pick.[[P]]: the then-side of `pick`, split into a kernel of
// LITERAL-NEXT: // its own
// LITERAL-NEXT: template <int W, typename T>
// LITERAL-NEXT: __global__ void pick_ww_then(const int *__restrict__ mask,
// LITERAL-NEXT:                              const T *__restrict__ in, T *__restrict__ out,
// LITERAL:      // warpwise WW4003 split.pick.[[P]]: the else-side of `pick`, split into a kernel of
// LITERAL-NEXT: // its own
// LITERAL-NEXT: template <int W, typename T>
// LITERAL-NEXT: __global__ void pick_ww_else(
// LITERAL:      { // warpwise WW4003 split.pick.[[P]]: split launch
// LITERAL-NEXT:   pick_ww_then<W, T><<<n / 256, 256>>>(m, in, out, T(1));
// LITERAL-NEXT:   pick_ww_else<W, T><<<n / 256, 256>>>(m, in, out, T(1));
// LITERAL-NEXT: }
// LITERAL:      // warpwise WW4003 split.deduced.[[D:[0-9]+]]: the then-side of `deduced`, split into a
// LITERAL-NEXT: // kernel of its own
// LITERAL-NEXT: template <typename T>
// LITERAL-NEXT: __global__ void deduced_ww_then(
// LITERAL:      { // warpwise WW4003 split.deduced.[[D]]: split launch
// LITERAL-NEXT:   deduced_ww_then<<<n / 256, 256>>>(m, out);
// LITERAL-NEXT:   deduced_ww_else<<<n / 256, 256>>>(m, out);
// LITERAL-NEXT: }
// LITERAL:      { // warpwise WW4003 split.pick.[[P]]: split launch
// LITERAL-NEXT:   dim3 const ww_grid_value_[[A:[0-9_]+]] = n / 256;
// LITERAL-NEXT:   float const ww_arg3_[[A]] = next_bias(&b);
// LITERAL-NEXT:   pick_ww_then<2><<<ww_grid_value_[[A]], 256>>>(m, in, out, ww_arg3_[[A]]);
// LITERAL-NEXT:   pick_ww_else<2><<<ww_grid_value_[[A]], 256>>>(m, in, out, ww_arg3_[[A]]);
// LITERAL-NEXT: }
// LITERAL-NEXT: { // warpwise WW4003 split.pick.[[P]]: split launch
// LITERAL-NEXT:   pick_ww_then<4, double><<<n / 256, 256>>>(m, ind, outd, 0.0);
// LITERAL-NEXT:   pick_ww_else<4, double><<<n / 256, 256>>>(m, ind, outd, 0.0);
// LITERAL-NEXT: }

// COMPACT:      __global__ void pick(
// COMPACT:      // warpwise WW4003 split.pick.[[P:[0-9]+]]: split `pick` (compact form);
// COMPACT:      template <int W, typename T>
// COMPACT-NEXT: __global__ void pick_ww_light(const int *__restrict__ mask,
// COMPACT-NEXT:                               const T *__restrict__ in, T *__restrict__ out,
// COMPACT-NEXT:                               T bias, int *__restrict__ ww_list,
// COMPACT-NEXT:                               int *__restrict__ ww_count) {
// COMPACT:      { // warpwise WW4003 split.pick.[[P]]: split launch, compact form
// COMPACT:        pick_ww_light<W, T><<<ww_grid_{{[0-9_]+}}, ww_block_{{[0-9_]+}}, 0, 0>>>(
// COMPACT-NEXT:       m, in, out, T(1), ww_list_{{[0-9_]+}} + 1, ww_list_{{[0-9_]+}});
// COMPACT-NEXT:   pick_ww_heavy<W, T><<<
// COMPACT:      { // warpwise WW4003 split.pick.[[P]]: split launch, compact form
// COMPACT:        pick_ww_light<2><<<
// COMPACT:        pick_ww_heavy<2><<<
// COMPACT:      { // warpwise WW4003 split.pick.[[P]]: split launch, compact form
// COMPACT:        pick_ww_light<4, double><<<
// COMPACT:        pick_ww_heavy<4, double><<<

// ADAPTIVE:      __global__ void pick(
// ADAPTIVE:      // warpwise WW4003 split.pick.[[P:[0-9]+]]: split `pick` (adaptive form);
// ADAPTIVE:      template <int W, typename T>
// ADAPTIVE-NEXT: __global__ void pick_ww_adaptive(const int *__restrict__ mask,
// ADAPTIVE-NEXT:                                  const T *__restrict__ in, T *__restrict__ out,
// ADAPTIVE:      { // warpwise WW4003 split.pick.[[P]]: split launch, adaptive form
// ADAPTIVE:      pick_ww_adaptive<W, T><<<ww_grid_{{[0-9_]+}}, ww_block_{{[0-9_]+}}, 0, 0>>>(
// ADAPTIVE:      pick_ww_heavy<W, T><<<ww_plan_{{[0-9_]+}}.heavy_blocks,
// ADAPTIVE:      pick<W, T><<<ww_grid_{{[0-9_]+}}, ww_block_{{[0-9_]+}}, 0, 0>>>(m, in, out, T(1));
// ADAPTIVE:      { // warpwise WW4003 split.deduced.{{[0-9]+}}: split launch, adaptive form
// ADAPTIVE:      deduced_ww_adaptive<<<
// ADAPTIVE:      deduced_ww_heavy<<<
// ADAPTIVE:      { // warpwise WW4003 split.pick.[[P]]: split launch, adaptive form
// ADAPTIVE-NEXT:   dim3 const ww_grid_value_[[T:[0-9_]+]] = n / 256;
// ADAPTIVE-NEXT:   float const ww_arg3_[[T]] = next_bias(&b);
// ADAPTIVE:      pick_ww_adaptive<2><<<{{.*}}>>>(
// ADAPTIVE-NEXT:     m, in, out, ww_arg3_[[T]], ww_plan_{{[0-9_]+}}.counts, ww_plan_{{[0-9_]+}}.list);
// ADAPTIVE:      pick_ww_heavy<2><<<
// ADAPTIVE:      pick<2><<<{{.*}}>>>(m, in, out, ww_arg3_[[T]]);
// ADAPTIVE:      { // warpwise WW4003 split.pick.[[P]]: split launch, adaptive form
// ADAPTIVE:      pick_ww_adaptive<4, double><<<
// ADAPTIVE:      pick_ww_heavy<4, double>
// ADAPTIVE-NEXT:     <<<ww_plan_{{[0-9_]+}}.heavy_blocks,
// ADAPTIVE-ERR: split: if-else at line 60 of `deduced` {{.*}}adaptive split applied because it was forced (--split-form adaptive); at run time the host picks per launch {{.*}}[WW4003]

// ADAPTIVE-03: split: if-else at line 40 of `pick` {{.*}}; the adaptive form does not apply: its host code needs C++11 (std::mutex), and this file is parsed as an earlier standard; not split [WW3003]

// SM90: split: if-else at line 40 of `pick` is divergent {{.*}}the heavy side costs no occupancy step more than the light one{{.*}}; not split (the literal form was not considered: registers {{[0-9]+}} (the largest of 3 instantiations) -> {{.*}}[WW3003]
