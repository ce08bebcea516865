// The work refill runs each item's code on another thread, in another order,
// with a smaller grid. That is only the same program when no item's work can
// see another's or which thread does it. The first kernel breaks no
// condition; each other kernel breaks one. Forced, so that only legality
// decides.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms refill -o %t.cu 2> %t.err
// RUN: sed '/^\/\/ [A-Z0-9-]*:/d' %t.cu > %t.code
// RUN: FileCheck %s --check-prefix=CODE --input-file %t.code
// CODE: __global__ void legal_ww_refill(
// CODE-NOT: _ww_refill(
// RUN: FileCheck %s --input-file %t.err
// RUN: %nvcc -arch=sm_90 -Werror all-warnings -c %t.cu -o %t.o

__global__ void legal(const float *__restrict__ in, float *__restrict__ out,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    int k = 0;
    while (x > 1.0f) {
      x = x * 0.5f;
      ++k;
    }
    out[i] = x + (float)k;
  }
}

__global__ void barrier(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0)
      v[i] -= 3;
    __syncthreads();
  }
}

__global__ void shared(int *v, int n) {
  __shared__ int s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0)
      v[i] -= 3;
    s[i % 64] = v[i] + s[0];
  }
}

__global__ void atomic(int *v, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0) {
      v[i] -= 3;
      atomicAdd(count, 1);
    }
  }
}

__global__ void neighbour_store(int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int k = v[i];
    while (k > 0)
      k -= 3;
    out[i + 1] = k;
  }
}

__global__ void neighbour_read(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0)
      v[i] -= 3;
    v[i] += v[(i + 1) % n];
  }
}

__global__ void aliased(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int k = in[i];
    while (k > 0)
      k -= 3;
    out[i] = k;
  }
}

__global__ void thread_index(int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0)
      v[i] -= 3;
    out[i] = threadIdx.x;
  }
}

__global__ void grid_size(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0)
      v[i] -= (int)gridDim.x;
  }
}

__global__ void loaded_bound(int *v, const int *limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < limit[0]) {
    while (v[i] > 0)
      v[i] -= 3;
  }
}

__global__ void two_returns(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  while (v[i] > 0) {
    if (v[i] == 7)
      return;
    v[i] -= 3;
  }
}

__global__ void array_prologue(const int *__restrict__ in,
                               int *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int acc[2] = {0, 0};
    int k = in[i];
    while (k > 0) {
      acc[k & 1] += k;
      k -= 3;
    }
    out[i] = acc[0] - acc[1];
  }
}

__global__ void carried(int *v, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    while (v[i] > 0) {
      v[i] -= step;
      step++;
    }
  }
}

__global__ void in_macro(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    while (v[i] > 0)
      v[i] -= 3;
}

#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)

void host(float *fin, float *fout, int *v, int *w, int *c, const int *lim,
          int n) {
  int *a, *b;
  cudaMalloc((void **)&a, n * sizeof(int));
  cudaMalloc((void **)&b, n * sizeof(int));
  legal<<<(n + 255) / 256, 256>>>(fin, fout, n);
  barrier<<<(n + 255) / 256, 256>>>(v, n);
  shared<<<(n + 255) / 256, 256>>>(v, n);
  atomic<<<(n + 255) / 256, 256>>>(v, c, n);
  neighbour_store<<<(n + 255) / 256, 256>>>(a, b, n);
  neighbour_read<<<(n + 255) / 256, 256>>>(v, n);
  aliased<<<(n + 255) / 256, 256>>>(v, w, n);
  thread_index<<<(n + 255) / 256, 256>>>(a, b, n);
  grid_size<<<(n + 255) / 256, 256>>>(v, n);
  loaded_bound<<<(n + 255) / 256, 256>>>(v, lim);
  two_returns<<<(n + 255) / 256, 256>>>(v, n);
  array_prologue<<<(n + 255) / 256, 256>>>(a, b, n);
  carried<<<(n + 255) / 256, 256>>>(v, n, 2);
  LAUNCH(in_macro, (n + 255) / 256, 256, v, n);
}

// The remarks, in the kernels' order.
// CHECK: 21:5: remark: refill: the while loop at line 21 of `legal`: each item{{.*}}; applied because of --force-transforms (profitability was not checked) [WW4005]
// CHECK: 32:5: remark: refill: the while loop at line 32 of `barrier`: not refilled: it calls `__syncthreads` (line 34), whose effect depends on other threads [WW3005]
// CHECK: 42:5: remark: refill: the while loop at line 42 of `shared`: not refilled: it declares the `__shared__` `s` [WW3005]
// CHECK: 51:5: remark: refill: the while loop at line 51 of `atomic`: not refilled: it calls `atomicAdd` (line 53), whose effect depends on other threads [WW3005]
// CHECK: 62:5: remark: refill: the while loop at line 62 of `neighbour_store`: not refilled: it stores to `out[i + 1]` (line 64), not to the item's own element of a pointer parameter [WW3005]
// CHECK: 71:5: remark: refill: the while loop at line 71 of `neighbour_read`: not refilled: it accesses `v[(i + 1) % n]` (line 73), another item's element of the `v` it writes [WW3005]
// CHECK: 81:5: remark: refill: the while loop at line 81 of `aliased`: not refilled: `in` may point into `out`, which it writes (`__restrict__`, or distinct cudaMalloc buffers at every launch in this file, would rule it out) [WW3005]
// CHECK: 90:5: remark: refill: the while loop at line 90 of `thread_index`: not refilled: it reads `threadIdx.x` at line 92, other than to form the item, and the refill runs the items on other threads and a smaller grid [WW3005]
// CHECK: 99:5: remark: refill: the while loop at line 99 of `grid_size`: not refilled: it reads `gridDim.x` at line 100, other than to form the item, and the refill runs the items on other threads and a smaller grid [WW3005]
// CHECK: 107:5: remark: refill: the while loop at line 107 of `loaded_bound`: not refilled: the range check's bound `limit[0]` may differ between items (it must be built from parameters, constants and the declarations before the item, without loads or calls) [WW3005]
// CHECK: 116:3: remark: refill: the while loop at line 116 of `two_returns`: not refilled: it returns at line 118, other than the range check [WW3005]
// CHECK: 129:5: remark: refill: the while loop at line 129 of `array_prologue`: not refilled: `acc` (line 127) is not a plain variable that can be declared once per thread and assigned per item [WW3005]
// CHECK: 140:5: remark: refill: the while loop at line 140 of `carried`: not refilled: it writes `step`, a parameter, which a thread would carry from one item to the next [WW3005]
// CHECK: 150:5: remark: refill: the while loop at line 150 of `in_macro`: not refilled: the launch at line 174 is inside the macro `LAUNCH` [WW3005]
// CHECK: 1 change applied (refill 1), 13 declined
