// Data plans: residency across loops and a host time loop, the copies a
// full write and a host that never reads make unnecessary, and where host
// code between two loops reads the data.
#include <stdlib.h>

double data(int n, int steps) {
  double *a = (double *)malloc(n * sizeof(double));
  double *b = (double *)malloc(n * sizeof(double));
  double *tmp = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = i;
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      tmp[i] = a[i] * 0.5;
#pragma omp parallel for
    for (int i = 1; i < n; i++)
      a[i] = tmp[i] + tmp[i - 1];
  }
  double first = a[0];
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    b[i] = a[i] + first;
  double r = b[n - 1];
  free(a);
  free(b);
  free(tmp);
  return r;
}
