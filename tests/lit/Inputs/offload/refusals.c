// Loops that must stay on the host, each for one reason.
#include <stdio.h>
#include <stdlib.h>

extern double external_fn(double);
int global_counter;

void refusals(int n, double *x, double **rows, double *out) {
  double *buf = (double *)malloc(n * sizeof(double));
  double s = 0;
  int last = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical
    s += x[i];
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    printf("%f\n", x[i]);
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = external_fn(x[i]);
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    rows[i][0] = 1.0;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    s = x[i];
#pragma omp parallel for lastprivate(last)
  for (int i = 0; i < n; i++)
    last = i;
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      out[i * n + j] = 0;
#pragma omp parallel
  {
    int t = 0;
#pragma omp for
    for (int i = 0; i < n; i++)
      buf[i] = t;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    global_counter += 1;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      goto done;
    out[i] = x[i];
  done:;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    buf[i] = x[i];
  free(buf);
#pragma omp parallel sections
  {
#pragma omp section
    s = 1;
  }
}
