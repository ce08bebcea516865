// ci-args: 100
// ci-args: 7
// ci-offloaded: 1
//
// cudanames.c - a host program's own types and functions named as CUDA's
// vector types (Rodinia cfd's `struct float3`), which nvcc declares before
// the file: the output renames the program's, so that it compiles, and the
// offloaded loop moves arrays of them.
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float x, y, z;
} float3;

static float3 make_float3(float x, float y, float z) {
  float3 v = {x, y, z};
  return v;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  float3 *p = (float3 *)malloc(n * sizeof(float3));
  float *len2 = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++)
    p[i] = make_float3((float)i, (float)(i % 3), 0.5f * (float)i);
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    len2[i] = p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += len2[i] * (i % 5 + 1);
  printf("checksum len2 %.9g\n", s);
  free(p);
  free(len2);
  return 0;
}
