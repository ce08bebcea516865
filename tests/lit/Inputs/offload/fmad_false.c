// offload --fmad=false: every floating-point product of a kernel rounded on
// its own; a product written inside a macro keeps its loop on the host.
#include <stdlib.h>
#define SCALE 3.0f
#define SQUARE(x) ((x) * (x))

static float sq(float x) { return x * x; }
static float cube(float x) { return x * SQUARE(x); }

static void products(int n, float *restrict a, float *restrict b, double *restrict c) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float t = a[i] * b[i] + SCALE * a[i] * a[i];
    t *= b[i] + 0.5f;
    b[i] = t - a[i] * 0.25f;
    c[i] = c[i] * c[i] + 0.7 * c[i] * a[i];
  }
}

static void calls(int n, float *restrict a, const float *restrict b) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = sq(a[i]) + cube(b[i]) + a[i] * b[i];
}

static void inmacro(int n, float *restrict a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = SQUARE(a[i]) + 1.0f;
}

static void histogram(int n, const float *restrict a, float *restrict h) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[i % 4] += a[i] * 2.0f;
  }
}

int main(void) {
  int n = 100;
  float *a = (float *)malloc(n * sizeof(float));
  float *b = (float *)malloc(n * sizeof(float));
  double *c = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    a[i] = 0.5f * i;
    b[i] = 1.0f;
    c[i] = 0.25 * i;
  }
  products(n, a, b, c);
  calls(n, a, b);
  inmacro(n, a);
  float *h = (float *)malloc(4 * sizeof(float));
  histogram(n, a, h);
  return (int)(a[3] + b[4] + c[5]);
}
