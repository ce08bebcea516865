// matvec.cu - the hand-written CUDA version of ../matvec.c, the natural
// first version: one thread per row (256-thread blocks), each thread runs
// the row's dot product in j order, as the C loop does. A, x and y are
// allocated and copied inside the timed part, as in the OpenMP translation.
//
// Same arguments and stdout as the OpenMP program. stderr: one
// `kernel_ms <kernel> <ms>` line per launch (CUDA events) and the
// `region_ms <median> <min> <max>` line.
//
// Usage: matvec [n] [reps]   (defaults 8192, 1)
#include <cuda_runtime.h>

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
}__global__ void matvec_kernel(const double *A, const double *x, double *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double sum = 0.0;
    for (int j = 0; j < n; j++)
      sum += A[(size_t)i * n + j] * x[j];
    y[i] = sum;
  }
}

struct results {
  double sum_y, y_first, y_mid, y_last;
};

static double now_ms(void);

static double run(int n, struct results *res)
{
  int i, j;
  double *A = (double *)malloc((size_t)n * n * sizeof(double));
  double *x = (double *)malloc((size_t)n * sizeof(double));
  double *y = (double *)malloc((size_t)n * sizeof(double));
  if (!A || !x || !y) {
    free(A);
    free(x);
    free(y);
    return -1.0;
  }
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i * n + j] = (double)(((i % 101) * 37 + (j % 101) * 11) % 101) / 101.0 - 0.5;
    x[i] = (double)(((i % 97) * 53) % 97) / 97.0;
    y[i] = 0.0;
  }

  double t0 = now_ms();
  double *d_A, *d_x, *d_y;
  CHECK(cudaMalloc(&d_A, (size_t)n * n * sizeof(double)));
  CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(double)));
  CHECK(cudaMalloc(&d_y, (size_t)n * sizeof(double)));
  CHECK(cudaMemcpy(d_A, A, (size_t)n * n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_x, x, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
  const int block = 256;
  kernel_begin();
  matvec_kernel<<<(n + block - 1) / block, block>>>(d_A, d_x, d_y, n);
  kernel_end("matvec_kernel");
  CHECK(cudaMemcpy(y, d_y, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_A));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  double elapsed = now_ms() - t0;

  res->sum_y = 0.0;
  for (i = 0; i < n; i++)
    res->sum_y += y[i];
  res->y_first = y[0];
  res->y_mid = y[n / 2];
  res->y_last = y[n - 1];
  free(A);
  free(x);
  free(y);
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
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: matvec [n] [reps]\n");
    return 2;
  }
  CHECK(cudaEventCreate(&ev_start));
  CHECK(cudaEventCreate(&ev_stop));
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  struct results res;
  for (int r = 0; r < reps; r++) {
    ms[r] = run(n, &res);
    if (ms[r] < 0) {
      fprintf(stderr, "matvec: out of memory\n");
      return 1;
    }
  }
  print_region(ms, reps);
  printf("checksum sum_y %.17g\n", res.sum_y);
  printf("checksum y_first %.17g\n", res.y_first);
  printf("checksum y_mid %.17g\n", res.y_mid);
  printf("checksum y_last %.17g\n", res.y_last);
  CHECK(cudaEventDestroy(ev_start));
  CHECK(cudaEventDestroy(ev_stop));
  free(ms);
  return 0;
}
