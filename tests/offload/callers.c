// ci-args: 24 16 3
// ci-args: 9 31 4
// ci-args: 12 5 2 7
// ci-offloaded: 2
//
// callers.c - loops in functions that take their arrays as pointers, whose
// extents only the callers know (issue 27, item 3; the shapes of Rodinia's
// hotspot and of a Jacobi stencil): the extents are followed from every
// call in the file to the allocations, through a caller's own pointer
// parameters, pointers copied from them and buffers it swaps, and written
// in the function's own parameters (a size read by sscanf through its
// address before the allocation included). Two loops stay on the host: one
// whose calls pass arrays of different extents, one whose size variable
// changes between the allocation and the call.
#include <stdio.h>
#include <stdlib.h>

// Called twice with the buffers in turn: the same extent from both calls.
static void jacobi_step(int n, const float *in, float *out) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[i * n + j] = 0.25f * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                in[i * n + j - 1] + in[i * n + j + 1]);
}

// Two calls deep: compute() passes its parameters and two local copies that
// it swaps between steps.
static void step(float *dst, const float *src, const float *power, int rows,
                 int cols) {
#pragma omp parallel for
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float up = src[(r > 0 ? r - 1 : r) * cols + c];
      float down = src[(r < rows - 1 ? r + 1 : r) * cols + c];
      dst[r * cols + c] = 0.5f * src[r * cols + c] + 0.2f * (up + down) +
                          0.1f * power[r * cols + c];
    }
}

static void compute(float *result, float *temp, const float *power, int rows,
             int cols, int iterations) {
  float *r = result;
  float *t = temp;
  for (int i = 0; i < iterations; i++) {
    step(r, t, power, rows, cols);
    float *tmp = t;
    t = r;
    r = tmp;
  }
}

// Called with arrays of two extents (n * n and m): stays on the host.
static void scale(float *v, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    v[i] = 2.0f * v[i];
}

// Its size variable changes after the allocation: stays on the host.
static void fill(float *v, int k) {
#pragma omp parallel for
  for (int i = 0; i < k; i++)
    v[i] = (float)i;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 24;
  int cols = argc > 2 ? atoi(argv[2]) : 16;
  int iterations = argc > 3 ? atoi(argv[3]) : 3;
  // Read through its address by the C library, before the allocations: the
  // extents that use it still hold.
  if (argc > 4 && sscanf(argv[4], "%d", &cols) != 1)
    return 1;
  int rows = n;
  float *a = (float *)malloc(sizeof(float) * n * n);
  float *b = (float *)malloc(sizeof(float) * n * n);
  float *temp = (float *)calloc(rows * cols, sizeof(float));
  float *result = (float *)calloc(rows * cols, sizeof(float));
  float *power = (float *)calloc(rows * cols, sizeof(float));
  for (int x = 0; x < n * n; x++) {
    a[x] = (float)((x * 7) % 13);
    b[x] = 0.0f;
  }
  for (int x = 0; x < rows * cols; x++) {
    temp[x] = (float)((x * 5) % 9);
    power[x] = (float)(x % 4) * 0.5f;
  }
  for (int s = 0; s < 4; s++) {
    jacobi_step(n, a, b);
    jacobi_step(n, b, a);
  }
  compute(result, temp, power, rows, cols, iterations);
  int m = cols;
  float *c = (float *)malloc(m * sizeof(float));
  for (int x = 0; x < m; x++)
    c[x] = (float)x;
  scale(a, n);
  scale(c, m);
  int k = cols;
  float *e = (float *)malloc(k * sizeof(float));
  k = k / 2;
  fill(e, k);
  double sa = 0, sr = 0, st = 0, sc = 0, se = 0;
  for (int x = 0; x < n * n; x++)
    sa += a[x] * (x % 5 + 1);
  for (int x = 0; x < rows * cols; x++) {
    sr += result[x] * (x % 3 + 1);
    st += temp[x] * (x % 7 + 1);
  }
  for (int x = 0; x < m; x++)
    sc += c[x];
  for (int x = 0; x < k; x++)
    se += e[x];
  printf("checksum jacobi %.9g\nchecksum result %.9g\nchecksum temp %.9g\n",
         sa, sr, st);
  printf("checksum scale %.9g\nchecksum fill %.9g\n", sc, se);
  free(a);
  free(b);
  free(temp);
  free(result);
  free(power);
  free(c);
  free(e);
  return 0;
}
