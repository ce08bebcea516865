// Inner loops that start at the outer index: swapped over the hull of
// their ranges when each (j1, j2) iteration has its own elements.
#define M 64
void below(int m, double s[M][M], double d[M][M]) {
  int j1, j2;
#pragma omp parallel for private(j2)
  for (j1 = 1; j1 < m; j1++)
    for (j2 = j1 - 1; j2 < m; j2++)
      s[j1][j2] = d[j1][j2] + d[j2][j1];
}

// The start is not the outer index plus a constant: not swapped.
void doubled(int m, double s[M][M]) {
  int j1, j2;
#pragma omp parallel for private(j2)
  for (j1 = 0; j1 < m / 2; j1++)
    for (j2 = 2 * j1; j2 < m; j2++)
      s[j1][j2] = 1.0;
}

// A symmetric write needs j2 >= j1: from j1 - 1, iterations j1 and j1 - 1
// both write s[j1 - 1][j1]; the nest is not swapped, and the loop over j1
// is a race too, so it stays on the host.
void symmetricBelow(int m, double s[M][M]) {
  int j1, j2;
#pragma omp parallel for private(j2)
  for (j1 = 1; j1 < m; j1++)
    for (j2 = j1 - 1; j2 < m; j2++) {
      s[j1][j2] = j1;
      s[j2][j1] = j2;
    }
}
