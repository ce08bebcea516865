// Kernels that cannot be split, each with the reason; nothing is rewritten.
// RUN: %warpwise rewrite %s --transforms split --split-form literal -o %t.cu 2> %t.err
// RUN: cmp %s %t.cu
// RUN: FileCheck %s --input-file %t.err

#define LAUNCH(k, n, ...) k<<<(n) / 128, 128>>>(__VA_ARGS__)

__global__ void aliasing(const int *mask, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i])
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

__global__ void barrier(const int *__restrict__ mask, float *__restrict__ out) {
  __shared__ float s[128];
  int i = threadIdx.x;
  s[i] = 1.0f;
  __syncthreads();
  if (mask[i])
    out[i] = s[(i + 1) % 128];
  else
    out[i] = 0.0f;
}

__global__ void in_macro(const int *__restrict__ mask, float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i])
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

__global__ void prefix_store(const int *__restrict__ mask, float *__restrict__ out,
                             float *__restrict__ log) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  log[i] = 0.0f;
  if (mask[i])
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

template <typename... Extra>
__global__ void packed(const int *__restrict__ mask, float *__restrict__ out,
                       Extra... extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i])
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

template <typename T>
__global__ void dependent_cond(const T *__restrict__ mask,
                               float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i] > T(0))
    out[i] = 1.0f;
  else
    out[i] = 2.0f;
}

template <typename T>
__global__ void dependent_arg(const int *__restrict__ mask,
                              T *__restrict__ out, T scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (mask[i])
    out[i] = scale;
  else
    out[i] = scale * scale;
}

template <typename T> void go(const int *m, T *o, T *s, int n) {
  dependent_arg<T><<<n / 128, 128>>>(m, o, *s++);
}

void run(const int *m, float *o, float *l, int n) {
  aliasing<<<n / 128, 128>>>(m, o, n);
  barrier<<<1, 128>>>(m, o);
  LAUNCH(in_macro, n, m, o);
  prefix_store<<<n / 128, 128>>>(m, o, l);
  packed<<<n / 128, 128>>>(m, o, 1, 2.0f);
  dependent_cond<<<n / 128, 128>>>(m, o);
  go(m, o, l, n);
}

// CHECK: split: if-else at line 10 of `aliasing` is divergent, but it cannot be split: the condition's inputs are read through `mask`, which may alias `out` that the branch writes (neither is __restrict__); the second kernel could see the first one's writes [WW3003]
// CHECK: split: if-else at line 21 of `barrier` is divergent, but it cannot be split: it uses shared memory `s` (line 17) [WW3003]
// CHECK: split: if-else at line 29 of `in_macro` is divergent, but it cannot be split: the launch at line 82 is inside the macro `LAUNCH` [WW3003]
// CHECK: split: if-else at line 39 of `prefix_store` is divergent, but it cannot be split: the code before the branch has a store (line 38), and it would run in both kernels [WW3003]
// CHECK: split: if-else at line 49 of `packed` is divergent, but it cannot be split: it takes a function parameter pack; the launches' arguments cannot be matched to parameters before instantiation [WW3003]
// CHECK: split: if-else at line 59 of `dependent_cond` is divergent, but it cannot be split: its condition depends on template parameters, so it cannot be shown free of side effects before instantiation [WW3003]
// CHECK: split: if-else at line 69 of `dependent_arg` is divergent, but it cannot be split: argument 3 of the launch at line 76 has side effects and a type that depends on template parameters, so it cannot be evaluated once into a temporary [WW3003]
