// ci-args: 2
// ci-args: 1 3
//
// stencil2d.c - 2-D Jacobi relaxation on an N x N grid (N a compile-time
// macro: 256, small enough for the CI runs on a CPU emulator of CUDA, unless
// built with -DN=...; the benchmark uses -DN=4096). Each of T time steps is
// a collapse(2) loop nest over the interior writing anew, then a copy-back
// loop written row-outer (`parallel for` over rows, a sequential inner
// column loop) as it usually is on a CPU.
//
// Shows: a time loop around two parallel loops on global 2-D arrays that
// the host does not touch between steps (a translation can keep them on the
// device for all T steps), a collapsed loop nest, and a row-parallel loop
// whose inner loop runs along rows: one thread per row reads with a stride
// of N doubles between neighbouring threads on a GPU (the loop-swap /
// coalescing case).
//
// Usage: stencil2d [T] [reps]   (defaults 100, 1); the grid is N x N.
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef N
#define N 256
#endif

static double a[N][N], anew[N][N];

static void jacobi(int steps)
{
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for collapse(2)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        anew[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);

#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        a[i][j] = anew[i][j];
  }
}

// Fixed boundary (hot top row, a ramp on the left and right columns, cold
// bottom row), deterministic interior values.
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
  double x = *(const double *)p, y = *(const double *)q;
  return (x > y) - (x < y);
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
  int steps = argc > 1 ? atoi(argv[1]) : 100;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (steps < 0 || reps < 1) {
    fprintf(stderr, "usage: stencil2d [T] [reps]\n");
    return 2;
  }
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
  free(ms);
  return 0;
}
