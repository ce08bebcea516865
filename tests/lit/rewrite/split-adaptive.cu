// Branch splitting, adaptive form (issue #13), chosen by the planner on sm_90
// where the heavy side alone costs an occupancy step more than the light
// side and the condition reads data. The first kernel is the original with
// the heavy threads of mixed warps listed (warps whose live threads all take
// one side run it in place), or the light side alone with every heavy thread
// listed; the heavy kernel runs over the list with each
// thread's own indices (2-D grids included); the host picks the pair or the
// original per launch. warpwise's runtime (the dispatch) is included once
// per file; the output compiles
// without a warning and a second rewrite changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms split -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// (--transforms split: the force of `dispatch` has no effect, WW1022.)
// RUN: grep -c "^#include \"warpwise_runtime.cuh\"" %t.code | FileCheck %s --check-prefix=ONE-HELPER
// ONE-HELPER: 1
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite %t.cu --transforms split -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
// With the measured dispatch (the default set has both), a kernel whose
// `dispatch` a directive forces (`heavy_else`; rules/split.json leaves it
// off for the others) times the adaptive split against the original at
// each launch; `rows`, whose dispatch a directive disables, keeps the
// launch above.
// RUN: %warpwise rewrite %s --transforms split,dispatch -o %t.m.cu 2> %t.m.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.m.cu > %t.m.code
// RUN: FileCheck %s --check-prefix=MEASURED --input-file %t.m.code
// RUN: FileCheck %s --check-prefix=MEASURED-REMARK --input-file %t.m.err
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.m.cu -o %t.m75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.m.cu -o %t.m90.o
// RUN: %warpwise rewrite %t.m.cu --transforms split,dispatch -o %t.m.again.cu 2> /dev/null
// RUN: cmp %t.m.cu %t.m.again.cu

#define WIDTH 32

// warpwise-force(dispatch)
__global__ void heavy_else(const int *mask, const float *in, float *out,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x * 0.5f + 1.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        v[k] = v[k] * 0.75f + v[(k + 1) % WIDTH] * 0.25f + x;
    float s = 0.0f;
    for (int k = 0; k < WIDTH; ++k)
      s += v[k] * (float)(k + 1);
    out[i] = s;
  }
}

// Rows on blockIdx.y: the heavy kernel rebuilds every index component.
// warpwise-disable-next-line(dispatch)
__global__ void rows(const int *solid, const float *in, float *out, int nx) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= nx)
    return;
  int node = y * nx + x;
  if (solid[node]) {
    out[node] = 0.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(node + k * 131) % (nx * gridDim.y)];
    float s = 0.0f;
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        s += v[k] * v[(k + r) % WIDTH];
    out[node] = s;
  }
}

// The heavy side returns from inside a loop: no `continue` can stand for it
// in the heavy kernel's loop.
__global__ void early_out(const int *mask, const float *in, float *out,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] == 0) {
    out[i] = 1.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k) {
      v[k] = in[(i + k * 977) % n];
      if (v[k] < -100.0f)
        return;
    }
    float s = 0.0f;
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        s += v[k] * v[(k + r) % WIDTH];
    out[i] = s;
  }
}

// Which threads take the heavy side follows from the thread index alone.
__global__ void by_index(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i % 7 != 0) {
    out[i] = 1.0f;
  } else {
    float v[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
      v[k] = in[(i + k * 977) % n];
    float s = 0.0f;
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < WIDTH; ++k)
        s += v[k] * v[(k + r) % WIDTH];
    out[i] = s;
  }
}

void run(int n, int nx, int ny, cudaStream_t s) {
  int *m;
  float *in, *out, *out2;
  cudaMalloc((void **)&m, n * sizeof(int));
  cudaMalloc((void **)&in, n * sizeof(float));
  cudaMalloc((void **)&out, n * sizeof(float));
  cudaMalloc((void **)&out2, n * sizeof(float));
  heavy_else<<<(n + 255) / 256, 256, 0, s>>>(m, in, out, n);
  rows<<<dim3((nx + 127) / 128, ny), 128>>>(m, in, out2, nx);
  early_out<<<n / 256, 256>>>(m, in, out, n);
  by_index<<<n / 256, 256>>>(in, out, n);
}

// The runtime (its dispatch; tests/lit/rewrite/split-runtime.test checks
// the file written beside the output), included once:
// CHECK:      #include "warpwise_runtime.cuh" // warpwise's runtime (WW4003)
// CHECK-NOT:  warpwise_runtime.cuh

// CHECK:      __global__ void heavy_else(
// CHECK:      // warpwise WW4003 split.heavy_else.[[HE:[0-9]+]]: split `heavy_else` (adaptive form);
// CHECK:      {{^}}__global__ void{{$}}
// CHECK-NEXT: heavy_else_ww_adaptive(const int *mask, const float *in, float *out, int n,
// CHECK-NEXT:                        unsigned long long *__restrict__ ww_counts,
// CHECK-NEXT:                        int *__restrict__ ww_list) {
// CHECK-NEXT:   // warpwise WW4003 split.heavy_else.[[HE]]: `heavy_else` with the heavy (else) side
// CHECK:        bool ww_live = false, ww_heavy = false;
// CHECK-NEXT:   do {
// CHECK-NEXT:     int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:     if (i >= n)
// CHECK-NEXT:     break;
// CHECK-NEXT:     ww_live = true;
// CHECK-NEXT:     ww_heavy = !(mask[i] == 0);
// CHECK-NEXT:   } while (0);
// CHECK:        const bool ww_mixed = ww_heavy_votes != 0u && ww_heavy_votes != ww_live_votes;
// CHECK-NEXT:   const bool ww_listed_here = ww_mixed && ww_heavy;
// CHECK-NEXT:   if (__syncthreads_or(ww_heavy)) {
// CHECK:          if (ww_listed_here) {
// CHECK:            return;
// CHECK:        // `heavy_else` as written:
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i >= n)
// CHECK-NEXT:     return;
// CHECK-NEXT:   float x = in[i];
// CHECK-NEXT:   if (mask[i] == 0) {

// CHECK:      __global__ void heavy_else_ww_light(
// CHECK:        // warpwise WW4003 split.heavy_else.[[HE]]: the light (then) side of `heavy_else`;
// CHECK:        const bool ww_listed_here = ww_heavy;
// CHECK:          if (ww_listed_here) {
// CHECK:        int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i >= n)
// CHECK-NEXT:     return;
// CHECK-NEXT:   float x = in[i];
// CHECK-NEXT:   {
// CHECK-NEXT:     out[i] = x * 0.5f + 1.0f;
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK:      __global__ void heavy_else_ww_heavy(
// CHECK:        // warpwise WW4003 split.heavy_else.[[HE]]: the heavy (else) side of `heavy_else`
// CHECK:          int i = ww_block.x * blockDim.x + ww_thread.x;
// CHECK-NEXT:     if (i >= n)
// CHECK-NEXT:     continue;
// CHECK-NEXT:     float x = in[i];
// CHECK:            if (atomicAdd(&ww_counts[1], 1ull) == gridDim.x - 1u) {

// The first kernels keep every index component as written.
// CHECK:      __global__ void rows_ww_adaptive(
// CHECK:          int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:     int y = blockIdx.y;
// CHECK:      __global__ void rows_ww_light(
// CHECK:          int y = blockIdx.y;
// CHECK:        int y = blockIdx.y;
// CHECK:      __global__ void rows_ww_heavy(
// CHECK:          int x = ww_block.x * blockDim.x + ww_thread.x;
// CHECK-NEXT:     int y = ww_block.y;
// CHECK:            v[k] = in[(node + k * 131) % (nx * ww_grid.y)];

// CHECK:        { // warpwise WW4003 split.heavy_else.[[HE]]: split launch, adaptive form
// CHECK-NEXT:     dim3 const ww_grid_[[A:[0-9]+_0]]((n + 255) / 256);
// CHECK-NEXT:     dim3 const ww_block_[[A]](256);
// CHECK-NEXT:     static ww_adaptive_site ww_site_[[A]];
// CHECK-NEXT:     ww_adaptive_plan ww_plan_[[A]] =
// CHECK-NEXT:         ww_adaptive_begin(ww_site_[[A]], ww_grid_[[A]], ww_block_[[A]], s);
// CHECK-NEXT:     if (ww_plan_[[A]].path != 0u) {
// CHECK-NEXT:       if (ww_plan_[[A]].path == 1u)
// CHECK-NEXT:         heavy_else_ww_adaptive<<<ww_grid_[[A]], ww_block_[[A]], 0, s>>>(
// CHECK-NEXT:             m, in, out, n, ww_plan_[[A]].counts, ww_plan_[[A]].list);
// CHECK-NEXT:       else
// CHECK-NEXT:         heavy_else_ww_light<<<ww_grid_[[A]], ww_block_[[A]], 0, s>>>(
// CHECK-NEXT:             m, in, out, n, ww_plan_[[A]].counts, ww_plan_[[A]].list);
// CHECK-NEXT:       heavy_else_ww_heavy<<<ww_plan_[[A]].heavy_blocks, ww_block_[[A]], 0, s>>>(
// CHECK-NEXT:           m, in, out, n, ww_plan_[[A]].counts, ww_plan_[[A]].list,
// CHECK-NEXT:           ww_plan_[[A]].stats, ww_grid_[[A]], ww_plan_[[A]].threads,
// CHECK-NEXT:           ww_plan_[[A]].path);
// CHECK-NEXT:     } else {
// CHECK-NEXT:       heavy_else<<<ww_grid_[[A]], ww_block_[[A]], 0, s>>>(m, in, out, n);
// CHECK-NEXT:     }
// CHECK-NEXT:     ww_adaptive_end(ww_plan_[[A]]);
// CHECK-NEXT:   }
// CHECK-NEXT:   { // warpwise WW4003 split.rows.{{[0-9]+}}: split launch, adaptive form
// CHECK-NEXT:     dim3 const ww_grid_{{[0-9]+_0}}(dim3((nx + 127) / 128, ny));
// CHECK:        early_out<<<n / 256, 256>>>(m, in, out, n);
// CHECK-NEXT:   by_index<<<n / 256, 256>>>(in, out, n);

// REMARK-DAG: split: if-else at line 46 of `heavy_else` is divergent {{.*}}; the light (then) side alone needs {{[0-9]+}} registers (100.0% occupancy), the heavy side {{[0-9]+}} ({{[0-9.]+}}%) on sm_90 at 256 threads; `heavy_else_ww_adaptive` {{[0-9]+}} registers ({{[0-9.]+}}%; the original {{[0-9]+}}, {{[0-9.]+}}%), `heavy_else_ww_light` {{[0-9]+}} (100.0%), `heavy_else_ww_heavy` {{[0-9]+}} ({{[0-9.]+}}%); adaptive split applied; at run time the host picks per launch the original kernel or a split pair (in place or light) when, by the counts of earlier launches, it saves heavy-side work of at least 5% of the launch's warps, looking again every 32 launches (rules/split.json) (legal because {{.*}}) [WW4003]
// REMARK-DAG: split: if-else at line 70 of `rows` is divergent {{.*}}adaptive split applied;{{.*}}[WW4003]
// REMARK-DAG: split: if-else at line 89 of `early_out` is divergent {{.*}}; the adaptive form does not apply: a return inside a loop or switch (line 96) cannot become the `continue` of the heavy kernel's loop; not split {{.*}}[WW3003]
// REMARK-DAG: split: if-else at line 109 of `by_index` is divergent {{.*}}; which threads take the heavy side follows from the thread indices alone, not from data, so the adaptive form is not chosen (--split-form adaptive forces it); not split {{.*}}[WW3003]

// MEASURED-REMARK-DAG: split: if-else at line 46 of `heavy_else` is divergent {{.*}}adaptive split applied; {{.*}}looking again every 32 launches (rules/split.json); each launch is also a measured dispatch: on its first launches of each shape it times a split pair against the original kernel and runs the faster (-DWARPWISE_DISPATCH=0 or =1 pins one) {{.*}}[WW4003]
// MEASURED-REMARK-DAG: split: if-else at line 70 of `rows` is divergent {{.*}}adaptive split applied; {{.*}}looking again every 32 launches (rules/split.json) (legal because {{.*}}[WW4003]
// MEASURED-REMARK-NOT: WW3006
// MEASURED:      { // warpwise WW4003 split.heavy_else.{{[0-9]+}}: split launch, adaptive form, measured
// MEASURED-NEXT:   dim3 const ww_grid_[[M:[0-9]+_0]]((n + 255) / 256);
// MEASURED-NEXT:   dim3 const ww_block_[[M]](256);
// MEASURED-NEXT:   static ww_measured_site ww_msite_[[M]];
// MEASURED-NEXT:   ww_measured_plan ww_mplan_[[M]] =
// MEASURED-NEXT:       ww_measured_begin(ww_msite_[[M]], ww_grid_[[M]], ww_block_[[M]], 0, s,
// MEASURED-NEXT:                         ww_measured_key(n));
// MEASURED-NEXT:   static ww_adaptive_site ww_site_[[M]];
// MEASURED-NEXT:   ww_adaptive_plan ww_plan_[[M]] = ww_adaptive_begin(
// MEASURED-NEXT:       ww_site_[[M]], ww_grid_[[M]], ww_block_[[M]], s, ww_mplan_[[M]]);
// MEASURED-NEXT:   if (ww_plan_[[M]].path != 0u) {
// MEASURED:        } else {
// MEASURED-NEXT:     heavy_else<<<ww_grid_[[M]], ww_block_[[M]], 0, s>>>(m, in, out, n);
// MEASURED-NEXT:   }
// MEASURED-NEXT:   ww_adaptive_end(ww_plan_[[M]]);
// MEASURED-NEXT:   ww_measured_end(ww_mplan_[[M]]);
// MEASURED-NEXT: }
// MEASURED-NEXT: { // warpwise WW4003 split.rows.{{[0-9]+}}: split launch, adaptive form{{$}}
// MEASURED-NOT:  ww_measured
// MEASURED:        ww_adaptive_end(ww_plan_{{[0-9]+_0}});
// MEASURED-NEXT: }
