// ci-args: 1100000 1
// ci-args: 1100000 0
// ci-args: 10 1
// ci-offloaded: 5
//
// regionleave.cpp - host code between two offloaded loops that leaves the
// data region or frees its memory (docs/offload.md, "A parallel region, loop
// by loop"; found by review of the page lock): a throw between them, a
// delete[] of another name for a mapped array, and buffers the host swaps
// between steps. Each ends the region, so the first loop's results come
// back before it, and every page lock (1,100,000 doubles copied in and out:
// 17.6 MB, above rules/offload.json's pin_min_copied_bytes) is undone; the
// CPU executor fails an unlock of memory that is not locked.
// Usage: regionleave N STOP. Prints `checksum` lines (exact).
#include <cstdio>
#include <cstdlib>

static double a[1100000], b[1100000];

static int run(int n, int stop) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 0.5;
  if (stop)
    throw 1;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = b[i] + 1.0;
  return 0;
}

static double freed(int n) {
  double *x = new double[n];
  double *y = new double[n];
  double *q = x;
  for (int i = 0; i < n; i++) {
    x[i] = i % 10;
    y[i] = 0;
  }
#pragma omp target teams distribute parallel for map(to : x[0 : n])             \
    map(tofrom : y[0 : n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] * 2.0;
  delete[] q;
#pragma omp target teams distribute parallel for map(tofrom : y[0 : n])
  for (int i = 0; i < n; i++)
    y[i] = y[i] + 1.0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i % 3 + 1);
  delete[] y;
  return s;
}

/* Two steps of a stencil whose buffers the host swaps. */
static double swapped(int n) {
  double *in = (double *)malloc(n * sizeof(double));
  double *out = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    in[i] = out[i] = i % 7;
  for (int t = 0; t < 3; t++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    double *tmp = in;
    in = out;
    out = tmp;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += in[i] * (i % 5 + 1) + out[i];
  free(in);
  free(out);
  return s;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  int stop = atoi(argv[2]);
  if (n > 1100000)
    return 1;
  for (int i = 0; i < n; i++)
    a[i] = i % 10;
  int r = 0;
  try {
    r = run(n, stop);
  } catch (int) {
    r = 7;
  }
  double t = 0;
  for (int i = 0; i < n; i++)
    t += b[i] * (i % 3 + 1);
  printf("checksum thrown %.17g\n", t);
  r += run(n, 0);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i % 3 + 1) + b[i];
  printf("checksum s %.17g\n", s);
  printf("checksum r %d\n", r);
  printf("checksum freed %.17g\n", freed(n));
  printf("checksum swapped %.17g\n", swapped(n));
  return 0;
}
