// A kernel sized by a macro the build defines (-DN=4096), as PolyBench's
// programs are. Clang's CUDA headers name parameters N; nvcc's do not.
__global__ void scale(float *a, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    a[i] *= s;
}

int main() {
  float *a;
  cudaMalloc(&a, N * sizeof(float));
  scale<<<N / 256, 256>>>(a, 2.0f);
  cudaDeviceSynchronize();
  return 0;
}
