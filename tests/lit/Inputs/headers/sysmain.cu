#include <cuda_runtime.h>
#include <syskern.cuh>

void run(const float *a, const float *b, float *s, float *q, int n) {
  sys_reduce<<<n / 256, 256>>>(a, b, s, q, n / 4, 4);
}
