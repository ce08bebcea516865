// A declaration kept under its side's guard and used after it is declared
// before the melded code, under a fresh name, and assigned in the guard.
// Two shapes that the hoisting once wrote wrong, so that the candidate did
// not compile (found on samples/lbm_d2q9.cu, forced): the second and later
// declarators of one declaration (`float rho = 0.0f, ux = 0.0f;` became
// `float rho = 0.0f, ux_else;`, redefining `rho`), and an array declared
// without an initialiser (`float f[Q];` lost its bound). Each hoisted
// declarator is now a declaration of its own, with its bounds, and every
// variable of a hoisted declaration is renamed (`ux` below is used only
// under the guard, but is declared with `rho`, which is used after it). A
// declaration whose declarators are not all plain names (`*last`) is not
// split: the meld is declined with the reason.
// REQUIRES: nvcc
// RUN: %warpwise rewrite --fmad=false %s --transforms meld --force-transforms -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARK --input-file %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --input-file %t.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.90.o
// RUN: %warpwise rewrite --fmad=false %t.cu --transforms meld --force-transforms -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu

#define Q 4

// REMARK: meld-hoist-declarators.cu:[[#@LINE+9]]:3: remark: meld: if-else at line [[#@LINE+9]] is divergent; {{.*}} [WW4001]
// REMARK-NOT: error
__global__ void relax(const float *fin, float *fout, const int *solid,
                      int cells) {
  int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= cells)
    return;
  const int cx[Q] = {1, -1, 0, 0};
  const int opposite[Q] = {1, 0, 3, 2};
  if (solid[node]) {
    for (int q = 0; q < Q; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = fin[back * cells + node];
    }
  } else {
    float f[Q];
    float rho = 0.0f, ux = 0.0f, uy;
    for (int q = 0; q < Q; ++q) {
      f[q] = fin[q * cells + node];
      rho += f[q];
      ux += f[q] * cx[q];
    }
    ux /= rho;
    uy = ux * 0.5f;
    for (int q = 0; q < Q; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = f[q] - 0.5f * (f[q] - rho * 0.25f) + back + uy;
    }
  }
}

// CHECK:      const bool ww_cond_[[#]] = solid[node];
// CHECK-NEXT: float f_else[Q];
// CHECK-NEXT: float rho_else;
// CHECK-NEXT: float ux_else;
// CHECK-NEXT: float uy_else;
// CHECK:      if (!ww_cond_[[#]]) {
// CHECK-NEXT:   rho_else = 0.0f;
// CHECK-NEXT:   ux_else = 0.0f;
// CHECK-NEXT:   for (int q = 0; q < Q; ++q) {
// CHECK-NEXT:     f_else[q] = fin[q * cells + node];
// CHECK-NEXT:     rho_else += f_else[q];
// CHECK-NEXT:     ux_else += f_else[q] * cx[q];
// CHECK-NEXT:   }
// CHECK-NEXT:   ux_else /= rho_else;
// CHECK-NEXT:   uy_else = ux_else * 0.5f;

// REMARK: meld-hoist-declarators.cu:[[#@LINE+8]]:3: remark: meld: if-else at line [[#@LINE+8]] is divergent, but cannot be merged: `last` (line [[#@LINE+15]]) would have to be declared before its guard apart from the other variables of its declaration, and its declarator is not a plain name;
__global__ void relax_pointer(const float *fin, float *fout, const int *solid,
                              int cells) {
  int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= cells)
    return;
  const int cx[Q] = {1, -1, 0, 0};
  const int opposite[Q] = {1, 0, 3, 2};
  if (solid[node]) {
    for (int q = 0; q < Q; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = fin[back * cells + node];
    }
  } else {
    float f[Q];
    float rho = 0.0f, *last = &f[Q - 1];
    for (int q = 0; q < Q; ++q) {
      f[q] = fin[q * cells + node];
      rho += f[q];
    }
    *last += rho;
    for (int q = 0; q < Q; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = f[q] - 0.5f * (f[q] - rho * 0.25f) + back;
    }
  }
}

// An array whose bound names a local variable declared in the guard: above
// the guard the bound would name the outer `M` (2 elements for 4) or
// nothing. Declined, as is a declaration whose type is deduced.
// REMARK: meld-hoist-declarators.cu:[[#@LINE+9]]:3: remark: meld: if-else at line [[#@LINE+9]] is divergent, but cannot be merged: `f` (line [[#@LINE+16]]) would have to be declared before its guard, but its array bound names a local variable;
__global__ void local_bound(const float *fin, float *fout, const int *solid,
                            int cells) {
  const int M = 2;
  int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= cells)
    return;
  const int cx[Q] = {1, -1, 0, 0};
  const int opposite[Q] = {1, 0, 3, 2};
  if (solid[node]) {
    for (int q = 0; q < M; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = fin[back * cells + node];
    }
  } else {
    const int M = Q;
    float f[M];
    float rho = 0.0f;
    for (int q = 0; q < Q; ++q) {
      f[q] = fin[q * cells + node];
      rho += f[q];
    }
    for (int q = 0; q < Q; ++q) {
      int xn = (node + cx[q] + cells) % cells, back = opposite[q];
      fout[q * cells + xn] = f[q] - 0.5f * (f[q] - rho * 0.25f) + back;
    }
  }
}
