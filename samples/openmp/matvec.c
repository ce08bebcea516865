// ci-args: 64
// ci-args: 300 3
//
// matvec.c - dense matrix-vector product y = A x, A an n x n row-major
// matrix in one malloc'd array indexed A[i*n + j]. The parallel loop runs
// over rows; each row's dot product is a sequential inner loop into a local
// accumulator, the textbook CPU version (`private(j)` with j declared before
// the loop, C89 style).
//
// Shows: an outer-parallel loop with a long sequential inner loop over a
// row: one GPU thread per row reads A with a stride of n doubles between
// neighbouring threads (uncoalesced), while x is read by all threads alike.
// y[i] is each row's sum in j order, so it is bit-identical for any thread
// count.
//
// All arrays are allocated in run(), the function holding the loop; run()
// times only its compute part and returns the milliseconds.
//
// Usage: matvec [n] [reps]   (defaults 8192, 1)
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct results {
  double sum_y, y_first, y_mid, y_last;
};

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

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
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++) {
    double sum = 0.0;
    for (j = 0; j < n; j++)
      sum += A[i * n + j] * x[j];
    y[i] = sum;
  }
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
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: matvec [n] [reps]\n");
    return 2;
  }
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
  free(ms);
  return 0;
}
