// ci-args: 4 3 3 4
// ci-args: 4 3 6 4
// ci-args: 4 4 4 6
// ci-args: 3 2 0 5
// ci-offloaded: 3
//
// readbackrefs.cpp - C++ references in kernels whose arrays are written over
// a box (docs/offload.md, "Arrays written over a box"). Found by review: a
// reference bound to an element by the loop that reads the box back writes
// through it (outside the box where that loop runs past it); a reference
// bound to the reading loop's variable moves it past the box; a reference
// bound to a grid loop's variable skips iterations. None may be taken as a
// box read or a grid level.
// Usage: readbackrefs NR NP M NQ. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define N 8

static void through(int nr, int np, int m, double S[N][N], double B[N]) {
#pragma omp parallel for
  for (int r = 0; r < nr; r++) {
    for (int p = 0; p < np; p++)
      S[r][p] = r * 7 + p * 0.5;
    double x = 0;
    for (int p = 0; p < m; p++) {
      double &e = S[r][p];
      x += e;
      e = -1.0;
    }
    B[r] = x;
  }
}

static void moved(int nr, int np, int m, double S[N][N], double B[N]) {
#pragma omp parallel for
  for (int r = 0; r < nr; r++) {
    for (int p = 0; p < np; p++)
      S[r][p] = r * 3 + p * 0.25;
    double x = 0;
    for (int p = 0; p < m; p++) {
      int &pp = p;
      pp += 2;
      if (p < N)
        x += S[r][p];
    }
    B[r] = x;
  }
}

static void skipped(int nr, int nq, double S[N][N]) {
#pragma omp parallel for
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      S[r][q] = r * 5 - q;
      int &qq = q;
      qq += 1;
    }
}

static double sum2(double a[N][N]) {
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += a[i][j] * (1 + (i * 5 + j) % 13);
  return s;
}

int main(int argc, char **argv) {
  int nr = atoi(argv[1]), np = atoi(argv[2]), m = atoi(argv[3]),
      nq = atoi(argv[4]);
  if (nr > N || np > N || m > N || nq > N)
    return 1;
  static double S[N][N], T[N][N], U[N][N], B[N], C[N];
  for (int i = 0; i < N; i++) {
    B[i] = -i;
    C[i] = i;
    for (int j = 0; j < N; j++) {
      S[i][j] = -1000 - i * 3 - j;
      T[i][j] = -500 + i - j;
      U[i][j] = 100 + i * j;
    }
  }
  through(nr, np, m, S, B);
  moved(nr, np, m, T, C);
  skipped(nr, nq, U);
  double b = 0, c = 0;
  for (int i = 0; i < N; i++) {
    b += B[i] * (i + 1);
    c += C[i] * (i + 2);
  }
  printf("checksum B %.17g\n", b);
  printf("checksum C %.17g\n", c);
  printf("checksum S %.17g\n", sum2(S));
  printf("checksum T %.17g\n", sum2(T));
  printf("checksum U %.17g\n", sum2(U));
  return 0;
}
