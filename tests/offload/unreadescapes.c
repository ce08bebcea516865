// ci-args: 8
// ci-args: 5
// ci-args: 0
// ci-offloaded: 5
//
// unreadescapes.c - arrays a function's callers seem to only free after
// the call, but that the program reads through another name (docs/offload.md,
// "Arrays no caller reads"): each must come back. Found by review: an
// allocation assigned on to a second pointer, or passed to a function that
// keeps it; an allocator of PolyBench's name that this file defines (it
// returns a static pool); a block-scope extern (in a caller, and in the
// function of the loop).
// Usage: unreadescapes N. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define M 8

double gw[M][M];
static double pool[M][M];
static double (*kept)[M];

static void keep(double (*p)[M]) { kept = p; }

static void *polybench_alloc_data(unsigned long n, int size) {
  (void)n;
  (void)size;
  return pool;
}

static void fill(int n, double *t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    t[i] = i * 0.5 + 1;
}

static void fill2(int n, double t[M][M]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      t[i][j] = i * 0.5 + j + 1;
}

static void fill3(int n, double t[M][M]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      t[i][j] = i * 0.25 - j;
}

static void fill4(int n, double t[M][M]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      t[i][j] = i + j * 0.75;
}

static void run(int n) {
  extern double gw[M][M];
  fill4(n, gw);
}

/* A block-scope extern in the function of the loop itself. */
static void direct(int n) {
  extern double gw[M][M];
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      gw[i][j] = gw[i][j] * 2 + i;
}

static double sum2(double a[M][M]) {
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      s += a[i][j] * (i + 3 * j + 1);
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  if (n > M)
    return 1;
  double *alias;
  double *w;
  alias = w = (double *)calloc(M, sizeof(double));
  fill(n, w);
  double s = 0;
  for (int i = 0; i < M; i++)
    s += alias[i] * (i + 1);
  printf("checksum alias %.17g\n", s);
  free(w);

  double(*w2)[M];
  keep(w2 = (double(*)[M])calloc(M * M, sizeof(double)));
  fill2(n, w2);
  printf("checksum kept %.17g\n", sum2(kept));
  free(w2);

  double(*w3)[M] = (double(*)[M])polybench_alloc_data(M * M, sizeof(double));
  fill3(n, w3);
  printf("checksum pool %.17g\n", sum2(pool));

  run(n);
  printf("checksum gw %.17g\n", sum2(gw));
  direct(n);
  printf("checksum gw2 %.17g\n", sum2(gw));
  return 0;
}
