// ci-args: 1000 3
// ci-args: 1 0
// ci-args: 0 2
// ci-args: 777 1
//
// dataflow.c - the data plans of `warpwise offload` against the OpenMP
// build: temporaries that never leave the device, partial writes whose
// untouched elements must keep their values, host loops around offloaded
// loops (including ones that run zero times), host code between loops that
// reads or does not read the arrays, reductions inside a convergence loop,
// decreasing and strided loops, collapse with offsets, firstprivate.
// Usage: dataflow N T. Prints `checksum` (exact) and `reduction` lines.
#include <stdio.h>
#include <stdlib.h>

#define M 16

static double field[M][M];

static double sum_of(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (1 + i % 7);
  return s;
}

static void temporaries(int n, double *out) {
  double *tmp = (double *)malloc((n + 1) * sizeof(double));
  double *part = (double *)malloc((n + 1) * sizeof(double));
  for (int i = 0; i <= n; i++)
    part[i] = -1.0 - i;
#pragma omp parallel for
  for (int i = 0; i < n + 1; i++)
    tmp[i] = i * 0.25;
  // Only the interior: part[0] and part[n] keep the host's values.
#pragma omp parallel for
  for (int i = 1; i < n; i++)
    part[i] = tmp[i] + tmp[i - 1];
#pragma omp target teams distribute parallel for map(from: out[0:n])
  for (int i = 0; i < n; i++)
    out[i] = part[i] + part[i + 1];
  printf("checksum part %.17g\n", sum_of(part, n + 1));
  free(tmp);
  free(part);
}

static void steps(int n, int t, double *a, double *b) {
  double scale = 1.0;
  for (int s = 0; s < t; s++) {
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
    for (int i = 0; i < n; i++)
      b[i] = a[i] * scale + s;
    scale = scale * 0.5;
#pragma omp target teams distribute parallel for map(to: b[0:n]) map(from: a[0:n])
    for (int i = 0; i < n; i++)
      a[i] = b[i] - 1.0;
  }
  // The host looks at a between these two loops: a round trip.
  double first = n > 0 ? a[0] : 0;
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = a[i] + first;
}

static double converge(int n, double *v) {
  double change = 1.0;
  int rounds = 0;
  while (change > 1e-3 && rounds < 50) {
    change = 0.0;
#pragma omp target teams distribute parallel for reduction(max:change) map(tofrom: v[0:n])
    for (int i = 0; i < n; i++) {
      double next = 0.5 * (v[i] + 1.0);
      double d = next > v[i] ? next - v[i] : v[i] - next;
      change = d > change ? d : change;
      v[i] = next;
    }
    rounds++;
  }
  return rounds + change;
}

static void shapes(int n, int *idx, double *w, unsigned *u) {
  int off = 3;
#pragma omp target teams distribute parallel for firstprivate(off) map(tofrom: idx[0:n])
  for (int i = n - 1; i >= 0; i -= 3)
    idx[i] = i * 2 + off;
#pragma omp target teams distribute parallel for map(tofrom: w[0:n])
  for (int i = 2; i <= n; i += 2)
    w[i - 1] = w[i - 1] * 3.0 + i;
#pragma omp parallel for collapse(2)
  for (int i = 1; i < M - 1; i++)
    for (int j = 2; j < M; j += 3)
      field[i][j] = i * 100 + j + field[i][j] * 0.5;
  int lo = 1 << 30, hi = -(1 << 30);
  unsigned total = 0;
#pragma omp target teams distribute parallel for reduction(min:lo) reduction(max:hi) reduction(+:total) map(to: idx[0:n], u[0:n])
  for (int i = 0; i < n; i++) {
    lo = idx[i] < lo ? idx[i] : lo;
    hi = idx[i] > hi ? idx[i] : hi;
    total += u[i] % 13u;
  }
  printf("checksum lo %d\nchecksum hi %d\nchecksum total %u\n", n ? lo : 0,
         n ? hi : 0, total);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int t = argc > 2 ? atoi(argv[2]) : 3;
  double *out = (double *)malloc((n + 1) * sizeof(double));
  double *a = (double *)malloc((n + 1) * sizeof(double));
  double *b = (double *)malloc((n + 1) * sizeof(double));
  double *v = (double *)malloc((n + 1) * sizeof(double));
  double *w = (double *)malloc((n + 1) * sizeof(double));
  int *idx = (int *)malloc((n + 1) * sizeof(int));
  unsigned *u = (unsigned *)malloc((n + 1) * sizeof(unsigned));
  for (int i = 0; i <= n; i++) {
    out[i] = -5;
    a[i] = i % 11;
    b[i] = 7;
    v[i] = (i % 5) * 0.3;
    w[i] = i * 0.125;
    idx[i] = -i;
    u[i] = (unsigned)(i * 2654435761u);
  }
  temporaries(n, out);
  steps(n, t, a, b);
  double r = converge(n, v);
  shapes(n, idx, w, u);
  printf("checksum out %.17g\n", sum_of(out, n + 1));
  printf("checksum a %.17g\n", sum_of(a, n + 1));
  printf("checksum b %.17g\n", sum_of(b, n + 1));
  printf("checksum v %.17g\n", sum_of(v, n + 1));
  printf("checksum w %.17g\n", sum_of(w, n + 1));
  double f = 0;
  long is = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      f += field[i][j] * (i + 2 * j);
  for (int i = 0; i <= n; i++)
    is += idx[i] * (long)(i % 5 + 1);
  printf("checksum field %.17g\nchecksum idx %ld\n", f, is);
  printf("checksum rounds %.17g\n", r);
  free(out); free(a); free(b); free(v); free(w); free(idx); free(u);
  return 0;
}
