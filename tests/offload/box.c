// ci-args: 40 33 3
// ci-args: 41 46 2
// ci-args: 3 3 1
// ci-args: 2 9 0
// ci-args: 1 1 2
// ci-args: 0 0 1
// ci-offloaded: 6
//
// box.c - arrays a kernel writes over a box, the rest keeping the host's
// values (docs/offload.md, "Arrays written over a box"): the inside of a
// 2-D stencil's output, the interior of a 1-D one, a box from an inner
// loop's bounds (`<=` included) with reads of the element just written;
// and the shapes that must still copy in: a read before the write, a bound
// the loop changes, a host loop around the kernel. Sizes of 0-2 give empty
// boxes: nothing may come back. Every element, border included, is in the
// checksums.
// Usage: box NI NJ STEPS. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define W 48

static double sum2(double a[W][W]) {
  double s = 0;
  for (int i = 0; i < W; i++)
    for (int j = 0; j < W; j++)
      s += a[i][j] * (1 + (i * 7 + j) % 13);
  return s;
}

static double sum1(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (1 + i % 7);
  return s;
}

/* The inside of B, as PolyBench's convolution-2d writes it. */
static void stencil(int ni, int nj, double A[W][W], double B[W][W]) {
  int i, j;
#pragma omp parallel for private(j) collapse(2)
  for (i = 1; i < ni - 1; ++i)
    for (j = 1; j < nj - 1; ++j)
      B[i][j] = 0.2 * A[i - 1][j - 1] + 0.5 * A[i - 1][j] - 0.8 * A[i - 1][j + 1] +
                0.6 * A[i][j] - 0.9 * A[i + 1][j + 1];
}

/* The interior of a malloc'ed vector. */
static void smooth(int n, const double *x, double *y) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; i++)
    y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
}

/* Columns lo..hi of each row from an inner loop that carries a sum (so it
   stays a loop in the kernel); the element written is read and written
   again. */
static void rows(int ni, int lo, int hi, double A[W][W], double C[W][W]) {
  int i, j;
  double acc;
#pragma omp parallel for private(j, acc)
  for (i = 2; i < ni; i++) {
    acc = 0;
    for (j = lo; j <= hi; j++) {
      C[i][j] = A[i][j] * 2.0 + acc;
      acc = acc + C[i][j] * 0.5;
      C[i][j] = C[i][j] + acc;
    }
  }
}

/* Reads its element before writing it: copied in. */
static void bump(int n, double *z) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; i++) {
    double t = z[i];
    z[i] = t + 1.0;
  }
}

/* The inner bound is the loop's own private: copied in. */
static void ragged(int ni, double D[W][W]) {
  int i, j, k;
#pragma omp parallel for private(j, k)
  for (i = 0; i < ni; i++) {
    k = i % 5;
    for (j = 0; j < k; j++)
      D[i][j] = i + 0.5 * j;
  }
}

/* A host loop around the kernel (it may run zero times): copied in. */
static void repeat(int n, int steps, double *y) {
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      y[i] = i * 0.75 + s;
  }
}

int main(int argc, char **argv) {
  int ni = argc > 1 ? atoi(argv[1]) : 40;
  int nj = argc > 2 ? atoi(argv[2]) : 33;
  int steps = argc > 3 ? atoi(argv[3]) : 3;
  if (ni > W - 1 || nj > W - 1)
    return 1;
  static double A[W][W], B[W][W], C[W][W], D[W][W];
  int n = ni * nj + 2;
  double *x = (double *)malloc(n * sizeof(double));
  double *y = (double *)malloc(n * sizeof(double));
  double *z = (double *)malloc(n * sizeof(double));
  double *r = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < W; i++)
    for (int j = 0; j < W; j++) {
      A[i][j] = (i * 31 + j * 17) % 23 - 11;
      B[i][j] = -1000 - i - j;
      C[i][j] = -2000 + i * j;
      D[i][j] = -3000 + i;
    }
  for (int i = 0; i < n; i++) {
    x[i] = i % 9;
    y[i] = -50 - i;
    z[i] = 100 + i;
    r[i] = -7 - i % 3;
  }
  stencil(ni, nj, A, B);
  smooth(n, x, y);
  rows(ni, nj / 3, nj - 1, A, C);
  bump(n, z);
  ragged(ni, D);
  repeat(n, steps, r);
  printf("checksum B %.17g\n", sum2(B));
  printf("checksum C %.17g\n", sum2(C));
  printf("checksum D %.17g\n", sum2(D));
  printf("checksum y %.17g\n", sum1(y, n));
  printf("checksum z %.17g\n", sum1(z, n));
  printf("checksum r %.17g\n", sum1(r, n));
  free(x);
  free(y);
  free(z);
  free(r);
  return 0;
}
