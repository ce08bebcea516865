/* A loop whose variables are named like warpwise's own in the kernel it
   writes (ww_t0, ww_u, ...) stays on the host: the kernel's declarations
   around the body would hide them. */
#define W 48
double A[W][W], B[W][W];

void scaled(int ni, int nj, int ww_u) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < ni + 1; ++i)
    for (int j = 1; j < nj + 1; ++j)
      B[i][j] = A[i - 1][j] + A[i + 1][j] * ww_u;
}

void local(int n, double *x) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    double ww_t0 = i * 0.5;
    x[i] = ww_t0;
  }
}

void fine(int n, double *x, int u) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = x[i] * u;
}
