// ci-args: 1000
// ci-args: 77
// ci-offloaded: 2
// ci-offload-flags: --fmad=false
//
// rounded.c - `offload --fmad=false`: the kernels' products are rounded on
// their own (__fmul_rn, __dmul_rn), `t *= e` included, so that a GPU build
// at nvcc's default -fmad=true prints what the host build prints
// (scripts/offload-gpu-check runs it on a GPU).
#include <stdio.h>
#include <stdlib.h>
#define SCALE 3.0f

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  float *a = (float *)malloc(n * sizeof(float));
  float *b = (float *)malloc(n * sizeof(float));
  double *c = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    a[i] = 0.1f * (float)i;
    b[i] = 1.0f / (float)(i + 1);
    c[i] = 0.3 * i;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float t = a[i] * b[i] + SCALE * a[i] * a[i];
    t *= b[i] + 0.5f;
    b[i] = t - a[i] * 0.25f;
    c[i] = c[i] * c[i] + 0.7 * c[i] * a[i];
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = a[i] * b[i] - 0.5f * a[i] + (float)(i % 3) * 0.125f;
  double sa = 0, sb = 0, sc = 0;
  for (int i = 0; i < n; i++) {
    sa += a[i] * (i % 5 + 1);
    sb += b[i] * (i % 3 + 1);
    sc += c[i];
  }
  printf("checksum a %.17g\nchecksum b %.17g\nchecksum c %.17g\n", sa, sb, sc);
  return 0;
}
