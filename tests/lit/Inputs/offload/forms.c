// Every offloadable form once: parallel for, parallel + for, collapse(2) and
// (3), a target loop with map clauses, the four reductions, private and
// firstprivate, a decreasing loop with a step, a device function.
#include <stdlib.h>
#define N 64

static double grid[N][N];
static float cube[8][8][8];

static double scale(double v) {
  if (v < 0)
    return -v;
  return 2.0 * v;
}

double forms(int n, double *z, int k) {
  double *x = (double *)malloc(n * sizeof(double));
  double *y = (double *)calloc(n, sizeof(double));
  double sum = 0.0, lo = 1e300, hi = -1e300, prod = 1.0;
  int count = 0;
  double tmp;
  int j;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = scale(x[i]);
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 4)
    for (int i = 0; i < n; i++)
      y[i] += 1.0;
  }
#pragma omp parallel for collapse(2)
  for (int i = 0; i < N; i++)
    for (int jj = 0; jj < N; jj++)
      grid[i][jj] = i * 0.5 + jj;
#pragma omp parallel for collapse(3)
  for (int a = 0; a < 8; a++)
    for (int b = 0; b < 8; b++)
      for (int c = 0; c < 8; c++)
        cube[a][b][c] = a + b + c;
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: z[0:n])
  for (int i = 0; i < n; i++)
    z[i] = z[i] * x[i] + y[i];
#pragma omp parallel for reduction(+:sum) reduction(min:lo) reduction(max:hi)
  for (int i = 0; i < n; i++) {
    sum += y[i];
    lo = y[i] < lo ? y[i] : lo;
    hi = y[i] > hi ? y[i] : hi;
  }
#pragma omp parallel for reduction(*:prod) reduction(+:count) private(tmp) firstprivate(k)
  for (int i = 0; i < n; i++) {
    tmp = x[i] * 1e-3;
    prod *= 1.0 + tmp;
    if (y[i] > k)
      count++;
  }
#pragma omp parallel for private(j)
  for (int i = n - 1; i >= 0; i -= 2)
    for (j = 0; j < 2; j++)
      x[i] = x[i] + j;
  double r = sum + lo + hi + prod + count + x[0];
  free(x);
  free(y);
  return r;
}
