// A C program valid as C whose translation is not valid C++ (a goto that
// jumps over an initialisation): the rewrite that follows cannot parse the
// output.
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = 100;
  double *x = (double *)malloc(n * sizeof(double));
  if (argc > 5)
    goto done;
  int k = 3;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = i * k;
done:
  printf("%g\n", x[5]);
  return 0;
}
