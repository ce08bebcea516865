// vector_update.cu - the hand-written CUDA version of ../vector_update.c, as
// a CUDA programmer would write it first: one thread per element (a
// grid-stride loop), 256-thread blocks, x and y copied to the device once,
// both kernels run on the resident data, y and z copied back at the end.
//
// Same arguments and stdout as the OpenMP program. stderr: one
// `kernel_ms <kernel> <ms>` line per launch (CUDA events) and the
// `region_ms <median> <min> <max>` line, timed as in the C program around
// the compute call, which here includes device allocation and the
// host<->device copies.
//
// Usage: vector_update [n] [reps]   (defaults 1<<24, 1)
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
}

__global__ void axpy_kernel(double a, const double *x, double *y, int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void square_add_kernel(const double *x, const double *y, double *z,
                                  int n)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    z[i] = y[i] * y[i] + x[i];
}

static void update(double a, const double *x, double *y, double *z, int n)
{
  size_t bytes = (size_t)n * sizeof(double);
  double *d_x, *d_y, *d_z;
  CHECK(cudaMalloc(&d_x, bytes));
  CHECK(cudaMalloc(&d_y, bytes));
  CHECK(cudaMalloc(&d_z, bytes));
  CHECK(cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice));
  const int block = 256;
  const int grid = (n + block - 1) / block;
  kernel_begin();
  axpy_kernel<<<grid, block>>>(a, d_x, d_y, n);
  kernel_end("axpy_kernel");
  kernel_begin();
  square_add_kernel<<<grid, block>>>(d_x, d_y, d_z, n);
  kernel_end("square_add_kernel");
  CHECK(cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(z, d_z, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_z));
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
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: vector_update [n] [reps]\n");
    return 2;
  }
  double *x = (double *)malloc((size_t)n * sizeof(double));
  double *y = (double *)malloc((size_t)n * sizeof(double));
  double *z = (double *)malloc((size_t)n * sizeof(double));
  double *ms = (double *)malloc((size_t)reps * sizeof(double));
  if (!x || !y || !z || !ms) {
    fprintf(stderr, "vector_update: out of memory\n");
    return 1;
  }
  CHECK(cudaEventCreate(&ev_start));
  CHECK(cudaEventCreate(&ev_stop));
  const double a = 2.5;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      x[i] = (double)(((i % 101) * 37) % 101) / 101.0;
      y[i] = (double)(((i % 97) * 53) % 97) / 97.0 - 0.5;
      z[i] = 0.0;
    }
    double t0 = now_ms();
    update(a, x, y, z, n);
    ms[r] = now_ms() - t0;
  }
  print_region(ms, reps);

  double sum_y = 0.0, sum_z = 0.0;
  for (int i = 0; i < n; i++) {
    sum_y += y[i];
    sum_z += z[i];
  }
  printf("checksum sum_y %.17g\n", sum_y);
  printf("checksum sum_z %.17g\n", sum_z);
  printf("checksum y_first %.17g\n", y[0]);
  printf("checksum y_mid %.17g\n", y[n / 2]);
  printf("checksum z_last %.17g\n", z[n - 1]);
  CHECK(cudaEventDestroy(ev_start));
  CHECK(cudaEventDestroy(ev_stop));
  free(x);
  free(y);
  free(z);
  free(ms);
  return 0;
}
