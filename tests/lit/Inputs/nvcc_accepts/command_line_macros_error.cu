// The same macro, and an error of the file's own.
__global__ void zero(float *a) {
  if (threadIdx.x < N)
    a[threadIdx.x] = ;
}
