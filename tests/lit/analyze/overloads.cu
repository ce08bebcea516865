// Overloaded kernels each get their own ptxas register count (matched by
// the kernel's mangled name, not the host launch stub's), and a template
// kernel's launches inside function-template instantiations give its block
// sizes.
// REQUIRES: nvcc
// RUN: %warpwise analyze %s > %t.out 2>&1
// RUN: FileCheck %s --input-file %t.out

__global__ void k(float *o) { o[threadIdx.x] = 1.0f; }
__global__ void k(double *o) {
  double a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = o[threadIdx.x * i] * i;
  double s = 0;
  for (int i = 0; i < 16; ++i)
    s += a[i] * a[(i * 7) % 16];
  o[threadIdx.x] = s;
}
void go(float *f, double *d) {
  k<<<1, 128>>>(f);
  k<<<1, 128>>>(d);
}

template <int N> __global__ void t(float *o) { o[threadIdx.x] = N; }
template <int N> void launch(float *o) { t<N><<<1, N>>>(o); }
void all(float *o) {
  launch<64>(o);
  launch<512>(o);
}

// CHECK-NOT: WW2005
// CHECK:      kernel k (line 9)
// CHECK-NEXT:   registers: estimate {{[0-9]+}} (peak at line 9), ptxas [[SMALL:[0-9]+]] on sm_
// CHECK:      kernel k (line 10)
// CHECK-NOT:    ptxas [[SMALL]] on
// CHECK:        ptxas {{[0-9]+}} on sm_
// CHECK:      kernel t (line 24) [template]
// CHECK:        at 512 threads (largest of 2 launch block sizes)
