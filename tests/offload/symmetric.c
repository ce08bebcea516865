// ci-args: 30 20
// ci-args: 7 40
//
// symmetric.c - covariance's and correlation's shapes: a parallel loop
// over j1 writing symmat[j1][j2] and symmat[j2][j1] with j2 running up from
// j1 (race-free: row j1 right of the diagonal and column j1 below it are
// iteration j1's own), a macro defined in the function and called in a
// subscript (`cell(stddev, j)` is stddev[j]), and loop variables declared
// at the top of the function made private. The covariance nest and
// `cross`'s (j2 from j1 + 1), `band`'s (from j1 - 1) and `gram`'s (j2 up
// to j1) are swapped into 2-D grids over the rectangle around
// their triangles, whose threads outside the triangle do nothing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#define M 40
#define NMAX 40

static void covariance(int m, int n, double data[NMAX][M], double mean[M],
                       double symmat[M][M]) {
  int i, j, j1, j2;
#pragma omp parallel
  {
#pragma omp for private(i)
    for (j = 0; j < m; j++) {
      mean[j] = 0.0;
      for (i = 0; i < n; i++)
        mean[j] += data[i][j];
      mean[j] /= n;
    }
#pragma omp for private(j2, i)
    for (j1 = 0; j1 < m; j1++)
      for (j2 = j1; j2 < m; j2++) {
        symmat[j1][j2] = 0.0;
        for (i = 0; i < n; i++)
          symmat[j1][j2] += (data[i][j1] - mean[j1]) * (data[i][j2] - mean[j2]);
        symmat[j2][j1] = symmat[j1][j2];
      }
  }
}

static void correlation(int m, int n, double data[NMAX][M], double stddev[M],
                        double symmat[M][M]) {
  int i, j, j1, j2;
#define cell(x, j) sqrt(x[j])
#pragma omp parallel
  {
#pragma omp for private(i)
    for (j = 0; j < m; j++) {
      stddev[j] = 0.0;
      for (i = 0; i < n; i++)
        stddev[j] += data[i][j] * data[i][j];
      stddev[j] = cell(stddev, j);
      stddev[j] = stddev[j] <= 0.1 ? 1.0 : stddev[j];
    }
#pragma omp for private(j2, i)
    for (j1 = 0; j1 < m - 1; j1++) {
      symmat[j1][j1] = 1.0;
      for (j2 = j1 + 1; j2 < m; j2++) {
        symmat[j1][j2] = 0.0;
        for (i = 0; i < n; i++)
          symmat[j1][j2] += data[i][j1] * data[i][j2];
        symmat[j1][j2] /= stddev[j1] * stddev[j2];
        symmat[j2][j1] = symmat[j1][j2];
      }
    }
  }
}

static void cross(int m, int n, double data[NMAX][M], double t[M][M]) {
  int i, j1, j2;
#pragma omp parallel for private(j2, i)
  for (j1 = 0; j1 < m; j1++)
    for (j2 = j1 + 1; j2 < m; j2++) {
      double acc = 0.0;
      for (i = 0; i < n; i++)
        acc += data[i][j1] - data[i][j2];
      t[j1][j2] = acc;
      t[j2][j1] = -acc;
    }
}

static void band(int m, double data[NMAX][M], double b[M][M]) {
  int j1, j2;
#pragma omp parallel for private(j2)
  for (j1 = 1; j1 < m; j1++)
    for (j2 = j1 - 1; j2 < m; j2++)
      b[j1][j2] = data[j1][j2] * 2 + j1;
}

static void gram(int m, int n, double data[NMAX][M], double g[M][M]) {
  int i, j1, j2;
#pragma omp parallel for private(j2, i)
  for (j1 = 0; j1 < m; j1++)
    for (j2 = 0; j2 <= j1; j2++) {
      double acc = 0.0;
      for (i = 0; i < n; i++)
        acc += data[i][j1] * data[i][j2] + j1;
      g[j1][j2] = acc;
    }
}

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : M;
  int n = argc > 2 ? atoi(argv[2]) : NMAX;
  double(*data)[M] = (double(*)[M])malloc(sizeof(double) * NMAX * M);
  double(*sym)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*cor)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*crs)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*bnd)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*grm)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double *mean = (double *)malloc(sizeof(double) * M);
  double *dev = (double *)malloc(sizeof(double) * M);
  int i, j;
  for (i = 0; i < NMAX; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (double)((i * j + 3 * i) % 13) / 5;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      sym[i][j] = cor[i][j] = crs[i][j] = bnd[i][j] = grm[i][j] = -1;
  covariance(m, n, data, mean, sym);
  correlation(m, n, data, dev, cor);
  cross(m, n, data, crs);
  band(m, data, bnd);
  gram(m, n, data, grm);
  double s = 0, c = 0, x = 0, b = 0, g = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++) {
      s += sym[i][j] * (double)(i % 3 + j % 5 + 1);
      c += cor[i][j] * (double)(i % 3 + j % 5 + 1);
      x += crs[i][j] * (double)(i % 3 + j % 5 + 1);
      b += bnd[i][j] * (double)(i % 3 + j % 5 + 1);
      g += grm[i][j] * (double)(i % 3 + j % 5 + 1);
    }
  printf("checksum covariance %.17g\nchecksum correlation %.17g\n", s, c);
  printf("checksum cross %.17g\nchecksum band %.17g\n", x, b);
  printf("checksum gram %.17g\n", g);
  return 0;
}
