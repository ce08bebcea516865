// Launch configurations with side effects (`next_grid()`, `g++`) are
// evaluated once into temporaries; the compact and adaptive forms then
// declare their own dim3 values from them under other names (they used to
// declare `ww_grid_<tag>` twice). Every form compiles.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms split --split-form adaptive -o %t.ada.cu 2> %t.ada.err
// RUN: FileCheck %s --check-prefix=ADAPTIVE --input-file %t.ada.cu
// RUN: %nvcc -arch=sm_75 -c %t.ada.cu -o %t.ada.75.o
// RUN: %nvcc -arch=sm_90 -c %t.ada.cu -o %t.ada.90.o
// RUN: %warpwise rewrite %s --force-transforms --transforms split --split-form compact -o %t.cmp.cu 2> %t.cmp.err
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t.cmp.cu
// RUN: %nvcc -arch=sm_75 -c %t.cmp.cu -o %t.cmp.75.o
// RUN: %nvcc -arch=sm_90 -c %t.cmp.cu -o %t.cmp.90.o
// RUN: %warpwise rewrite %s --force-transforms --transforms split --split-form literal -o %t.lit.cu 2> %t.lit.err
// RUN: FileCheck %s --check-prefix=LITERAL --input-file %t.lit.cu
// RUN: %nvcc -arch=sm_75 -c %t.lit.cu -o %t.lit.75.o
// RUN: %nvcc -arch=sm_90 -c %t.lit.cu -o %t.lit.90.o
// Rewriting an output again changes nothing.
// RUN: %warpwise rewrite %t.ada.cu --force-transforms --transforms split --split-form adaptive -o %t.ada.again.cu 2> /dev/null
// RUN: cmp %t.ada.cu %t.ada.again.cu

__global__ void tail(const int *__restrict__ mask, const float *__restrict__ in,
                     float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  if (mask[i] == 0) {
    out[i] = x + 1.0f;
  } else {
    float s = 0.0f;
    for (int k = 0; k < 16; ++k)
      s += in[(i + 31 * k) % n] * x;
    out[i] = s;
  }
}

static unsigned grids = 0;
static unsigned next_grid() { return ++grids; }

void run(const int *m, const float *in, float *out, int n, unsigned g,
         unsigned b) {
  tail<<<next_grid(), 256>>>(m, in, out, n);
  tail<<<g++, 256>>>(m, in, out, n);
}

// ADAPTIVE:      { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch, adaptive form
// ADAPTIVE-NEXT:   dim3 const ww_grid_value_[[A:[0-9]+_0]] = next_grid();
// ADAPTIVE-NEXT:   dim3 const ww_grid_[[A]](ww_grid_value_[[A]]);
// ADAPTIVE-NEXT:   dim3 const ww_block_[[A]](256);
// ADAPTIVE-NEXT:   static ww_adaptive_site ww_site_[[A]];
// ADAPTIVE:        tail<<<ww_grid_[[A]], ww_block_[[A]], 0, 0>>>(m, in, out, n);
// ADAPTIVE:      { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch, adaptive form
// ADAPTIVE-NEXT:   dim3 const ww_grid_value_[[B:[0-9]+_1]] = g++;
// ADAPTIVE-NEXT:   dim3 const ww_grid_[[B]](ww_grid_value_[[B]]);
// COMPACT:      { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch, compact form
// COMPACT-NEXT:   dim3 const ww_grid_value_[[A:[0-9]+_0]] = next_grid();
// COMPACT-NEXT:   dim3 const ww_grid_[[A]](ww_grid_value_[[A]]);
// COMPACT-NEXT:   dim3 const ww_block_[[A]](256);
// COMPACT:      { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch, compact form
// COMPACT-NEXT:   dim3 const ww_grid_value_[[B:[0-9]+_1]] = g++;
// COMPACT-NEXT:   dim3 const ww_grid_[[B]](ww_grid_value_[[B]]);
// COMPACT-NEXT:   dim3 const ww_block_[[B]](256);
// LITERAL:      { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch
// LITERAL-NEXT:   dim3 const ww_grid_value_[[A:[0-9]+_0]] = next_grid();
// LITERAL-NEXT:   tail_ww_then<<<ww_grid_value_[[A]], 256>>>(m, in, out, n);
// LITERAL-NEXT:   tail_ww_else<<<ww_grid_value_[[A]], 256>>>(m, in, out, n);
// LITERAL-NEXT: }
// LITERAL-NEXT: { // warpwise WW4003 split.tail.{{[0-9]+}}: split launch
// LITERAL-NEXT:   dim3 const ww_grid_value_[[B:[0-9]+_1]] = g++;
// LITERAL-NEXT:   tail_ww_then<<<ww_grid_value_[[B]], 256>>>(m, in, out, n);
// LITERAL-NEXT:   tail_ww_else<<<ww_grid_value_[[B]], 256>>>(m, in, out, n);
// LITERAL-NEXT: }
