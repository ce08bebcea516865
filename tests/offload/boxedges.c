// ci-args: 20 0 -1 3 0
// ci-args: 20 3 2 30 1
// ci-args: 7 5 5 2 2
// ci-args: 0 2 0 4 1
// ci-offloaded: 5
//
// boxedges.c - loops that look like a box written (docs/offload.md, "Arrays
// written over a box") but are not one, found in review: a `continue` that
// skips the store, a loop around the store that may run zero times, an
// unsigned variable with a negative bound (no iteration in C; also as a
// grid level), and an enumerator declared in the loop as an inner bound.
// Every array keeps its host values where the loops skip it; every element
// is in the checksums.
// Usage: boxedges N K LO HI D. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define W 40

static double y[W], z[W], C[W][W], D[W][W], E[W][W];

static double sum1(const double *a) {
  double s = 0;
  for (int i = 0; i < W; i++)
    s += a[i] * (1 + i % 7);
  return s;
}

static double sum2(double a[W][W]) {
  double s = 0;
  for (int i = 0; i < W; i++)
    for (int j = 0; j < W; j++)
      s += a[i][j] * (1 + (i * 7 + j) % 13);
  return s;
}

/* Every third element is skipped: it keeps the host's value. */
static void skip(int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    if (i % 3 == 0)
      continue;
    y[i] = i * 2.0;
  }
}

/* The store sits in a loop that runs k times, maybe none, from i. */
static void maybe(int n, int k) {
  int i, m;
#pragma omp parallel for private(m)
  for (i = 0; i < n; i++)
    for (m = i; m < k; m++)
      z[i] = i * 2.0 + m;
}

/* j unsigned: lo == -1 converts to UINT_MAX, and j < hi is false. */
static void wrap(int n, int lo, int hi) {
  int i;
  unsigned j;
  double acc;
#pragma omp parallel for private(j, acc)
  for (i = 0; i < n; i++) {
    acc = 0;
    for (j = lo; j < hi; j++) {
      C[i][j] = acc;
      acc += 1;
    }
  }
  /* The same as a grid level of its own. */
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++)
    for (j = lo; j < hi; j++)
      D[i][j] = 1.0 + j;
}

/* Inner bounds named by an enumerator of the loop's own body. */
static void local_bounds(int n, int d) {
  int i, j;
  double acc;
#pragma omp parallel for private(j, acc)
  for (i = 0; i < n; i++) {
    enum { LO = 2, HI = 9 };
    acc = d;
    for (j = LO; j < HI; j++) {
      E[i][j] = i + j * 0.5 + acc;
      acc += 1;
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  int k = argc > 2 ? atoi(argv[2]) : 3;
  int lo = argc > 3 ? atoi(argv[3]) : -1;
  int hi = argc > 4 ? atoi(argv[4]) : 3;
  int d = argc > 5 ? atoi(argv[5]) : 0;
  if (n > W || hi > W || lo >= W)
    return 1;
  for (int i = 0; i < W; i++) {
    y[i] = 100 + i;
    z[i] = -200 - i;
    for (int j = 0; j < W; j++) {
      C[i][j] = 100 + i * W + j;
      D[i][j] = -100 - i * W - j;
      E[i][j] = 1000 + i - 3 * j;
    }
  }
  skip(n);
  maybe(n, k);
  wrap(n, lo, hi);
  local_bounds(n, d);
  printf("checksum y %.17g\n", sum1(y));
  printf("checksum z %.17g\n", sum1(z));
  printf("checksum C %.17g\n", sum2(C));
  printf("checksum D %.17g\n", sum2(D));
  printf("checksum E %.17g\n", sum2(E));
  return 0;
}
