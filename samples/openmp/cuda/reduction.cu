// reduction.cu - the hand-written CUDA version of ../reduction.c: each
// reduction is a grid-stride loop over the elements (256-thread blocks,
// at most 8 blocks per SM), a warp-shuffle reduction, a shared-memory
// reduction over the block's warps, then one atomicAdd per block (dot
// product in double, count in int). max and * have no double atomic, so
// those blocks write a partial result and a one-block second pass combines
// the partials.
//
// Same arguments and stdout as the OpenMP program. stderr: one
// `kernel_ms <kernel> <ms>` line per launch (CUDA events) and the
// `region_ms <median> <min> <max>` line, timed as in the C program around
// the compute part (device allocation and copies included).
//
// Usage: reduction [n] [reps]   (defaults 1<<24, 1)
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),    \
              __FILE__, __LINE__);                                             \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static cudaEvent_t ev_start, ev_stop;

static void kernel_begin(void) { CHECK(cudaEventRecord(ev_start)); }

static void kernel_end(const char *name)
{
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(ev_stop));
  CHECK(cudaEventSynchronize(ev_stop));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
  fprintf(stderr, "kernel_ms %s %.4f\n", name, ms);
}

const int BLOCK = 256;

struct AddOp {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  template <class T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct MulOp {
  template <class T> __device__ T operator()(T a, T b) const { return a * b; }
};

// The block's reduction of v (valid in thread 0): shuffles within each warp,
// then warp 0 reduces the warps' results from shared memory.
template <class T, class Op>
__device__ T block_reduce(T v, Op op, T identity)
{
  __shared__ T warp_result[BLOCK / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2)
    v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  if (lane == 0)
    warp_result[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x / 32) ? warp_result[lane] : identity;
    for (int offset = 16; offset > 0; offset /= 2)
      v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  return v;
}

__global__ void dot_kernel(const double *x, const double *y, int n,
                           double *result)
{
  double s = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    s += x[i] * y[i];
  s = block_reduce(s, AddOp(), 0.0);
  if (threadIdx.x == 0)
    atomicAdd(result, s);
}

__global__ void maxabs_kernel(const double *x, const double *y, int n,
                              double *partial)
{
  double m = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    double d = fabs(x[i] - y[i]);
    if (d > m)
      m = d;
  }
  m = block_reduce(m, MaxOp(), 0.0);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = m;
}

__global__ void count_kernel(const double *x, int n, double threshold,
                             int *result)
{
  int c = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    if (x[i] > threshold)
      c++;
  c = block_reduce(c, AddOp(), 0);
  if (threadIdx.x == 0)
    atomicAdd(result, c);
}

__global__ void prod_kernel(const double *x, int n, double *partial)
{
  double p = 1.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    p *= 1.0 + 1e-6 * x[i];
  p = block_reduce(p, MulOp(), 1.0);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = p;
}

// Second pass: one block combines the first pass's per-block partials.
template <class Op>
__global__ void combine_kernel(const double *partial, int count, Op op,
                               double identity, double *result)
{
  double v = identity;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    v = op(v, partial[i]);
  v = block_reduce(v, op, identity);
  if (threadIdx.x == 0)
    *result = v;
}

struct results {
  double dot, maxabs, prod;
  int count;
};

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double run(int n, struct results *res)
{
  double *x = (double *)malloc((size_t)n * sizeof(double));
  double *y = (double *)malloc((size_t)n * sizeof(double));
  if (!x || !y) {
    free(x);
    free(y);
    return -1.0;
  }
  for (int i = 0; i < n; i++) {
    x[i] = (double)(((i % 101) * 37) % 101) / 101.0;
    y[i] = (double)(((i % 97) * 53) % 97) / 97.0;
  }
  const double threshold = 0.75;
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int grid = (n + BLOCK - 1) / BLOCK;
  if (grid > 8 * sms)
    grid = 8 * sms;

  double t0 = now_ms();
  size_t bytes = (size_t)n * sizeof(double);
  double *d_x, *d_y, *d_partial, *d_out;
  int *d_count;
  CHECK(cudaMalloc(&d_x, bytes));
  CHECK(cudaMalloc(&d_y, bytes));
  CHECK(cudaMalloc(&d_partial, (size_t)grid * sizeof(double)));
  CHECK(cudaMalloc(&d_out, 3 * sizeof(double))); // dot, maxabs, prod
  CHECK(cudaMalloc(&d_count, sizeof(int)));
  CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, 3 * sizeof(double)));
  CHECK(cudaMemset(d_count, 0, sizeof(int)));

  kernel_begin();
  dot_kernel<<<grid, BLOCK>>>(d_x, d_y, n, d_out);
  kernel_end("dot_kernel");
  kernel_begin();
  maxabs_kernel<<<grid, BLOCK>>>(d_x, d_y, n, d_partial);
  kernel_end("maxabs_kernel");
  kernel_begin();
  combine_kernel<<<1, BLOCK>>>(d_partial, grid, MaxOp(), 0.0, d_out + 1);
  kernel_end("combine_kernel<MaxOp>");
  kernel_begin();
  count_kernel<<<grid, BLOCK>>>(d_x, n, threshold, d_count);
  kernel_end("count_kernel");
  kernel_begin();
  prod_kernel<<<grid, BLOCK>>>(d_x, n, d_partial);
  kernel_end("prod_kernel");
  kernel_begin();
  combine_kernel<<<1, BLOCK>>>(d_partial, grid, MulOp(), 1.0, d_out + 2);
  kernel_end("combine_kernel<MulOp>");

  double out[3];
  int count = 0;
  CHECK(cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_count));
  double elapsed = now_ms() - t0;

  res->dot = out[0];
  res->maxabs = out[1];
  res->prod = out[2];
  res->count = count;
  free(x);
  free(y);
  return elapsed;
}

static int cmp_double(const void *p, const void *q)
{
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

static void print_region(double *ms, int reps)
{
  int first = reps > 2 ? 1 : 0;
  int k = reps - first;
  double *t = ms + first;
  qsort(t, k, sizeof(double), cmp_double);
  double median = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
  fprintf(stderr, "region_ms %.4f %.4f %.4f\n", median, t[0], t[k - 1]);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: reduction [n] [reps]\n");
    return 2;
  }
  CHECK(cudaEventCreate(&ev_start));
  CHECK(cudaEventCreate(&ev_stop));
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  struct results res;
  for (int r = 0; r < reps; r++) {
    ms[r] = run(n, &res);
    if (ms[r] < 0) {
      fprintf(stderr, "reduction: out of memory\n");
      return 1;
    }
  }
  print_region(ms, reps);
  printf("checksum count_above %d\n", res.count);
  printf("reduction dot %.17g\n", res.dot);
  printf("reduction maxabs %.17g\n", res.maxabs);
  printf("reduction prod %.17g\n", res.prod);
  CHECK(cudaEventDestroy(ev_start));
  CHECK(cudaEventDestroy(ev_stop));
  free(ms);
  return 0;
}
