#include <cstdio>
#include <cstdlib>
static void bump(double &x, double by) { x += by; }
static void bumpp(double *x) { x[0] += 1; }
int main() {
  int n = 100;
  double *a = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) a[i] = i;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    bump(a[i], 2.0);
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    bumpp(&a[i]);
  printf("%f\n", a[5]);
}
