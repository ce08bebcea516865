/* A C name that is a C++ keyword (private) beside a kept pragma's private clause (tests/lit/offload/keyword-pragma.test). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 16;
  int private = 2, i, j, sum = 0;
  int *v = (int *)malloc(n * sizeof(int));
  int *w = (int *)malloc(n * sizeof(int));
#pragma omp parallel for private(j) \
    reduction(+ : sum)
  for (i = 0; i < n; i++) {
    j = i * private;
    sum += j;
  }
#pragma omp parallel for
  for (i = 0; i < n; i++)
    v[i] = i * private;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++) {
    j = v[(i * 7) % n];
    w[j % n] = i;
  }
  printf("%d %d %d\n", sum, v[n - 1], w[0]);
  return 0;
}
