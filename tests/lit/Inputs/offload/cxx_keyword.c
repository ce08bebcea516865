// A C program valid as C with a name that is a C++ keyword (a variable
// named `new`): the output, C++, renames it.
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 100;
  double *x = (double *)malloc(n * sizeof(double));
  int new = 3;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = i * new;
  printf("%g\n", x[5]);
  return 0;
}
