// ci-args: 100
// ci-args: 9
// ci-offloaded: 1
//
// keywords.c - a C program whose names are C++ keywords (`new`, `class`,
// `this`, a function named `delete`, a struct member named `template`): the
// output, which nvcc compiles as C++, renames them after the file's
// includes, and the offloaded loop, which uses them all, computes what the
// OpenMP build does.
#include <stdio.h>
#include <stdlib.h>

struct pair {
  int template;
  double class;
};

static double delete(double v, int new) { return v * new + 1.0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int new = 3;
  struct pair this = {2, 0.5};
  double *out = (double *)malloc(n * sizeof(double));
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = delete(i * this.class, new) + this.template;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += out[i] * (i % 7 + 1);
  printf("checksum out %.17g\n", s);
  free(out);
  return 0;
}
