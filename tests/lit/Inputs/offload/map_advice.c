// Pointer parameters: the map clause advised gives the length the loop's
// accesses say, or says it cannot tell (never a bound of one loop).
void scale(int n, int m, double *out, const double *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      out[i * m + j] = 2 * a[i * m + j];
}

void copy(int n, double *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = i;
}

void jacobi(int n, const double *in, double *out) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                               in[i * n + j - 1] + in[i * n + j + 1]);
}
