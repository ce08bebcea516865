// ci-args: 40
// ci-args: 17
//
// macroparams.c - array parameters declared through function-like macros,
// as PolyBench declares them (`DATA_TYPE POLYBENCH_2D(A, LEN, LEN, n, n)`):
// the device copies and kernel parameters keep the program's spelling
// (DATA_TYPE, LEN), so a build with -DDATA_TYPE=float or another LEN copies
// the right number of bytes; one-dimensional ones are LEN elements, not LEN+1.
#include <stdio.h>
#include <stdlib.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef LEN
#define LEN 40
#endif
#define PAD 0
#define PICK(fixed, dynamic) fixed
#define ARR1(v, d, dd) v[PICK(d, dd) + PAD]
#define ARR2(v, d1, d2, dd1, dd2) v[PICK(d1, dd1) + PAD][PICK(d2, dd2) + PAD]

static void scaled_mv(int n, DATA_TYPE alpha, DATA_TYPE ARR2(a, LEN, LEN, n, n),
                      DATA_TYPE ARR1(x, LEN, n), DATA_TYPE ARR1(y, LEN, n)) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++) {
    DATA_TYPE t = 0;
    for (j = 0; j < n; j++)
      t += alpha * a[i][j] * x[j];
    y[i] = t;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : LEN;
  if (n > LEN)
    n = LEN;
  DATA_TYPE(*a)[LEN] = (DATA_TYPE(*)[LEN])malloc(sizeof(DATA_TYPE) * LEN * LEN);
  DATA_TYPE *x = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * LEN);
  DATA_TYPE *y = (DATA_TYPE *)malloc(sizeof(DATA_TYPE) * LEN);
  int i, j;
  for (i = 0; i < LEN; i++) {
    x[i] = (DATA_TYPE)((i % 5) + 1) / 3;
    y[i] = -1;
    for (j = 0; j < LEN; j++)
      a[i][j] = (DATA_TYPE)((i * j) % 7) / 4;
  }
  scaled_mv(n, (DATA_TYPE)1.5, a, x, y);
  double sum = 0;
  for (i = 0; i < LEN; i++)
    sum += y[i];
  printf("checksum sum %.17g\nchecksum y1 %.17g\n", sum, (double)y[1]);
  free(a);
  free(x);
  free(y);
  return 0;
}
