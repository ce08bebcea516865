// durbin's shape: the first loop of the region reads what the iteration
// before wrote (a dependence: it stays on the host); the second is safe.
#define N 64
void durbin(int n, double beta[N], double alpha[N], double y[N][N],
            double out[N]) {
  int i, k;
#pragma omp parallel
  {
#pragma omp for private(i)
    for (k = 1; k < n; k++) {
      beta[k] = beta[k - 1] - alpha[k - 1] * alpha[k - 1] * beta[k - 1];
      for (i = 0; i <= k - 1; i++)
        y[i][k] = y[i][k - 1] + beta[k];
    }
#pragma omp for
    for (i = 0; i < n; i++)
      out[i] = y[i][n - 1];
  }
}

// A firstprivate copy may carry a value from one loop to the next in one
// thread: the region is not split, and stays on the host whole.
void keep(int n, double a[N], double b[N], double s) {
  int i;
#pragma omp parallel firstprivate(s)
  {
#pragma omp for
    for (i = 1; i < n; i++)
      a[i] = a[i - 1] + s;
#pragma omp for
    for (i = 0; i < n; i++)
      b[i] = 2 * s;
  }
}
