/* An orphaned stand-alone directive after a loop (Rodinia nn_openmp.c). */
#include <stdio.h>
int main() {
  int a[100], i;
#pragma omp parallel for
  for (i = 0; i < 100; i++) a[i] = i;
#pragma omp barrier
  printf("%d\n", a[5]);
  return 0;
}
