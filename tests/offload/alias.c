// ci-args: 100
// ci-args: 37
//
// alias.c - arrays the translation cannot prove separate (pointer
// parameters with map clauses): where they overlap, OpenMP maps them to one
// device storage; the translation checks at run time and runs the original
// loop on the host then. Usage: alias N (N >= 4).
#include <stdio.h>
#include <stdlib.h>

static void twice(float *a, float *b, int n) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(tofrom: b[0:n / 2])
  for (int i = 0; i < n / 2; i++) {
    b[i] = b[i] + 2;
    a[i] = a[i] * 3 + 1;
  }
}

static double total(const float *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i % 5 + 1);
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  float *a = (float *)malloc(n * sizeof(float));
  float *c = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) {
    a[i] = (float)(i % 9);
    c[i] = (float)(i % 4);
  }
  twice(a, c, n);         // apart
  twice(a, a + n / 2, n); // b inside a
  twice(c, c, n);         // the same storage
  twice(c + 1, a, n - 1); // apart again, unaligned
  printf("checksum a %.17g\nchecksum c %.17g\n", total(a, n), total(c, n));
  free(a);
  free(c);
  return 0;
}
