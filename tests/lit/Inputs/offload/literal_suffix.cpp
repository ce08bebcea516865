// Pre-C++11 code: a string literal followed by a macro with no space
// between, which C++11 reads as a literal suffix; g++ and nvcc warn and
// read it as two tokens (Rodinia mummergpu's "...("fNID")...").
#include <stdio.h>
#include <stdlib.h>
#define FMT "%d"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 16;
  int *v = (int *)malloc(n * sizeof(int));
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    v[i] = 2 * i;
  printf("last ("FMT")\n", v[n - 1]);
  free(v);
  return 0;
}
