// ci-args: 8 3
// ci-args: 13 0
//
// review.c - the adversarial review's findings, each a function that once
// computed a wrong result: host code reaching a device-resident array under
// another name (between loops, and inside a time-step loop), an extent
// variable shadowed at the loop, an inner loop whose body steps its own
// variable, one array mapped as two sections, a dimension macro redefined
// after the declaration. Usage: review N STEPS (N >= 8).
#include <stdio.h>
#include <stdlib.h>

#define W 8
static double table[W];
#undef W
#define W 4

static void alias_between(int n, double *out) {
  double *a = (double *)malloc(n * sizeof(double));
  double *b = (double *)malloc(n * sizeof(double));
  double *q = a;
  for (int i = 0; i < n; i++)
    a[i] = b[i] = -1;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = i;
  q[0] = 100;
  double first = q[1];
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 2 + first;
  out[0] = a[0] + b[0] + b[n - 1];
  free(a);
  free(b);
}

static void alias_steps(int n, int steps, double *out) {
  double *a = (double *)malloc(n * sizeof(double));
  double *b = (double *)malloc(n * sizeof(double));
  double *q = b;
  for (int i = 0; i < n; i++) {
    a[i] = i;
    b[i] = 0;
  }
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      b[i] = a[i] + 1;
    q[0] = 1000;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      a[i] = b[i];
  }
  out[1] = a[0] + a[1] * 3;
  free(a);
  free(b);
}

static void shadowed(int n, double *out) {
  double *a = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = 7;
  {
    int n = 4;
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 8; i++)
      s += a[i] + n;
    out[2] = s;
  }
  free(a);
}

static void inner_step(double *out) {
  double a[4][6];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      a[i][j] = 10 * i + j;
#pragma omp parallel for
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++) {
      a[i][j] = -1;
      j++;
    }
  double s = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      s += a[i][j] * (i + 2 * j + 1);
  out[3] = s;
}

static void sections(int n, double *out) {
  double *a = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = -1;
#pragma omp target teams distribute parallel for map(tofrom : a[0 : 4])
  for (int i = 0; i < 4; i++)
    a[i] = i;
#pragma omp target teams distribute parallel for map(tofrom : a[4 : 4])
  for (int i = 4; i < 8; i++)
    a[i] = 10 * i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i + 1);
  out[4] = s;
  free(a);
}

static void redefined(double *out) {
  for (int i = 0; i < 8; i++)
    table[i] = 1 + i;
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 8; i++)
    s += table[i] * W;
  out[5] = s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  int steps = argc > 2 ? atoi(argv[2]) : 3;
  double out[6] = {0};
  alias_between(n, out);
  alias_steps(n, steps, out);
  shadowed(n, out);
  inner_step(out);
  sections(n, out);
  redefined(out);
  for (int k = 0; k < 6; k++)
    printf("checksum out%d %.17g\n", k, out[k]);
  return 0;
}
