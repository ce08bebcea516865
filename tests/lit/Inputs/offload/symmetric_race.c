// j2 runs over the whole row, not up from j1: iterations j1 = 0 and
// j1 = 1 both write s[0][1] and s[1][0]; this stays on the host.
#define M 16
void full(int m, double s[M][M], double d[M][M]) {
  int j1, j2;
#pragma omp parallel for private(j2)
  for (j1 = 0; j1 < m; j1++)
    for (j2 = 0; j2 < m; j2++) {
      s[j1][j2] = d[j1][j2];
      s[j2][j1] = s[j1][j2];
    }
}
