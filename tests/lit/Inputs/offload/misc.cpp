// C++ input: std:: math, an inner `omp simd`, omp.h, and a pragma inside
// an #ifdef of its own (as Rodinia's srad_v2 has it).
#include <cmath>
#include <cstdio>
#include <omp.h>
#define OPEN

void misc(float *out) {
  float a[256];
  double t0 = omp_get_wtime();
#ifdef OPEN
#pragma omp parallel for
#endif
  for (int i = 0; i < 256; i++) {
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (int k = 0; k < 4; k++)
      s += std::sqrt(float(i + k));
    a[i] = s;
  }
  printf("%f %d\n", a[255], omp_get_wtime() > t0);
}
