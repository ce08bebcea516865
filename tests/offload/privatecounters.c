// ci-args: 37 29 23
// ci-args: 8 64 5
// ci-args: 64 3 64
//
// privatecounters.c - loop variables declared at the top of the function
// and made private by a clause (PolyBench's `int i, j, k;` with
// `#pragma omp for private(j, k)`, or `private(j, k)` on the region): the
// inner loop's counter is each thread's own, so the nest is swapped to a
// 2-D grid (gemm, 3mm, syrk, doitgen shapes). A private that carries a
// value from one j to the next keeps the nest one thread per row.
#include <stdio.h>
#include <stdlib.h>
#define M 64

static void gemm(int ni, int nj, int nk, double alpha, double beta,
                 double C[M][M], double A[M][M], double B[M][M]) {
  int i, j, k;
#pragma omp parallel
  {
#pragma omp for private(j, k)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++) {
        C[i][j] *= beta;
        for (k = 0; k < nk; ++k)
          C[i][j] += alpha * A[i][k] * B[k][j];
      }
  }
}

static void two_products(int ni, int nj, int nk, double E[M][M],
                         double A[M][M], double B[M][M], double G[M][M],
                         double F[M][M]) {
  int i, j, k;
#pragma omp parallel private(j, k)
  {
#pragma omp for
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++) {
        E[i][j] = 0;
        for (k = 0; k < nk; ++k)
          E[i][j] += A[i][k] * B[k][j];
      }
#pragma omp for
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++) {
        G[i][j] = 0;
        for (k = 0; k < nj; ++k)
          G[i][j] += E[i][k] * F[k][j];
      }
  }
}

/* doitgen's shape: two inner loops over p, one more over s. */
static void doitgen(int nr, int nq, int np, double A[M][M][M],
                    double C4[M][M], double sum[M][M][M]) {
  int r, q, p, s;
#pragma omp parallel
  {
#pragma omp for private(q, p, s)
    for (r = 0; r < nr; r++)
      for (q = 0; q < nq; q++) {
        for (p = 0; p < np; p++) {
          sum[r][q][p] = 0;
          for (s = 0; s < np; s++)
            sum[r][q][p] += A[r][q][s] * C4[s][p];
        }
        for (p = 0; p < np; p++)
          A[r][q][p] = sum[r][q][p];
      }
  }
}

/* A running value: t passes from one j to the next; not swapped. */
static void running(int ni, int nj, double X[M][M], double Y[M][M]) {
  int i, j;
  double t;
#pragma omp parallel for private(j, t)
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      t = (j == 0 ? 0 : t) + X[i][j];
      Y[i][j] = t;
    }
}

int main(int argc, char **argv) {
  int ni = argc > 1 ? atoi(argv[1]) : 37;
  int nj = argc > 2 ? atoi(argv[2]) : 29;
  int nk = argc > 3 ? atoi(argv[3]) : 23;
  double(*A)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*B)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*C)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*E)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*G)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*S)[M] = (double(*)[M])malloc(sizeof(double) * M * M);
  double(*A3)[M][M] = (double(*)[M][M])malloc(sizeof(double) * M * M * M);
  double(*S3)[M][M] = (double(*)[M][M])malloc(sizeof(double) * M * M * M);
  int x, y, z;
  for (x = 0; x < M; x++)
    for (y = 0; y < M; y++) {
      A[x][y] = (double)((x * M + y) % 11) / 8;
      B[x][y] = (double)((x * M + y) % 7) / 4;
      C[x][y] = (double)((x * M + y) % 5) / 2;
      for (z = 0; z < M; z++)
        A3[x][y][z] = (double)((x + y * z) % 9) / 4;
    }
  gemm(ni, nj, nk, 1.5, 0.5, C, A, B);
  two_products(ni, nj, nk, E, A, B, G, C);
  running(ni, nj, C, S);
  doitgen(ni, nj, nk, A3, B, S3);
  double c = 0, g = 0, s = 0, a = 0;
  for (x = 0; x < ni; x++)
    for (y = 0; y < nj; y++) {
      c += C[x][y] * (double)(x % 3 + y % 2 + 1);
      g += G[x][y] * (double)(x % 3 + y % 2 + 1);
      s += S[x][y] * (double)(x % 3 + y % 2 + 1);
      for (z = 0; z < nk; z++)
        a += A3[x][y][z] * (double)(z % 3 + 1);
    }
  printf("checksum C %.17g\nchecksum G %.17g\nchecksum S %.17g\nchecksum A "
         "%.17g\n",
         c, g, s, a);
  return 0;
}
