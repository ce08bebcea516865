// External variable sharing (issue 15): launch-uniform scalars, computed
// from kernel parameters and constants alone, are computed by the host at
// every launch and passed as new parameters, where the host's arithmetic
// gives the device's bits. A kernel with external linkage keeps its
// definition, for other files, and the rewrite is a `static` copy that this
// file's launches run (share-external-linkage.cu has more): an `extern "C"`
// kernel too. The program is run on the CPU executor before and after.
// Refusals (forced, so that only legality decides): a floating-point
// product nvcc may contract, an integer division by a variable, a kernel
// whose address is taken, a launch argument with a call and a template
// kernel.
// REQUIRES: nvcc
// Measured: ptxas's instruction counts decide (for `row_offsets` nvcc 13
// unrolls the loop more without the values' definitions in view, so the
// count grows and it is declined).
// RUN: %warpwise rewrite %s -o %t.measured.cu --transforms share 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARKS --input-file %t.err
// Forced: the rewrite itself, compiled, and run against the original.
// RUN: %warpwise rewrite %s -o %t.cu --transforms share --force-transforms 2> %t.forced.err
// RUN: FileCheck %s --check-prefix=FORCED --input-file %t.forced.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.o
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.rewritten
// RUN: %t.orig > %t.orig.out
// RUN: %t.rewritten > %t.rewritten.out
// RUN: diff %t.orig.out %t.rewritten.out
// RUN: %warpwise rewrite %t.cu -o %t.again.cu --transforms share --force-transforms 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
// With --fmad=false a product is the host's too.
// RUN: %warpwise rewrite %s -o %t.nofma.cu --transforms share --force-transforms --fmad=false 2>&1 | FileCheck %s --check-prefix=NOFMA
//
// REMARKS:      remark: share: `row_offsets` (launch-uniform `pitch`, `plane`, `inv_rows`): computed from kernel parameters and constants alone, in arithmetic the host reproduces bit for bit (no floating-point product to fuse); every launch of it is a `<<<>>>` in this file, with arguments the host can evaluate again; `row_offsets` has external linkage, so other files may launch it: it stays as written, and the rewrite is `row_offsets_ww_share{{[_0-9]*}}`, a copy with internal linkage that this file's launches run; `row_offsets` registers {{[0-9]+}} -> {{[0-9]+}}, {{.*}}; SASS instructions [[#B:]] -> [[#A:]]; declined: fewer than 1.0% of the instructions are saved (rules/costs.json) and no occupancy step is gained [WW3004]
//
// CODE:      __global__ void row_offsets(const float *in, float *out, int width, int height,
// CODE-NEXT:                             int halo, float lo, float hi) {
// CODE-NEXT:   int pitch = width + 2 * halo;
// CODE:      // from other files
// CODE-NEXT: static __global__ void
// CODE-NEXT: [[K:row_offsets_ww_share[_0-9]*]](const float *in, float *out, int width, int height,
// CODE-NEXT:                        int halo, float lo, float hi, int [[P:ww_host_pitch[_0-9]*]],
// CODE-NEXT:                        int [[Q:ww_host_plane[_0-9]*]], float [[R:ww_host_inv_rows[_0-9]*]]) {
// CODE:        int pitch = [[P]];
// CODE-NEXT:   int plane = [[Q]];
// CODE-NEXT:   float inv_rows = [[R]];
// CODE:        // warpwise WW4004 share.row_offsets.{{[0-9]+}}: passes the launch-uniform `pitch`,
// CODE-NEXT:   // `plane`, `inv_rows` of `row_offsets`, computed here
// CODE-NEXT:   [[K]]<<<(w + 127) / 128, 128>>>(
// CODE-NEXT:       d_in, d_out, w, h, halo, -1.0, 1.0f, w + 2 * halo,
// CODE-NEXT:       (w + 2 * halo) * (h + 2 * halo), 1.0f / (float)h);
//
// NOFMA: remark: share: `scaled` (launch-uniform `gain`): {{.*}} (--fmad=false); {{.*}} [WW4004]
//
// FORCED: remark: share: `row_offsets` (launch-uniform `pitch`, `plane`, `inv_rows`): {{.*}}; applied because of --force-transforms (profitability was not checked) [WW4004]
// FORCED: remark: share: `scaled` {{.*}}`gain` is not computed by the host: it has a floating-point product, which nvcc may fuse with an addition into a fused multiply-add (--fmad=true, the default) that the host's arithmetic does not reproduce bit for bit{{.*}} [WW4004]
// FORCED: remark: share: `divides` {{.*}}`chunk` is not computed by the host: it has an integer division by a value that is not a constant other than 0 and -1 (the host traps where the device does not){{.*}} [WW4004]
// FORCED: remark: share: `by_address` {{.*}}launch-uniform `pitch` not computed by the host: it is named at line {{[0-9]+}} other than in a `<<<>>>` launch (its address, a launch API, an attribute or occupancy query), which would name the original kernel, not the copy that this file's launches would run{{.*}} [WW4004]
// FORCED: remark: share: `called_arg` {{.*}}launch-uniform `pitch` not computed by the host: the launch at line {{[0-9]+}} passes `w` an expression the host cannot evaluate again without effect (a call, an assignment, a default argument or a macro){{.*}} [WW4004]
// FORCED: remark: share: `c_linkage` (launch-uniform `pitch`): {{.*}}; `c_linkage` has external linkage, so other files may launch it: it stays as written, and the rewrite is `c_linkage_ww_share{{[_0-9]*}}`, a copy with internal linkage that this file's launches run; applied {{.*}} [WW4004]
// FORCED: remark: share: `templated` {{.*}}launch-uniform `pitch` not computed by the host: it is a template{{.*}} [WW4004]

#include <cstdio>

__global__ void row_offsets(const float *in, float *out, int width, int height,
                            int halo, float lo, float hi) {
  int pitch = width + 2 * halo;
  int plane = pitch * (height + 2 * halo);
  float inv_rows = 1.0f / (float)height;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width)
    return;
  float acc = 0.0f;
  for (int y = 0; y < height; ++y) {
    float v = in[(y + halo) * pitch + x + halo] + in[plane + y * pitch + x];
    acc += v * inv_rows;
  }
  out[x] = acc > hi ? hi : (acc < lo ? lo : acc);
}

__global__ void scaled(const float *in, float *out, int n, float a, float b) {
  float gain = a * b;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * n + i) % n] * gain + 1.0f;
  if (i < n)
    out[i] = acc;
}

__global__ void divides(const float *in, float *out, int n, int parts) {
  int chunk = n / parts;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < parts; ++r)
    acc += in[(r * chunk + i) % n];
  if (i < n)
    out[i] = acc;
}

__global__ void by_address(const float *in, float *out, int w, int halo) {
  int pitch = w + 2 * halo;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + i) % w];
  if (i < w)
    out[i] = acc;
}

__global__ void called_arg(const float *in, float *out, int w, int halo) {
  int pitch = w + 2 * halo;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + i) % w];
  if (i < w)
    out[i] = acc;
}

extern "C" __global__ void c_linkage(const float *in, float *out, int w,
                                     int halo) {
  int pitch = w + 2 * halo;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + i) % w];
  if (i < w)
    out[i] = acc;
}

template <int R>
__global__ void templated(const float *in, float *out, int w, int halo) {
  int pitch = w + 2 * halo;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < R; ++r)
    acc += in[(r * pitch + i) % w];
  if (i < w)
    out[i] = acc;
}

static int width_of(int w) { return w; }

int main() {
  const int w = 300, h = 5, halo = 2;
  const int cells = 2 * (w + 2 * halo) * (h + 2 * halo);
  float *hin = new float[cells], hout[w];
  for (int k = 0; k < cells; ++k)
    hin[k] = (float)((k * 37) % 101) / 50.0f - 1.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, cells * sizeof(float));
  cudaMalloc((void **)&d_out, w * sizeof(float));
  cudaMemcpy(d_in, hin, cells * sizeof(float), cudaMemcpyHostToDevice);
  row_offsets<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h, halo, -1.0, 1.0f);
  cudaMemcpy(hout, d_out, w * sizeof(float), cudaMemcpyDeviceToHost);
  for (int k = 0; k < w; k += 37)
    printf("row_offsets[%d] = %a\n", k, hout[k]);
  scaled<<<(w + 127) / 128, 128>>>(d_in, d_out, w, 0.5f, 3.0f);
  divides<<<(w + 127) / 128, 128>>>(d_in, d_out, w, 3);
  // Its address goes to a launch API elsewhere (here, nowhere).
  const void *symbol = (const void *)&by_address;
  if (!symbol)
    return 1;
  by_address<<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
  called_arg<<<(w + 127) / 128, 128>>>(d_in, d_out, width_of(w), halo);
  c_linkage<<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
  templated<4><<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
  cudaMemcpy(hout, d_out, w * sizeof(float), cudaMemcpyDeviceToHost);
  printf("last %a\n", hout[7]);
  delete[] hin;
  return 0;
}
