// ci-args: 50
// ci-args: 13
// ci-offloaded: 2
//
// splitregion.c - durbin's shape: a parallel region of three loops whose
// middle one cannot be proven safe (it writes b[perm[i]]: race-free only
// because perm is a permutation, which the dependence test cannot see). It
// keeps only itself on the host: the first and last loops are kernels, the
// data region ends before the host loop (a and c copied back, as it reads
// them) and starts again after it (b copied in, as it wrote it).
#include <stdio.h>
#include <stdlib.h>
#define NMAX 64

static void chain(int n, int perm[NMAX], double a[NMAX], double b[NMAX],
                  double c[NMAX][NMAX], double out[NMAX]) {
  int i, j;
#pragma omp parallel private(j)
  {
#pragma omp for
    for (i = 0; i < n; i++) {
      a[i] = 0.5 * i + 1;
      for (j = 0; j < n; j++)
        c[i][j] = a[i] * j + b[i];
    }
#pragma omp barrier
#pragma omp for
    for (i = 0; i < n; i++)
      b[perm[i]] = a[i] * 2 + c[i][1];
#pragma omp for
    for (i = 0; i < n; i++) {
      out[i] = 0;
      for (j = 0; j < n; j++)
        out[i] += c[i][j] * b[j];
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  int perm[NMAX];
  double a[NMAX], b[NMAX], c[NMAX][NMAX], out[NMAX];
  int i, j;
  if (n < 2 || n > NMAX)
    return 1;
  for (i = 0; i < NMAX; i++) {
    perm[i] = (i * 7 + 3) % n; // a permutation of 0..n-1: 7 and n coprime
    b[i] = 0.25 * (i % 5);
    a[i] = out[i] = -1;
    for (j = 0; j < NMAX; j++)
      c[i][j] = -1;
  }
  chain(n, perm, a, b, c, out);
  double sa = 0, sb = 0, sc = 0, so = 0;
  for (i = 0; i < NMAX; i++) {
    sa += a[i] * (i + 1);
    sb += b[i] * (i + 1);
    so += out[i] * (i + 1);
    for (j = 0; j < NMAX; j++)
      sc += c[i][j] * (i + 2 * j + 1);
  }
  printf("checksum a %.17g\nchecksum b %.17g\nchecksum c %.17g\nchecksum out "
         "%.17g\n",
         sa, sb, sc, so);
  return 0;
}
