// ci-args: -1 3 9223372036854775806 0 9
// ci-args: 2 9 100 2 5
// ci-args: -3 -1 18446744073709551000 0 0
// ci-offloaded: 6
//
// unsignedloops.c - loops whose variable or comparison is unsigned, counted
// as GCC's OpenMP counts them (the bounds converted to the variable's type;
// found in review, helper-51 and helper-53): a size_t or unsigned variable
// from a negative bound (no iteration), an int variable compared with an
// unsigned bound (GCC converts the bound to int), a size_t loop counting
// down, an unsigned long long range across LLONG_MAX, and a triangle over
// an unsigned inner variable (not swapped: its rows' ranges are not one).
// Usage: unsignedloops LO HI BASE TLO TM. Prints `checksum` lines (exact).
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define W 40

static double A[W], B[W], C[W], D[W], E[8], X[W][W];

static double sum1(const double *a, int n) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += a[k] * (k + 1);
  return s;
}

int main(int argc, char **argv) {
  int lo = argc > 1 ? atoi(argv[1]) : -1;
  int hi = argc > 2 ? atoi(argv[2]) : 3;
  unsigned long long base = argc > 3 ? strtoull(argv[3], 0, 10) : 100;
  int tlo = argc > 4 ? atoi(argv[4]) : 0;
  int tm = argc > 5 ? atoi(argv[5]) : 9;
  unsigned um = (unsigned)(hi > 0 ? hi : 0);
  size_t z;
  unsigned u;
  unsigned long long q;
  int i;
  for (int k = 0; k < W; k++) {
    A[k] = B[k] = C[k] = D[k] = -1.0 - k;
    for (int m = 0; m < W; m++)
      X[k][m] = k - 0.5 * m;
  }
  for (int k = 0; k < 8; k++)
    E[k] = 0;
#pragma omp parallel for
  for (z = lo; z < hi; z++)
    A[z + 4] = 1000.0 + z;
#pragma omp parallel for
  for (u = lo; u < hi; u++)
    B[u + 4] = 10.0 * u;
#pragma omp parallel for
  for (i = lo; i < um; i++)
    C[i + 4] = 7.0 * i;
#pragma omp parallel for
  for (z = hi + 4; z > lo + 3; z--)
    D[z] = 3.0 * z;
#pragma omp parallel for
  for (q = base; q < base + 4; q++)
    E[q - base] = 1.0 + (double)(q - base);
#pragma omp parallel for private(u)
  for (i = tlo; i < 5; i++)
    for (u = i - 2; u < tm; u++)
      X[i][u] = 10.0 * i + u;
  printf("checksum A %.17g\n", sum1(A, W));
  printf("checksum B %.17g\n", sum1(B, W));
  printf("checksum C %.17g\n", sum1(C, W));
  printf("checksum D %.17g\n", sum1(D, W));
  printf("checksum E %.17g\n", sum1(E, 8));
  double s = 0;
  for (int k = 0; k < W; k++)
    for (int m = 0; m < W; m++)
      s += X[k][m] * (1 + (k * 7 + m) % 13);
  printf("checksum X %.17g\n", s);
  return 0;
}
