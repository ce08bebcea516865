// ci-args: 1000
// ci-args: 37
//
// atomics.c - `#pragma omp atomic` updates: a histogram (array elements:
// atomicAdd on the device), a shared sum and count (a reduction in all but
// name), a decrement; and an atomic the translation keeps on the host.
#include <stdio.h>
#include <stdlib.h>

#define BINS 16

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int *v = (int *)malloc(n * sizeof(int));
  int hist[BINS];
  unsigned down[BINS];
  for (int b = 0; b < BINS; b++) {
    hist[b] = 0;
    down[b] = 1000u;
  }
  for (int i = 0; i < n; i++)
    v[i] = (i * 7919) % 1000;
  long total = 0;
  int count = 0;
  double wsum = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int b = v[i] % BINS;
#pragma omp atomic
    hist[b]++;
#pragma omp atomic
    down[(b + 3) % BINS] -= 2u;
    if (v[i] > 500) {
#pragma omp atomic
      count += 1;
    }
#pragma omp atomic update
    wsum += v[i] * 0.5;
  }
  int last = -1;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic write
    last = i;
  }
  for (int b = 0; b < BINS; b++)
    total += (long)hist[b] * (b + 1) + down[b];
  printf("checksum total %ld\nchecksum count %d\nchecksum wsum %.17g\n", total,
         count, wsum);
  printf("checksum last_ok %d\n", last >= 0 || n == 0);
  free(v);
  return 0;
}
