// A narrowing conversion in braces, which nvcc's host compiler only warns
// about.
__global__ void scale(float *p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= f;
}

int main() {
  int n = 4096;
  float factor = 2.5f;
  int dims[2] = {n / 2.0, 256};
  float *p;
  cudaMalloc(&p, n * sizeof(float));
  scale<<<dims[0] / dims[1], 256>>>(p, n, factor);
  return 0;
}
