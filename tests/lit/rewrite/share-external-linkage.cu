// External variable sharing of kernels with external linkage (issue 26,
// defect 5). Other translation units may declare and launch such a kernel,
// take its address or look it up by name, so its definition stays as
// written: the rewrite is a copy with internal linkage, `<kernel>_ww_share`,
// that this file's launches run, and a note (WW2006) says so. A kernel with
// internal linkage (`static`, an anonymous namespace) is rewritten in place.
// The rewritten file is linked with another file that declares and launches
// two of the kernels by their original names and takes one's address
// (Inputs/share_linkage_user.cu): by nvcc with -rdc=true and without, and
// on the CPU executor, whose run must print what the original program
// prints. Rewriting the output again changes nothing.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu --transforms share --force-transforms 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARKS --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// nvcc: separately compiled and linked (-rdc=true), and whole.
// RUN: %nvcc -arch=sm_90 -rdc=true -Werror all-warnings -c %t.cu -o %t.main.o
// RUN: %nvcc -arch=sm_90 -rdc=true -c %inputs/share_linkage_user.cu -o %t.user.o
// RUN: %nvcc -arch=sm_90 -rdc=true %t.main.o %t.user.o -o %t.rdc
// RUN: %nvcc -arch=sm_90 %t.cu %inputs/share_linkage_user.cu -o %t.whole
// The CPU executor: the original and the rewritten file, each linked with
// the other file.
// RUN: python3 %S/../../equiv/cpu_build.py %inputs/share_linkage_user.cu %t.user.cpu.o -c
// RUN: python3 %S/../../equiv/cpu_build.py %s %t.orig.o -c
// RUN: python3 %S/../../equiv/cpu_build.py %t.cu %t.rewritten.o -c
// RUN: g++ %t.orig.o %t.user.cpu.o -o %t.orig
// RUN: g++ %t.rewritten.o %t.user.cpu.o -o %t.rewritten
// RUN: %t.orig > %t.orig.out
// RUN: %t.rewritten > %t.rewritten.out
// RUN: diff %t.orig.out %t.rewritten.out
// Idempotence: the kept originals are not shared again, nor the copies.
// RUN: %warpwise rewrite %t.cu -o %t.again.cu --transforms share --force-transforms 2> %t.again.err
// RUN: cmp %t.cu %t.again.cu
// RUN: FileCheck %s --check-prefix=AGAIN --input-file %t.again.err
// The measured decisions (whatever they are) keep the program linking.
// RUN: %warpwise rewrite %s -o %t.measured.cu --transforms share 2> /dev/null
// RUN: %nvcc -arch=sm_90 -rdc=true -c %t.measured.cu -o %t.measured.o
// RUN: %nvcc -arch=sm_90 -rdc=true %t.measured.o %t.user.o -o %t.measured
//
// REMARKS-DAG: remark: share: `row_offsets` (launch-uniform `pitch`, `plane`): {{.*}}; `row_offsets` has external linkage, so other files may launch it: it stays as written, and the rewrite is `row_offsets_ww_share{{[_0-9]*}}`, a copy with internal linkage that this file's launches run; applied because of --force-transforms {{.*}}[WW4004]
// REMARKS-DAG: note: `row_offsets` has external linkage, so other files may launch it: its definition stays as written, and this file's launches run `row_offsets_ww_share{{[_0-9]*}}`, the copy that external variable sharing rewrote (declare it `static` if this file is its only launcher) [WW2006]
// REMARKS-DAG: note: `c_rows` has external linkage, {{.*}}run `c_rows_ww_share{{[_0-9]*}}`{{.*}}[WW2006]
// REMARKS-DAG: note: `with_table` has external linkage, {{.*}}[WW2006]
// REMARKS-DAG: note: `bounded` has external linkage, {{.*}}[WW2006]
// REMARKS-DAG: remark: share: `with_table` (`w`, filled {{.*}}[WW4004]
// REMARKS-DAG: remark: share: `local_rows` (launch-uniform `pitch`, `plane`): {{.*}}the host can evaluate again; applied {{.*}}[WW4004]
// REMARKS-DAG: remark: share: `anon_rows` (launch-uniform `pitch`, `plane`): {{.*}}the host can evaluate again; applied {{.*}}[WW4004]
// REMARKS-DAG: remark: share: `occupied` {{.*}}launch-uniform `pitch` not computed by the host: it is named at line 257 other than in a `<<<>>>` launch (its address, a launch API, an attribute or occupancy query), which would name the original kernel, not the copy that this file's launches would run{{.*}}[WW4004]
// REMARKS-DAG: remark: share: `early` {{.*}}launch-uniform `pitch` not computed by the host: its launch at line 168 comes before its definition, after which the copy it would run is defined{{.*}}[WW4004]
// REMARKS-DAG: remark: share: `inherits` {{.*}}launch-uniform `pitch` not computed by the host: its declaration at line 170 gives it `launch_bounds`, which its definition does not repeat and a copy of the definition would lack{{.*}}[WW4004]
// REMARKS-DAG: remark: share: `special` {{.*}}launch-uniform `pitch` not computed by the host: it is a template{{.*}}[WW4004]
// REMARKS-NOT: note: `local_rows`
// REMARKS-NOT: note: `anon_rows`
// REMARKS-NOT: pass 2
//
// The original stays as written; the copy follows it, with a heading that
// says why.
// CODE:      // Other files launch it (Inputs/share_linkage_user.cu).
// CODE-NEXT: __global__ void row_offsets(const float *in, float *out, int width, int height,
// CODE-NEXT:                             int halo) {
// CODE-NEXT:   int pitch = width + 2 * halo;
// CODE-NEXT:   int plane = pitch * (height + 2 * halo);
// CODE:      // warpwise WW4004 share.row_offsets.[[#]]: `[[ROW:row_offsets_ww_share[_0-9]*]]`, a copy
// CODE-NEXT: // {{.*}}with internal linkage, which this file's launches run;
// CODE-NEXT: // `row_offsets`, above, has external linkage: it stays as written for launches
// CODE-NEXT: // from other files
// CODE-NEXT: static __global__ void [[ROW]](const float *in, float *out,
// CODE-NEXT:                                              int width, int height, int halo,
// CODE-NEXT:                                              int [[P:ww_host_pitch[_0-9]*]],
// CODE-NEXT:                                              int [[Q:ww_host_plane[_0-9]*]]) {
// CODE:        int pitch = [[P]];
// CODE-NEXT:   int plane = [[Q]];
//
// Internal linkage: in place.
// CODE:      static __global__ void local_rows(const float *in, float *out, int width,
// CODE-NEXT:                                   int height, int halo, int ww_host_pitch{{[_0-9]*}},
// CODE-NEXT:                                   int ww_host_plane{{[_0-9]*}}) {
// CODE:      __global__ void anon_rows(const float *in, float *out, int width, int height,
// CODE-NEXT:                           int halo, int ww_host_pitch{{[_0-9]*}}, int ww_host_plane{{[_0-9]*}}) {
//
// extern "C": the original keeps its C linkage; the copy is a C++ `static`.
// CODE:      extern "C" __global__ void c_rows(const float *in, float *out, int width,
// CODE-NEXT:                                   int height, int halo) {
// CODE:      static __global__ void [[C:c_rows_ww_share[_0-9]*]](const float *in, float *out, int width,
//
// Both decisions on `with_table` are in its copy.
// CODE:      __global__ void with_table(const float *in, float *out, int n, int step) {
// CODE-NEXT:   int stride = step * 3 + 1;
// CODE-NEXT:   float w[8];
// CODE:      static __global__ void [[T:with_table_ww_share[_0-9]*]](const float *in, float *out, int n,
// CODE:        int stride = ww_host_stride{{[_0-9]*}};
// CODE:        __shared__ float ww_shared_w{{[_0-9]*}}[8];
//
// The attribute written before `__global__` is copied too.
// CODE:      static __launch_bounds__(128) __global__
// CODE-NEXT:     void [[B:bounded_ww_share[_0-9]*]](
//
// The launches run the copies, and the kernels with internal linkage.
// CODE:        [[ROW]]<<<(w + 127) / 128, 128>>>(
// CODE:        local_rows<<<(w + 127) / 128, 128>>>(
// CODE:        anon_rows<<<(w + 127) / 128, 128>>>(
// CODE:        [[C]]<<<(w + 127) / 128, 128>>>(
// CODE:        [[T]]<<<(w + 127) / 128, 128>>>(
// CODE:        [[B]]<<<(w + 127) / 128, 128>>>(
//
// AGAIN-NOT: [WW4004]

#include <cstdio>

// Other files launch it (Inputs/share_linkage_user.cu).
__global__ void row_offsets(const float *in, float *out, int width, int height,
                            int halo) {
  int pitch = width + 2 * halo;
  int plane = pitch * (height + 2 * halo);
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width)
    return;
  float acc = 0.0f;
  for (int y = 0; y < height; ++y)
    acc += in[(y + halo) * pitch + x + halo] - in[plane + y * pitch + x];
  out[x] = acc;
}

static __global__ void local_rows(const float *in, float *out, int width,
                                  int height, int halo) {
  int pitch = width + 2 * halo;
  int plane = pitch * (height + 2 * halo);
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width)
    return;
  float acc = 0.0f;
  for (int y = 0; y < height; ++y)
    acc += in[(y + halo) * pitch + x + halo] + in[plane + y * pitch + x];
  out[x] = acc;
}

namespace {
__global__ void anon_rows(const float *in, float *out, int width, int height,
                          int halo) {
  int pitch = width + 2 * halo;
  int plane = pitch * (height + 2 * halo);
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width)
    return;
  float acc = 0.0f;
  for (int y = 0; y < height; ++y)
    acc += in[(y + halo) * pitch + x] + in[plane + y * pitch + x + halo];
  out[x] = acc;
}
} // namespace

extern "C" __global__ void c_rows(const float *in, float *out, int width,
                                  int height, int halo) {
  int pitch = width + 2 * halo;
  int plane = pitch * (height + 2 * halo);
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width)
    return;
  float acc = 0.0f;
  for (int y = 0; y < height; ++y)
    acc -= in[(y + halo) * pitch + x + halo] + in[plane + y * pitch + x];
  out[x] = acc;
}

__global__ void early(const float *in, float *out, int width, int halo);
void launch_early(const float *in, float *out, int w, int halo) {
  early<<<(w + 127) / 128, 128>>>(in, out, w, halo);
}
__global__ void __launch_bounds__(128) inherits(const float *in, float *out,
                                                int width, int halo);

__global__ void early(const float *in, float *out, int width, int halo) {
  int pitch = width + 2 * halo;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + x) % width];
  if (x < width)
    out[x] = acc;
}

__global__ void inherits(const float *in, float *out, int width, int halo) {
  int pitch = width + 2 * halo;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + x + 1) % width];
  if (x < width)
    out[x] = acc;
}

__global__ void occupied(const float *in, float *out, int width, int halo) {
  int pitch = width + 2 * halo;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + x + 2) % width];
  if (x < width)
    out[x] = acc;
}

__global__ void with_table(const float *in, float *out, int n, int step) {
  int stride = step * 3 + 1;
  float w[8];
  for (int k = 0; k < 8; ++k)
    w[k] = (float)(k + 1) / (float)(blockIdx.x + 2);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(i + r * stride) % n] * w[(i + r) & 7];
  out[i] = acc;
}

// Declared first, then defined with an attribute before `__global__`.
__global__ void bounded(const float *in, float *out, int width, int halo);

__launch_bounds__(128) __global__ void bounded(const float *in, float *out,
                                               int width, int halo) {
  int pitch = width + 2 * halo;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + x + 3) % width];
  if (x < width)
    out[x] = acc;
}

// An explicit specialization of a template kernel: refused, as templates.
template <class T> __global__ void special(const T *in, T *out, int w, int halo);
template <>
__global__ void special<float>(const float *in, float *out, int w, int halo) {
  int pitch = w + 2 * halo;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r)
    acc += in[(r * pitch + x + 4) % w];
  if (x < w)
    out[x] = acc;
}

void launch_elsewhere(const float *in, float *out, int w, int h, int halo);

int main() {
  const int w = 300, h = 5, halo = 2;
  const int cells = 2 * (w + 2 * halo) * (h + 2 * halo);
  float *hin = new float[cells], hout[2 * w];
  for (int k = 0; k < cells; ++k)
    hin[k] = (float)((k * 37) % 101) / 50.0f - 1.0f;
  float *d_in, *d_out;
  cudaMalloc((void **)&d_in, cells * sizeof(float));
  cudaMalloc((void **)&d_out, 2 * w * sizeof(float));
  cudaMemcpy(d_in, hin, cells * sizeof(float), cudaMemcpyHostToDevice);
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, occupied, 128, 0);
  special<float><<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
  const char *names[] = {"row_offsets", "local_rows", "anon_rows", "c_rows",
                         "early",       "inherits",   "occupied",  "with_table",
                         "bounded",     "elsewhere"};
  for (int k = 0; k < 10; ++k) {
    switch (k) {
    case 0:
      row_offsets<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h, halo);
      break;
    case 1:
      local_rows<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h, halo);
      break;
    case 2:
      anon_rows<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h, halo);
      break;
    case 3:
      c_rows<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h, halo);
      break;
    case 4:
      launch_early(d_in, d_out, w, halo);
      break;
    case 5:
      inherits<<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
      break;
    case 6:
      occupied<<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
      break;
    case 7:
      with_table<<<(w + 127) / 128, 128>>>(d_in, d_out, w, h);
      break;
    case 8:
      bounded<<<(w + 127) / 128, 128>>>(d_in, d_out, w, halo);
      break;
    default:
      launch_elsewhere(d_in, d_out, w, h, halo);
    }
    cudaMemcpy(hout, d_out, 2 * w * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 2 * w; i += 37)
      printf("%s[%d] = %a\n", names[k], i, hout[i]);
  }
  delete[] hin;
  return 0;
}
