#include <stdio.h>
#include <stdlib.h>
#include "kw_class_part.c"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  int i;
  int *v = (int *)malloc(n * sizeof(int));
#pragma omp parallel for
  for (i = 0; i < n; i++)
    v[i] = 3 * i;
  printf("%d %d\n", v[n - 1], pick(2, n));
  free(v);
  return 0;
}
