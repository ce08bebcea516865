// ci-args: 6 5 7
// ci-args: 7 5 6
// ci-args: 7 7 7
// ci-args: 1 1 1
// ci-args: 0 3 2
// ci-args: 3 0 4
// ci-offloaded: 6
//
// readback.c - arrays a kernel writes over a box and then reads back in a
// later loop (PolyBench's doitgen: `sum[r][q][p]` for p < np, read back for
// p < nr), boxes of three dimensions, and arrays a function's callers only
// free after the call (and two that must still come back: a call in a loop,
// an array main reads through another pointer) (docs/offload.md, "Arrays written over a box" and
// "Arrays no caller reads"). The read back stays inside the box only where
// nr <= np: otherwise the host's values must go in, so sum is calloc'ed and
// every element of every array main reads is in a checksum.
// Usage: readback NR NQ NP. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define N 8

static double sum3(double a[N][N][N]) {
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        s += a[i][j][k] * (1 + (i * 7 + j * 3 + k) % 11);
  return s;
}

/* doitgen as PolyBench writes it: sum is scratch, read back for p < nr. */
static void doitgen(int nr, int nq, int np, double A[N][N][N],
                    double C4[N][N], double sum[N][N][N]) {
  int r, q, p, s;
#pragma omp parallel for private(q, p, s)
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[r][q][p] = 0;
        for (s = 0; s < np; s++)
          sum[r][q][p] = sum[r][q][p] + A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < nr; p++)
        A[r][q][p] = sum[r][q][p];
    }
}

/* The same shape whose caller reads the scratch array afterwards: it comes
   back (the box of three dimensions). */
static void kept(int nr, int nq, int np, double A[N][N][N],
                 double T[N][N][N]) {
  int r, q, p;
#pragma omp parallel for private(q, p)
  for (r = 1; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 1; p <= np - 1; p++)
        T[r][q][p] = A[r][q][p] * 0.5 + p;
      for (p = 2; p < np; p++)
        A[r][q][p - 2] = T[r][q][p] - 1.0;
    }
}

/* The reading loop also writes the array: copied in. */
static void rewrite(int nr, int nq, double U[N][N][N]) {
  int r, q, p;
#pragma omp parallel for private(q, p)
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < 4; p++)
        U[r][q][p] = r + q + p;
      for (p = 0; p < 4; p++)
        U[r][q][p + 1] = U[r][q][p] * 2.0;
    }
}

/* The read after the loop uses p as the loop left it (4): outside the box,
   so the array is copied in. */
static void stale(int nr, int nq, double V[N][N][N], double O[N][N]) {
  int r, q, p;
#pragma omp parallel for private(q, p)
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < 4; p++)
        V[r][q][p] = r * q + p;
      O[r][q] = V[r][q][p];
    }
}

/* Reads what the previous call left: called in a loop, so t comes back
   although main only frees it. */
static void accum(int n, double *t, double *o) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t[i] = t[i] + i + 1;
    o[i] = t[i] * 2;
  }
}

/* main reads t through another pointer: t comes back. */
static void fill(int n, double *t, double *o) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t[i] = i * 0.5;
    o[i] = t[i] + 1;
  }
}

int main(int argc, char **argv) {
  int nr = argc > 1 ? atoi(argv[1]) : 6;
  int nq = argc > 2 ? atoi(argv[2]) : 5;
  int np = argc > 3 ? atoi(argv[3]) : 7;
  if (nr > N || nq > N || np > N)
    return 1;
  static double A[N][N][N], C4[N][N], T[N][N][N], U[N][N][N], V[N][N][N],
      O[N][N];
  double(*sum)[N][N] = (double(*)[N][N])calloc(N * N * N, sizeof(double));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      C4[i][j] = (i * 5 + j * 3) % 7 - 3;
      O[i][j] = -1;
      for (int k = 0; k < N; k++) {
        A[i][j][k] = (i * 31 + j * 17 + k * 7) % 23 - 11;
        T[i][j][k] = -1000 - i - j - k;
        U[i][j][k] = -2000 + i * j * k;
        V[i][j][k] = -3000 + i + k;
      }
    }
  doitgen(nr, nq, np, A, C4, sum);
  free(sum);
  printf("checksum A %.17g\n", sum3(A));
  kept(nr, nq, np, A, T);
  printf("checksum A2 %.17g\n", sum3(A));
  printf("checksum T %.17g\n", sum3(T));
  rewrite(nr, nq, U);
  printf("checksum U %.17g\n", sum3(U));
  stale(nr, nq, V, O);
  printf("checksum V %.17g\n", sum3(V));
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += O[i][j] * (1 + (i + 3 * j) % 5);
  printf("checksum O %.17g\n", s);
  int n = nr * nq + 1;
  double *t = (double *)calloc(n, sizeof(double));
  double *o = (double *)malloc(n * sizeof(double));
  for (int k = 0; k < 3; k++)
    accum(n, t, o);
  free(t);
  s = 0;
  for (int i = 0; i < n; i++)
    s += o[i] * (1 + i % 3);
  printf("checksum accum %.17g\n", s);
  double *t2 = (double *)malloc(n * sizeof(double));
  double *seen = t2;
  fill(n, t2, o);
  s = 0;
  for (int i = 0; i < n; i++)
    s += seen[i] * (1 + i % 4) + o[i];
  printf("checksum fill %.17g\n", s);
  free(t2);
  free(o);
  return 0;
}
