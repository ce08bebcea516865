// stencil2d.cu - the hand-written CUDA version of ../stencil2d.c: 32x8
// thread blocks over the interior (x along j, so a warp reads consecutive
// doubles of a row), one thread per point for the Jacobi update and one
// per point for the copy-back; a and anew are copied to the device once and
// stay there for all T steps, then both come back.
//
// Same arguments and stdout as the OpenMP program (N x N grid, N = 256
// unless built with -DN=...). stderr: one `kernel_ms <kernel> <ms>` line
// per launch (CUDA events) and the `region_ms <median> <min> <max>` line,
// timed as in the C program around the compute call (device allocation and
// copies included).
//
// Usage: stencil2d [T] [reps]   (defaults 100, 1)
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef N
#define N 256
#endif

static double a[N][N], anew[N][N];

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
}__global__ void jacobi_kernel(const double (*a)[N], double (*anew)[N])
{
  int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i < N - 1 && j < N - 1)
    anew[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
}

__global__ void copy_kernel(double (*a)[N], const double (*anew)[N])
{
  int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i < N - 1 && j < N - 1)
    a[i][j] = anew[i][j];
}

static void jacobi(int steps)
{
  double (*d_a)[N], (*d_anew)[N];
  CHECK(cudaMalloc(&d_a, sizeof(a)));
  CHECK(cudaMalloc(&d_anew, sizeof(anew)));
  CHECK(cudaMemcpy(d_a, a, sizeof(a), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_anew, anew, sizeof(anew), cudaMemcpyHostToDevice));
  const dim3 block(32, 8);
  const dim3 grid((N - 2 + block.x - 1) / block.x, (N - 2 + block.y - 1) / block.y);
  for (int t = 0; t < steps; t++) {
    kernel_begin();
    jacobi_kernel<<<grid, block>>>(d_a, d_anew);
    kernel_end("jacobi_kernel");
    kernel_begin();
    copy_kernel<<<grid, block>>>(d_a, d_anew);
    kernel_end("copy_kernel");
  }
  CHECK(cudaMemcpy(a, d_a, sizeof(a), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(anew, d_anew, sizeof(anew), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_anew));
}

static void init(void)
{
  memset(anew, 0, sizeof(anew));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double v;
      if (i == 0)
        v = 1.0;
      else if (i == N - 1)
        v = 0.0;
      else if (j == 0 || j == N - 1)
        v = (double)(N - 1 - i) / (double)(N - 1);
      else
        v = (double)(((i % 101) * 37 + (j % 101) * 11) % 101) / 101.0;
      a[i][j] = v;
    }
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
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (steps < 0 || reps < 1) {
    fprintf(stderr, "usage: stencil2d [T] [reps]\n");
    return 2;
  }
  CHECK(cudaEventCreate(&ev_start));
  CHECK(cudaEventCreate(&ev_stop));
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  for (int r = 0; r < reps; r++) {
    init();
    double t0 = now_ms();
    jacobi(steps);
    ms[r] = now_ms() - t0;
  }
  print_region(ms, reps);

  double sum_a = 0.0, sum_anew = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      sum_a += a[i][j];
      sum_anew += anew[i][j];
    }
  printf("checksum sum_a %.17g\n", sum_a);
  printf("checksum sum_anew %.17g\n", sum_anew);
  printf("checksum a_corner %.17g\n", a[1][1]);
  printf("checksum a_center %.17g\n", a[N / 2][N / 2]);
  printf("checksum a_edge %.17g\n", a[N - 2][N - 3]);
  CHECK(cudaEventDestroy(ev_start));
  CHECK(cudaEventDestroy(ev_stop));
  free(ms);
  return 0;
}
