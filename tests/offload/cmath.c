// ci-args: 1000
// ci-args: 4099
// ci-offloaded: 1
//
// cmath.c - C's math calls keep C's conversions in the offloaded output
// (C++): exp and log of a float call the double functions, and abs of a
// float truncates to int, in the kernel and in the host code around it.
// Compiled as C++ without warpwise's macros, exp(f) would be expf(f) and
// abs(f) would not truncate, and the checksums would differ.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  float *x = (float *)malloc(sizeof(float) * n);
  float *y = (float *)malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++)
    x[i] = (float)((i * 37) % 101) / 7.0f - 5.0f;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float f = x[i] / 3.0f;
    y[i] = exp(f) + log(f * f + 1.0f) + abs(f * 2.5f) + sqrt(fabs(f));
  }
  double host = 0, dev = 0;
  for (int i = 0; i < n; i++) {
    float g = x[i] * 0.7f;
    host += exp(g) * (i % 3 + 1) + abs(g);
    dev += y[i] * (i % 5 + 1);
  }
  printf("checksum device %.17g\nchecksum host %.17g\n", dev, host);
  free(x);
  free(y);
  return 0;
}
