// Internal variable sharing (issue 15): block-uniform values each thread
// computes and keeps privately get one copy per block in shared memory.
//  - `row_blur`: a table filled by a loop each thread runs in full and then
//    indexes at run time (local memory), with two scalars the fill needs:
//    the block's threads fill it together; the scalars stay in the fill. It
//    is `static` and launched with a 1-D block only, so the fill uses
//    threadIdx.x alone; the other kernels (other files may launch them with
//    any block shape) use the block's linear thread index.
//  - `decay_table`: a table filled by a recurrence and a scalar accumulated
//    from it: one thread fills both; the fill moves above the divergent
//    return (it neither loads nor stores memory).
//  - `per_block_scale`: a scalar from a uniform load, live across a loop,
//    with no return before it; forced (one register is no occupancy step).
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s -o %t.cu 2> %t.err
// RUN: FileCheck %s --check-prefix=REMARKS --input-file %t.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.o
// RUN: %nvcc -arch=sm_75 -c %t.cu -o %t75.o
// Rewriting the output again changes nothing.
// RUN: %warpwise rewrite %t.cu -o %t.again.cu 2> /dev/null
// RUN: cmp %t.cu %t.again.cu
// The forced candidate, and its report.
// RUN: %warpwise rewrite %s -o %t.forced.cu --force-transforms --transforms share --report %t.json 2> %t.forced.err
// RUN: FileCheck %s --check-prefix=FORCED --input-file %t.forced.err
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.forced.cu | FileCheck %s --check-prefix=FORCED-CODE
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=[x for x in d['files'][0]['decisions'] if x['transform']=='share']; print(len(s), sorted(x['code'] for x in s), s[0]['id'].rsplit('.', 1)[0])" %t.json | FileCheck %s --check-prefix=JSON
//
// REMARKS:      remark: share: `row_blur` (`weights`, filled at lines [[#L:]]-{{[0-9]+}}): block-uniform {{.*}}; filled by the block's threads together, published by one barrier that every thread reaches; 128 bytes of shared memory per block; `row_blur` registers {{[0-9]+}} -> {{[0-9]+}}, local memory 128 -> 0 bytes per thread, {{.*}}; applied for `row_blur` local memory 128 -> 0 bytes per thread [WW4004]
// REMARKS:      remark: share: `decay_table` (`table`, `norm`, filled at lines {{[0-9]+}}-{{[0-9]+}}): {{.*}}; the fill moves above the return at line {{[0-9]+}} (it neither loads nor stores memory); filled by one thread, {{.*}} local memory 192 -> 0 bytes per thread, shared memory 0 -> 196 bytes per block, occupancy 75.0% -> 100.0% at 256 threads on sm_90; applied for occupancy 75.0% -> 100.0% at 256 threads on sm_90, `decay_table` local memory 192 -> 0 bytes per thread [WW4004]
// REMARKS:      remark: share: `per_block_scale` (`scale`, filled at line {{[0-9]+}}): {{.*}} and uniform loads, {{.*}}; declined: no local memory is removed and no occupancy step is gained [WW3004]
//
// CODE:      static __global__ void row_blur(
// CODE:        // warpwise WW4004 share.row_blur.{{[0-9]+}}: the block-uniform `weights` is
// CODE:        __shared__ float [[W:ww_shared_weights[_0-9]*]][32];
// CODE-NEXT:   {
// CODE-NEXT:     float sigma = sigma0 + growth * blockIdx.y;
// CODE-NEXT:     float inv = 1.0f / (2.0f * sigma * sigma);
// CODE-NEXT:     float (&weights)[32] = [[W]];
// CODE-NEXT:     for (int k = threadIdx.x; k < 32; k += blockDim.x)
// CODE-NEXT:       weights[k] = expf(-(float)(k * k) * inv);
// CODE-NEXT:   }
// CODE-NEXT:   __syncthreads();
// CODE-NEXT:   float (&weights)[32] = [[W]];
// CODE-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CODE-NEXT:   if (i >= n)
// CODE-NEXT:     return;
// CODE:      __global__ void decay_table(
// CODE:        int i = blockIdx.x * blockDim.x + threadIdx.x;
// CODE-NEXT:   // warpwise WW4004 share.decay_table.{{[0-9]+}}: the block-uniform `table`, `norm`
// CODE:        __shared__ float [[T:ww_shared_table[_0-9]*]][48];
// CODE-NEXT:   __shared__ float [[N:ww_shared_norm[_0-9]*]];
// CODE-NEXT:   if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
// CODE-NEXT:     float (&table)[48] = [[T]];
// CODE-NEXT:     table[0] = 1.0f;
// CODE-NEXT:     for (int k = 1; k < 48; ++k)
// CODE-NEXT:       table[k] = table[k - 1] * rate;
// CODE-NEXT:     float norm = 0.0f;
// CODE-NEXT:     for (int k = 0; k < 48; ++k)
// CODE-NEXT:       norm += table[k];
// CODE-NEXT:     [[N]] = norm;
// CODE-NEXT:   }
// CODE-NEXT:   __syncthreads();
// CODE-NEXT:   float (&table)[48] = [[T]];
// CODE-NEXT:   const float &norm = [[N]];
// CODE-NEXT:   if (i >= n)
// CODE-NEXT:     return;
// CODE-NEXT:   float acc = 0.0f;
// CODE:      __global__ void per_block_scale(
// CODE:        float scale = scales[blockIdx.x] * gain;
//
// FORCED:      remark: share: `row_blur` {{.*}} applied because of --force-transforms (profitability was not checked) [WW4004]
// FORCED:      remark: share: `decay_table` {{.*}} [WW4004]
// FORCED:      remark: share: `per_block_scale` (`scale`, filled at line {{[0-9]+}}): {{.*}} and uniform loads, {{.*}}; filled by the block's threads together, {{.*}} 4 bytes of shared memory per block; applied because of --force-transforms (profitability was not checked) [WW4004]
// FORCED-CODE: __global__ void per_block_scale(
// FORCED-CODE:   __shared__ float [[S:ww_shared_scale[_0-9]*]];
// FORCED-CODE-NEXT:   {
// FORCED-CODE-NEXT:     float scale = scales[blockIdx.x] * gain;
// FORCED-CODE-NEXT:     if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
// FORCED-CODE-NEXT:       [[S]] = scale;
// FORCED-CODE-NEXT:     }
// FORCED-CODE-NEXT:   }
// FORCED-CODE-NEXT:   __syncthreads();
// FORCED-CODE-NEXT:   const float &scale = [[S]];
// FORCED-CODE-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// JSON: 3 ['WW4004', 'WW4004', 'WW4004'] share.row_blur

static __global__ void row_blur(const float *in, const int *offsets,
                                float *out, int n, float sigma0,
                                float growth) {
  float sigma = sigma0 + growth * blockIdx.y;
  float inv = 1.0f / (2.0f * sigma * sigma);
  float weights[32];
  for (int k = 0; k < 32; ++k)
    weights[k] = expf(-(float)(k * k) * inv);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int t = 0; t < 16; ++t) {
    int d = offsets[i] + t;
    acc += weights[d] * in[blockIdx.y * n + (i + d) % n];
  }
  out[blockIdx.y * n + i] = acc;
}

__global__ void decay_table(const float *in, const int *bins, float *out,
                            int n, float rate) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float table[48];
  table[0] = 1.0f;
  for (int k = 1; k < 48; ++k)
    table[k] = table[k - 1] * rate;
  float norm = 0.0f;
  for (int k = 0; k < 48; ++k)
    norm += table[k];
  float acc = 0.0f;
  for (int t = 0; t < 8; ++t)
    acc += table[bins[i] + t] * in[i] / norm;
  out[i] = acc;
}

__global__ void per_block_scale(const float *scales, const float *in,
                                float *out, int n, float gain) {
  float scale = scales[blockIdx.x] * gain;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 8; ++r)
    acc += scale * in[r * n + i];
  if (i < n)
    out[i] = acc;
}

int main() {
  row_blur<<<dim3(4, 2), 256>>>(nullptr, nullptr, nullptr, 1000, 1.0f, 0.5f);
  decay_table<<<4, 256>>>(nullptr, nullptr, nullptr, 1000, 0.9f);
  per_block_scale<<<4, 256>>>(nullptr, nullptr, nullptr, 1000, 2.0f);
  return 0;
}
