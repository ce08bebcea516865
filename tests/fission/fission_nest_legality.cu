// fission_nest_legality.cu - loop nests that fission splits as a whole, or
// must not (tests/lit/rewrite/fission-nest-legality.test): the nest splits
// only where the inner loop's split and the outer loop's split, over the
// inner loop's copies, are each legal.
#define TERMS 24

// The inner loop under `#pragma unroll`, with a declaration both of its
// statements use (`w`, recomputed in each copy): both copies keep the pragma
// and the declaration.
__global__ void pragma_tables(const float *__restrict__ a,
                              const float *__restrict__ b,
                              float *__restrict__ out_a,
                              float *__restrict__ out_b, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t];
#pragma unroll
    for (int k = 0; k < TERMS; ++k) {
      const float w = (float)(k + 1) / 16.f;
      sa[k] = sa[k] * x + w; // the first recurrence
      sb[k] = sb[k] * y + w * 0.5f;
    }
  }
  float ra = 0.f, rb = 0.f;
  for (int k = 0; k < TERMS; ++k)
    ra += sa[k] * sa[(k + 1) % TERMS];
  for (int k = 0; k < TERMS; ++k)
    rb += sb[k] * sb[(k + 1) % TERMS];
  out_a[t] = ra;
  out_b[t] = rb;
}

// The inner loop's counter is declared outside it: both copies would set
// the same `k`, so the outer copies are not independent (the outer split of
// the forced mode's second pass finds the same).
__global__ void outer_counter(const float *__restrict__ a,
                              const float *__restrict__ b,
                              float *__restrict__ out, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  int k;
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t];
    for (k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + 1.f;
      sb[k] = sb[k] * y + 2.f;
    }
  }
  out[t] = sa[k - 1] + sb[k - 2];
}

// The first copy of the inner loop stores through `acc`, which may alias
// `bias`, read by the second copy's input: the dependence between the
// groups goes through memory.
__global__ void aliased_tables(const float *__restrict__ a,
                               const float *__restrict__ b, float *acc,
                               const float *bias, float *out, int n,
                               int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t] + bias[t];
    for (int k = 0; k < TERMS; ++k) {
      acc[k * n + t] = acc[k * n + t] * x + 1.f;
      sb[k] = sb[k] * y + 2.f;
    }
  }
  out[t] = sb[0] + sb[TERMS - 1];
}

// Fission disabled on the inner loop: the nest does not split it either.
__global__ void disabled_inner(const float *__restrict__ a,
                               const float *__restrict__ b,
                               float *__restrict__ out, int n, int len) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float sa[TERMS] = {};
  float sb[TERMS] = {};
  for (int i = 0; i < len; ++i) {
    float x = a[i * n + t];
    float y = b[i * n + t];
    // warpwise-disable-next-line(fission)
    for (int k = 0; k < TERMS; ++k) {
      sa[k] = sa[k] * x + 1.f;
      sb[k] = sb[k] * y + 2.f;
    }
  }
  out[t] = sa[0] + sb[TERMS - 1];
}
