// A stand-in for the CUDA headers, for code compiled with clang -nocudainc.
#define __global__ __attribute__((global))
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
