#include <stdlib.h>
void f(int n, double *x) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = undeclared_thing;
}
