// ci-args: 4096
// ci-args: 10000 3
//
// vector_update.c - a daxpy-style update y = a*x + y followed by
// z = y*y + x, both written as OpenMP 4.5 target offload loops
// (`target teams distribute parallel for` with map clauses), the way code
// prepared for a GPU through OpenMP looks. Without an offload compiler the
// target regions run on the host threads.
//
// Shows: element-wise loops whose data movement is spelled out by map
// clauses (x and y go to the device, y comes back from the first loop, z
// only comes back from the second).
//
// Usage: vector_update [n] [reps]   (defaults 1<<24, 1)
// stdout: checksum lines (bit-identical for any thread count / translation);
// stderr: region_ms <median> <min> <max> over the reps.
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void update(double a, const double *x, double *y, double *z, int n)
{
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];

#pragma omp target teams distribute parallel for map(to: x[0:n], y[0:n]) map(from: z[0:n])
  for (int i = 0; i < n; i++)
    z[i] = y[i] * y[i] + x[i];
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

// region_ms <median> <min> <max>; with more than two reps the first one is a
// warm-up and left out.
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
  free(x);
  free(y);
  free(z);
  free(ms);
  return 0;
}
