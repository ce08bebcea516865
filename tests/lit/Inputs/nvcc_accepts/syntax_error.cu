// A plain syntax error: no compile flag is the fix.
__global__ void broken(int *p) {
  p[threadIdx.x] = 1
}
