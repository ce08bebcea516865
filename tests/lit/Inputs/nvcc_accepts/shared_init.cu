// A __shared__ variable whose type's constructor does work: nvcc accepts it
// (leaving it uninitialised), clang does not.
struct Counter {
  int value;
  __device__ Counter() : value(0) {}
};

__global__ void count(int *out) {
  __shared__ Counter c;
  if (threadIdx.x == 0)
    out[blockIdx.x] = c.value;
}
