// An orphaned worksharing loop: its parallel region is the caller's.
#include <stdio.h>
void scale(float *a, int n) {
#pragma omp for
  for (int i = 0; i < n; ++i)
    a[i] *= 2.0f;
}
int main(void) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = i;
#pragma omp parallel
  scale(a, 64);
  printf("%f\n", a[63]);
  return 0;
}
