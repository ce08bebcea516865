// Inline asm nvcc accepts and clang does not: no comma between two input
// operands.
__device__ void publish(unsigned char *flag, unsigned char value) {
  unsigned int v = value;
  asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(v) "l"(flag)
               : "memory");
}

__global__ void signal(unsigned char *flag) { publish(flag, 1); }
