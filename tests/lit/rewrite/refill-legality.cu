// The work refill runs each item's code on another thread, in another order,
// with a smaller grid. That is only the same program when no item's work can
// see another's or which thread does it. The first kernel breaks no
// condition; each other kernel breaks one. Forced, so that only legality
// decides.
// REQUIRES: nvcc
// RUN: %warpwise rewrite %s --force-transforms --transforms refill -o %t.cu 2> %t.err
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
    s[i % 64] = v[i];
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
