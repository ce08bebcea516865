// ci-args: 50
// ci-args: 7
//
// group.c - a parallel region of two worksharing loops (a private index,
// a barrier, a reduction with nowait): two kernels, one after another.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double *x = (double *)malloc(n * sizeof(double));
  double *y = (double *)malloc(n * sizeof(double));
  double *A = (double *)malloc((size_t)n * n * sizeof(double));
  int i, j;
  for (i = 0; i < n; i++) x[i] = i % 7;
  for (i = 0; i < n * n; i++) A[i] = (i % 13) * 0.5;
  double s = 0;
#pragma omp parallel private(j)
  {
#pragma omp for
    for (i = 0; i < n; i++) {
      y[i] = 0;
      for (j = 0; j < n; j++)
        y[i] += A[i * n + j] * x[j];
    }
#pragma omp barrier
#pragma omp for reduction(+:s) nowait
    for (i = 0; i < n; i++)
      s += y[i];
  }
  printf("checksum s %.17g\nchecksum y0 %.17g\n", s, y[n - 1]);
  return 0;
}
