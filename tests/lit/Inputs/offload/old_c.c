/* C89 as old programs write it (tests/lit/offload/old-c.test). */
#include <stdlib.h>

static float table[64];

static fill(n, scale)
float scale;
{
  int i;
#pragma omp parallel for
  for (i = 0; i < 64; i++)
    table[i] = sqrt((float)i) * scale + n;
  return n;
}

double mean(v, count)
double *v;
int count;
{
  double s = 0;
  int k;
  for (k = 0; __builtin_expect(k < count, 1); k++)
    s += v[k];
  return s / count;
}

int main()
{
  fill(3, 0.5f);
  printf("%f %d\n", table[9], twice(4));
  return elsewhere(1);
}

twice(x)
{
  return 2 * x;
}
