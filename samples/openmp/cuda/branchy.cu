// branchy.cu - the hand-written CUDA version of ../branchy.c: one thread
// per element (grid-stride loop, 256-thread blocks), the helper functions
// as __device__ functions; neighbouring threads take different sides of
// the branches, as in the C loop. Arrays are allocated and copied inside
// the timed part, as in the OpenMP translation.
//
// Same arguments and stdout as the OpenMP program. stderr: one
// `kernel_ms <kernel> <ms>` line per launch (CUDA events) and the
// `region_ms <median> <min> <max>` line.
//
// Usage: branchy [n] [reps]   (defaults 1<<24, 1)
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
}__device__ double light(double v)
{
  return ((0.5 * v - 1.25) * v + 2.0) * v + 0.125;
}

__device__ double heavy(double v)
{
  double s = 0.0;
  for (int k = 1; k <= 8; k++)
    s += exp(-v * k) * sqrt(v + k);
  return s;
}

__device__ double classify(double v)
{
  if (v < 0.25)
    return light(v);
  else if (v < 0.6)
    return sqrt(v) * light(1.0 - v);
  else
    return heavy(v) - v;
}

__global__ void branchy_kernel(const double *in, double *out, double *w,
                               double t, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    double v = in[i];
    out[i] = v > t ? heavy(v) : light(v);
    if (v < 0.5)
      w[i] = classify(v) * 2.0 + v * v;
    else
      w[i] = classify(1.0 - v) * 0.5 - v * v;
  }
}

struct results {
  double sum_out, sum_w, out_first, out_mid, w_last;
};

static double now_ms(void);

static double run(int n, struct results *res)
{
  double *in = (double *)malloc((size_t)n * sizeof(double));
  double *out = (double *)malloc((size_t)n * sizeof(double));
  double *w = (double *)malloc((size_t)n * sizeof(double));
  if (!in || !out || !w) {
    free(in);
    free(out);
    free(w);
    return -1.0;
  }
  for (int i = 0; i < n; i++) {
    in[i] = (double)(((i % 101) * 37) % 101) / 101.0;
    out[i] = 0.0;
    w[i] = 0.0;
  }
  const double t = 0.7;

  double t0 = now_ms();
  size_t bytes = (size_t)n * sizeof(double);
  double *d_in, *d_out, *d_w;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMalloc(&d_w, bytes));
  CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));
  const int block = 256;
  kernel_begin();
  branchy_kernel<<<(n + block - 1) / block, block>>>(d_in, d_out, d_w, t, n);
  kernel_end("branchy_kernel");
  CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(w, d_w, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_w));
  double elapsed = now_ms() - t0;

  res->sum_out = 0.0;
  res->sum_w = 0.0;
  for (int i = 0; i < n; i++) {
    res->sum_out += out[i];
    res->sum_w += w[i];
  }
  res->out_first = out[0];
  res->out_mid = out[n / 2];
  res->w_last = w[n - 1];
  free(in);
  free(out);
  free(w);
  return elapsed;
}

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
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
}int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: branchy [n] [reps]\n");
    return 2;
  }
  CHECK(cudaEventCreate(&ev_start));
  CHECK(cudaEventCreate(&ev_stop));
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  struct results res;
  for (int r = 0; r < reps; r++) {
    ms[r] = run(n, &res);
    if (ms[r] < 0) {
      fprintf(stderr, "branchy: out of memory\n");
      return 1;
    }
  }
  print_region(ms, reps);
  printf("checksum sum_out %.17g\n", res.sum_out);
  printf("checksum sum_w %.17g\n", res.sum_w);
  printf("checksum out_first %.17g\n", res.out_first);
  printf("checksum out_mid %.17g\n", res.out_mid);
  printf("checksum w_last %.17g\n", res.w_last);
  CHECK(cudaEventDestroy(ev_start));
  CHECK(cudaEventDestroy(ev_stop));
  free(ms);
  return 0;
}
