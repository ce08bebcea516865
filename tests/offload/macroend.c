// ci-args: 9 7
// ci-args: 1 3
// ci-offloaded: 2
//
// macroend.c - a loop body whose statement ends inside a macro's arguments
// (`AT(B, i, j) = AT(A, i - 1, j) + AT(A, i + 1, j);`): the kernel's copy of
// the body ends at the last invocation's `)`, not at its name (before, the
// body was cut after `AT` and the output did not compile).
// Usage: macroend NI NJ. Prints `checksum` lines (exact).
#include <stdio.h>
#include <stdlib.h>

#define W 48
#define AT(a, r, c) a[(r)][(c)]
#define TWICE(x) ((x) + (x))

static double A[W][W], B[W][W], C[W][W];

static void stencil(int ni, int nj) {
#pragma omp parallel for collapse(2)
  for (int i = 2; i < ni + 2; ++i)
    for (int j = 1; j < nj + 1; ++j)
      AT(B, i, j) = AT(A, i - 1, j) + AT(A, i + 1, j);
}

static void scale(int ni, int nj) {
#pragma omp parallel for
  for (int i = 0; i < ni; ++i)
    for (int j = 0; j < nj; ++j)
      C[i][j] = TWICE(AT(A, i, j));
}

int main(int argc, char **argv) {
  int ni = argc > 1 ? atoi(argv[1]) : 9;
  int nj = argc > 2 ? atoi(argv[2]) : 7;
  if (ni > W - 3 || nj > W - 2)
    return 1;
  for (int i = 0; i < W; i++)
    for (int j = 0; j < W; j++) {
      A[i][j] = i * 3 + j;
      B[i][j] = -i - j;
      C[i][j] = 0.5 * i - j;
    }
  stencil(ni, nj);
  scale(ni, nj);
  double s = 0, t = 0;
  for (int i = 0; i < W; i++)
    for (int j = 0; j < W; j++) {
      s += B[i][j] * (1 + (i * 7 + j) % 13);
      t += C[i][j] * (1 + (i * 5 + j) % 11);
    }
  printf("checksum B %.17g\n", s);
  printf("checksum C %.17g\n", t);
  return 0;
}
