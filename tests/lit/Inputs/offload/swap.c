// Parallel loop swap: row-outer nests whose inner index is contiguous.
#include <stdlib.h>
#define N 128
static double a[N][N], b[N][N];

void swap(int n) {
  double *A = (double *)malloc((size_t)n * n * sizeof(double));
  double *B = (double *)malloc((size_t)n * n * sizeof(double));
  // Swapped: a[i][j] from b[i][j].
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = 2 * b[i][j];
  // Swapped: the flat form A[i*n + j].
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] = B[i * n + j] + 1;
  // Not swapped: a[i][j] depends on a[i][j-1] (a chain along j).
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 1; j < N; j++)
      a[i][j] = a[i][j - 1] + b[i][j];
  // Not swapped: a scalar carried from one j to the next.
  double carry;
#pragma omp parallel for private(carry)
  for (int i = 0; i < N; i++) {
    carry = 0;
    for (int j = 0; j < N; j++) {
      carry += b[i][j];
      a[i][j] = carry;
    }
  }
  free(A);
  free(B);
}
