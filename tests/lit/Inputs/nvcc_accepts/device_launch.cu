// A kernel launched from a kernel (dynamic parallelism): the build compiles
// it with -rdc=true.
__global__ void child(int *p) { p[threadIdx.x] = 1; }

__global__ void parent(int *p) {
  if (threadIdx.x == 0)
    child<<<1, 32>>>(p);
}
