/* A function defined after main and called inside its offloaded loop: its
 * prototype comes before the kernel, compiled for both sides. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int *a = (int *)malloc(n * sizeof(int));
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    a[i] = twice(i);
  printf("%d\n", a[n - 1]);
  free(a);
  return 0;
}

int twice(v)
int v;
{
  return 2 * v;
}
