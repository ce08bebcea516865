// ci-args: 1000
// ci-args: 37
/* oldc.c - C89 as Rodinia-era programs write it, which gcc before 14 still
 * compiles with warnings: K&R definitions (a float parameter among them,
 * which C passes as a double), implicit int (a return type and a parameter
 * left undeclared), and functions called before anything declares them
 * (exp and printf without their headers, `later` defined at the end).
 * offload writes each in C++ for nvcc (src/offload/OldC.h); this program's
 * output must print what the program compiled by gcc prints. */
#include <stdlib.h>

float squash(x)
float x;
{
  return (1.0 / (1.0 + exp(-x)));
}

static scale(w, n, f)
float *w;
float f;
{
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    w[i] = w[i] * f + 1.0f;
  return n;
}

main(argc, argv)
char **argv;
{
  int len = atoi(argv[1]);
  float *w = (float *)malloc(len * sizeof(float));
  int i, n;
  double sum = 0;
  for (i = 0; i < len; i++)
    w[i] = squash((float)(i % 17) / 4.0f - 2.0f);
  n = scale(w, len, 0.5f);
  for (i = 0; i < len; i++)
    sum += w[i];
  printf("checksum n %d\n", n);
  printf("checksum later %d\n", later(n));
  printf("checksum sum %.17g\n", sum);
  free(w);
  return 0;
}

later(v)
{
  return v * 2;
}
