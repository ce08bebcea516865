#include <stdio.h>
#include <stdlib.h>
int main(void) {
  float a[100001], s[1] = {0};
  float C[10][10];
  for (int i = 0; i < 100001; i++) a[i] = 1;
#pragma omp parallel for
  for (int i = 0; i < 100000; i++) s[0] += a[i];
#pragma omp parallel for
  for (int i = 0; i < 100000; i++) a[i + 1] = a[i] + 1;
#pragma omp parallel for
  for (int i = 0; i < 10; i++) for (int k = 0; k < 10; k++) C[k][0] += i;
#pragma omp parallel for
  for (int i = 0; i < 100000; i++) a[i + 1] = 3;
#pragma omp parallel for
  for (int i = 0; i < 10; i++) for (int k = 0; k < 10; k++) C[i][k] = C[i][k] * 2 + k;
  printf("%f\n", s[0]);
  return 0;
}
