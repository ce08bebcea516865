#include <stdio.h>
#include <stdlib.h>

#include "kw_part.c"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  int i;
  float *v = (float *)malloc(n * sizeof(float));
#pragma omp parallel for
  for (i = 0; i < n; i++)
    v[i] = (float)scale(i, 3);
  printf("%f\n", v[n - 1]);
  free(v);
  return 0;
}
