// Launch chevrons written with spaces, as some code formatters leave them;
// nvcc reads them as <<< and >>>.
#include <vector>

__global__ void step(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1.0f;
}

// Closing template brackets with a space between stay as they are.
std::vector<std::vector<std::vector<int>> > nested;

int main() {
  int n = 1 << 20;
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  step << < n / 128, 128 >> > (p, n);
  step<< <n / 64,
          64>>> (p, n);
  return 0;
}
