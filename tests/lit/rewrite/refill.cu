// The work refill (issue #30). Named alone (no measured dispatch): where the
// loop's trip count comes from data and ptxas shows the refill kernel keeping
// the original's occupancy, it would apply, but it is applied only on
// request (it lost on most shapes measured on an H100, rules/refill.json);
// declined where the trip count follows the item index, and where the body
// only steps what the condition tests (nvcc runs that unrolled). Forced: the
// original kernel stays; the launch chooses at run time (warpwise's runtime,
// included once). By default (the measured dispatch runs too) the refill of
// the data-dependent loop applies and its launch times the refill against
// the original; the dispatch leaves the refilled kernel alone. The outputs
// compile without a warning, and a second rewrite changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --transforms refill -o %t.default.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: cmp %s %t.default.cu
// RUN: %warpwise rewrite %s --transforms refill --force-transforms -o %t.cu 2> /dev/null
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: grep -c "^#include \"warpwise_runtime.cuh\"" %t.code | FileCheck %s --check-prefix=ONE-HELPER
// ONE-HELPER: 1
// RUN: %nvcc -arch=sm_75 -Werror all-warnings -c %t.cu -o %t.75.o
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite %t.cu --transforms refill --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
// RUN: %warpwise rewrite %s -o %t.measured.cu 2> %t.measured.err
// RUN: FileCheck %s --check-prefix=MEASURED-REMARK --input-file %t.measured.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.measured.cu > %t.measured.code
// RUN: FileCheck %s --check-prefix=MEASURED --input-file %t.measured.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.measured.cu -o %t.m90.o
// RUN: %warpwise rewrite %t.measured.cu -o %t.measured.again.cu 2> /dev/null
// RUN: cmp %t.measured.cu %t.measured.again.cu

__global__ void escape_time(int *iters, int width, int height, float x0,
                            float y0, float dx, float dy, int max_iter) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height)
    return;
  float cx = x0 + (float)(p % width) * dx;
  float cy = y0 + (float)(p / width) * dy;
  float zx = 0.0f, zy = 0.0f;
  int it = 0;
  while (zx * zx + zy * zy <= 4.0f && it < max_iter) {
    float t = zx * zx - zy * zy + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++it;
  }
  iters[p] = it;
}

__global__ void dec2zero(int *v, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n) {
    while (v[x] > 0) {
      v[x]--;
    }
  }
}

__global__ void triangle(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = 0; k < i; ++k)
      s += 1.0f / (float)(k + 1);
    out[i] = s;
  }
}

void run(int *iters, int *v, float *out, int w, int h, int n,
         cudaStream_t stream) {
  escape_time<<<(w * h + 255) / 256, 256, 0, stream>>>(
      iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000);
  dec2zero<<<(n + 255) / 256, 256>>>(v, n);
  triangle<<<(n + 127) / 128, 128>>>(out, n);
}

// REMARK: refill.cu:42:3: remark: refill: the while loop at line 42 of `escape_time`: each item's work is independent (stores only to the item's own element of `iters`, no barrier, shared memory or warp intrinsic, the thread index used only to form the item); the trip count is data-dependent (its exit depends on `zx`, a floating-point value the loop computes); warp utilisation model (rules/refill.json): with independent trip counts uniform in [0, T] a warp's lanes are busy 51.6% of the loop's issue (the warp runs its longest lane), with the refill about 90.0% until the items run out: up to 1.75x on the loop for such data, none (the bookkeeping's cost) where every item takes as long; registers {{[0-9]+}} -> {{[0-9]+}}, occupancy 100.0% -> 100.0% at 256 threads on sm_{{[0-9]+}}; SASS instructions {{[0-9]+}} -> {{[0-9]+}}; the refill would apply, but without measured dispatch it is applied only on request (--force-transforms or a directive): on an H100 {{.*}} [WW3005]
// REMARK: refill.cu:54:5: remark: refill: the while loop at line 54 of `dec2zero`: each item's work is independent {{.*}}; declined: the loop only steps `v[x]`, which its condition tests, so its trip count is known before it runs and nvcc runs it unrolled{{.*}} [WW3005]
// REMARK: refill.cu:64:5: remark: refill: the for loop at line 64 of `triangle`: {{.*}}; declined: the loop's trip count follows the item index alone{{.*}} [WW3005]

// The runtime's include above the first kernel; the original kernel stays.
// CHECK: #include "warpwise_runtime.cuh"
// CHECK: __global__ void escape_time(int *iters,
// CHECK: iters[p] = it;
// CHECK-NEXT: }
// The refill kernel after it: the item, the prologue's variables hoisted,
// the warp's loop, the counter, the range check and prologue per item, a
// chunk of the loop as written, the epilogue.
// CHECK: // warpwise WW4005 refill.escape_time.{{[0-9]+}}: work refill of `escape_time`'s
// CHECK: __global__ void escape_time_ww_refill(int *iters, int width, int height,
// CHECK: int max_iter, unsigned int *ww_next,
// CHECK-NEXT: unsigned int ww_items) {
// CHECK-NEXT: int p = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: float cx{};
// CHECK-NEXT: float cy{};
// CHECK-NEXT: float zx{};
// CHECK-NEXT: float zy{};
// CHECK-NEXT: int it{};
// The chunk: the planner's for this loop (16 operators per iteration).
// CHECK: const unsigned int ww_chunk = WARPWISE_REFILL_CHUNK_OR(64u);
// The thread's own item: range check and prologue before the warp's loop.
// CHECK: bool ww_active = !(p >= width * height), ww_more = ww_active;
// CHECK-NEXT: if (ww_active) {
// CHECK-NEXT: cx = x0 + (float)(p % width) * dx;
// CHECK: it = 0;
// CHECK-NEXT: }
// CHECK-NEXT: for (;;) {
// A chunk of the loop as written, the condition at its top; the epilogue.
// CHECK-NEXT: if (ww_active) {
// CHECK-NEXT: unsigned int ww_k = 0u;
// CHECK-NEXT: for (; ww_k < ww_chunk; ++ww_k) {
// CHECK-NEXT: if (!(zx * zx + zy * zy <= 4.0f && it < max_iter))
// CHECK-NEXT: break;
// CHECK-NEXT: {
// CHECK-NEXT: float t = zx * zx - zy * zy + cx;
// CHECK: if (ww_k != ww_chunk) {
// CHECK-NEXT: {
// CHECK-NEXT: iters[p] = it;
// CHECK-NEXT: }
// CHECK-NEXT: ww_active = false;
// CHECK-NEXT: }
// CHECK-NEXT: }
// Every lane busy: one vote. Else the counter, the range check and prologue
// per new item.
// CHECK-NEXT: if (__all_sync(0xffffffffu, ww_active))
// CHECK-NEXT: continue;
// CHECK: __ballot_sync(0xffffffffu, ww_more && !ww_active);
// Fewer than rules/refill.json's min_idle_lanes idle: another chunk first.
// CHECK: if (__popc(ww_want) < 8 && __any_sync(0xffffffffu, ww_active))
// CHECK-NEXT: continue;
// CHECK: ww_base = atomicAdd(ww_next, (unsigned int)__popc(ww_want));
// CHECK-NEXT: ww_base = __shfl_sync(0xffffffffu, ww_base, ww_leader);
// CHECK: ww_more = ww_item < ww_items;
// CHECK-NEXT: if (ww_more) {
// CHECK-NEXT: p = (int)ww_item;
// CHECK-NEXT: ww_more = !(p >= width * height);
// CHECK-NEXT: ww_active = ww_more;
// CHECK-NEXT: if (ww_active) {
// CHECK-NEXT: cx = x0 + (float)(p % width) * dx;
// CHECK-NEXT: cy = y0 + (float)(p / width) * dy;
// CHECK-NEXT: zx = 0.0f;
// CHECK-NEXT: zy = 0.0f;
// CHECK-NEXT: it = 0;
// CHECK: if (!__any_sync(0xffffffffu, ww_active))
// CHECK-NEXT: break;
// The launch: the runtime's choice between the refill kernel over its grid
// and the original.
// CHECK: { // warpwise WW4005 refill.escape_time.{{[0-9]+}}: work refill launch
// CHECK-NEXT: dim3 const ww_grid_[[L:[0-9]+_[0-9]+]]((w * h + 255) / 256);
// CHECK-NEXT: dim3 const ww_block_[[L]](256);
// CHECK-NEXT: static ww_refill_site ww_site_[[L]];
// CHECK-NEXT: ww_refill_plan ww_plan_[[L]] =
// CHECK-NEXT: ww_refill_begin(ww_site_[[L]], (const void *)escape_time_ww_refill,
// CHECK-NEXT: ww_grid_[[L]], ww_block_[[L]], 0, stream);
// CHECK-NEXT: if (ww_plan_[[L]].counter)
// CHECK-NEXT: escape_time_ww_refill<<<ww_plan_[[L]].grid, ww_block_[[L]], 0, stream>>>(
// CHECK-NEXT: iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000,
// CHECK-NEXT: ww_plan_[[L]].counter, ww_plan_[[L]].items);
// CHECK-NEXT: else
// CHECK-NEXT: escape_time<<<ww_grid_[[L]], ww_block_[[L]], 0, stream>>>(
// CHECK-NEXT: iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000);
// CHECK-NEXT: }
// Forced, the other two loops (declined by default) get the same launch.
// CHECK-NEXT: { // warpwise WW4005 refill.dec2zero.{{[0-9]+}}: work refill launch
// CHECK: dec2zero_ww_refill<<<
// CHECK: dec2zero<<<
// CHECK: { // warpwise WW4005 refill.triangle.{{[0-9]+}}: work refill launch
// CHECK: triangle_ww_refill<<<
// CHECK: triangle<<<

// By default: applied where the dispatch times it; the others declined as
// before; no WW3006 for the refilled kernel.
// MEASURED-REMARK: refill.cu:{{[0-9]+}}:3: remark: refill: the while loop at line {{[0-9]+}} of `escape_time`: {{.*}}; applied under measured dispatch: its launches time the refill and the original on their first launches of each shape, the refill first, and run the faster (-DWARPWISE_DISPATCH=0 or =1 pins one), {{.*}} [WW4005]
// MEASURED-REMARK-NOT: WW3006
// MEASURED-REMARK: the loop only steps `v[x]`
// MEASURED-REMARK: the loop's trip count follows the item index alone
// MEASURED-REMARK-NOT: WW3006
// MEASURED: { // warpwise WW4005 refill.escape_time.{{[0-9]+}}: work refill launch, measured
// MEASURED-NEXT: dim3 const ww_grid_[[L:[0-9]+_[0-9]+]]((w * h + 255) / 256);
// MEASURED-NEXT: dim3 const ww_block_[[L]](256);
// MEASURED-NEXT: static ww_measured_site ww_msite_[[L]];
// MEASURED-NEXT: ww_measured_plan ww_mplan_[[L]] = ww_measured_begin(
// MEASURED-NEXT: ww_msite_[[L]], ww_grid_[[L]], ww_block_[[L]], 0, stream,
// MEASURED-NEXT: ww_measured_key(w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000));
// MEASURED-NEXT: static ww_refill_site ww_site_[[L]];
// MEASURED-NEXT: ww_refill_plan ww_plan_[[L]] =
// MEASURED-NEXT: ww_mplan_[[L]].version != 0u
// MEASURED-NEXT: ? ww_refill_begin(ww_site_[[L]], (const void *)escape_time_ww_refill,
// MEASURED-NEXT: ww_grid_[[L]], ww_block_[[L]], 0, stream)
// MEASURED-NEXT: : ww_refill_plan();
// MEASURED-NEXT: if (ww_plan_[[L]].counter)
// MEASURED-NEXT: escape_time_ww_refill<<<ww_plan_[[L]].grid, ww_block_[[L]], 0, stream>>>(
// MEASURED-NEXT: iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000,
// MEASURED-NEXT: ww_plan_[[L]].counter, ww_plan_[[L]].items);
// MEASURED-NEXT: else
// MEASURED-NEXT: escape_time<<<ww_grid_[[L]], ww_block_[[L]], 0, stream>>>(
// MEASURED-NEXT: iters, w, h, -2.0f, -1.5f, 3.0f / w, 3.0f / h, 1000);
// MEASURED-NEXT: ww_measured_end(ww_mplan_[[L]]);
// MEASURED-NEXT: }
// MEASURED-NEXT: dec2zero<<<(n + 255) / 256, 256>>>(v, n);
// MEASURED-NEXT: triangle<<<(n + 127) / 128, 128>>>(out, n);
