// ci-args: 100 5
// ci-args: 33 0
// ci-args: 64 1
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  double *in = (double *)malloc(n * sizeof(double));
  double *out = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { in[i] = i % 10; out[i] = -1; }
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    double *tmp = in;
    in = out;
    out = tmp;
  }
  double s = 0, s2 = 0;
  for (int i = 0; i < n; i++) { s += in[i] * (i % 3 + 1); s2 += out[i] * (i % 5 + 1); }
  printf("checksum in %.17g\nchecksum out %.17g\n", s, s2);
  free(in); free(out);
  return 0;
}
