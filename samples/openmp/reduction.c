// ci-args: 4096
// ci-args: 10000 3
//
// reduction.c - the four kinds of OpenMP reduction clause people write on a
// CPU: a dot product (+ on doubles), the largest absolute difference (max,
// written as a parallel region whose only statement is the worksharing
// loop), the number of elements above a threshold (+ on an int) and a
// product of factors close to one (* on doubles).
//
// Shows: reductions, which a CUDA translation has to turn into per-block
// partial results combined at the end. The floating-point results may
// differ between thread counts by reassociation, so they are printed as
// `reduction` lines (compared with a tolerance); the integer count must be
// exact and is a `checksum`.
//
// All arrays the loops read are allocated in run(), the function that holds
// the loops; run() times only its compute part and returns the milliseconds.
//
// Usage: reduction [n] [reps]   (defaults 1<<24, 1)
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

// Allocates and initialises the inputs, runs the reductions (timed) and
// frees the inputs. Returns the time of the reductions in ms, or -1.
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

  double t0 = now_ms();
  double sum = 0.0;
#pragma omp parallel for reduction(+:sum)
  for (int i = 0; i < n; i++)
    sum += x[i] * y[i];

  double m = 0.0;
#pragma omp parallel
  {
#pragma omp for reduction(max:m)
    for (int i = 0; i < n; i++) {
      double d = fabs(x[i] - y[i]);
      if (d > m)
        m = d;
    }
  }

  int count = 0;
#pragma omp parallel for reduction(+:count)
  for (int i = 0; i < n; i++)
    if (x[i] > threshold)
      count++;

  double prod = 1.0;
#pragma omp parallel for reduction(*:prod)
  for (int i = 0; i < n; i++)
    prod *= 1.0 + 1e-6 * x[i];
  double elapsed = now_ms() - t0;

  res->dot = sum;
  res->maxabs = m;
  res->count = count;
  res->prod = prod;
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
  int n = argc > 1 ? atoi(argv[1]) : 1 << 24;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: reduction [n] [reps]\n");
    return 2;
  }
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
  free(ms);
  return 0;
}
