// ci-args: 24 16
// ci-args: 7 33
// ci-offloaded: 3
//
// indexlocal.c - a flat index computed into a local before its uses, as
// Rodinia's srad computes `k = i + Nr*j` in a column-major image: the
// dependence test reads dN[k] as dN[i + Nr*j] when k is set once, at the
// top of the block that uses it, from the loop variables around it. Both
// spellings (an assignment to a private declared outside, a declaration in
// the body), and a local set in two steps (not followed: that loop stays
// on the host).
#include <stdio.h>
#include <stdlib.h>
#define MAXN 1024

static void derivatives(int nr, int nc, const float image[MAXN],
                        float dn[MAXN], float c[MAXN]) {
  int i, j, k;
  float jc, g;
#pragma omp parallel for private(i, k, jc, g)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      k = i + nr * j;
      jc = image[k];
      dn[k] = image[(i > 0 ? i - 1 : 0) + nr * j] - jc;
      g = dn[k] * dn[k] / (jc * jc + 1.0f);
      c[k] = 1.0f / (1.0f + g);
      if (c[k] > 0.5f)
        c[k] = 0.5f;
    }
}

static void update(int nr, int nc, float image[MAXN], const float c[MAXN]) {
#pragma omp parallel for
  for (int j = 0; j < nc; j++)
    for (int i = 0; i < nr; i++) {
      int k = nr * j + i;
      image[k] += 0.25f * c[k];
    }
}

static void rows(int nr, int nc, float out[MAXN], const float c[MAXN]) {
#pragma omp parallel for
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nc; j++) {
      int k = i * nc + j;
      out[k] = c[(k + 1) % (nr * nc)];
    }
}

static void twice(int nr, int nc, float out[MAXN]) {
  int i, j, k;
#pragma omp parallel for private(i, k)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      k = nr * j;
      k += i;
      out[k] += 1.0f;
    }
}

int main(int argc, char **argv) {
  int nr = argc > 1 ? atoi(argv[1]) : 24;
  int nc = argc > 2 ? atoi(argv[2]) : 16;
  float *image = (float *)malloc(sizeof(float) * MAXN);
  float *dn = (float *)malloc(sizeof(float) * MAXN);
  float *c = (float *)malloc(sizeof(float) * MAXN);
  float *out = (float *)malloc(sizeof(float) * MAXN);
  for (int x = 0; x < MAXN; x++) {
    image[x] = (float)((x * 7) % 11) / 3.0f;
    out[x] = 0.0f;
  }
  derivatives(nr, nc, image, dn, c);
  update(nr, nc, image, c);
  rows(nr, nc, out, c);
  double s = 0, d = 0, o = 0;
  for (int x = 0; x < nr * nc; x++) {
    s += image[x] * (x % 5 + 1);
    d += dn[x] * (x % 3 + 1);
    o += out[x] * (x % 7 + 1);
  }
  twice(nr, nc, out);
  double b = 0;
  for (int x = 0; x < nr * nc; x++)
    b += out[x] * (x % 7 + 1);
  printf("checksum image %.9g\nchecksum dn %.9g\nchecksum out %.9g\n", s, d, o);
  printf("checksum twice %.9g\n", b);
  return 0;
}
