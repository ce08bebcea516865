// omp_support_test.cu - offload's run-time support (src/runtime/offload) on
// its own: the grid size, the disjointness test, the block reduction with
// each operator over several block shapes, the error check and the timing
// macros, and --fmad=false's rounded products (their values here; their
// rounding in the PTX, by check_runtime.sh), used as offload's outputs use
// them. Built with nvcc (every warning an error; with and without
// -DWARPWISE_OFFLOAD_TIMING) and for the CPU executor
// (tests/equiv/cpu_build.py), where it runs: one line per check, exit 1 if
// any failed.
//
// It includes the support as an output does, twice (two outputs in one
// unit), or with -DWW_FROM_SOURCES the headers of the sources.
#ifdef WW_FROM_SOURCES
#include "offload.cuh"
#include "offload.cuh"
#else
#include "warpwise_offload.cuh"
#include "warpwise_offload.cuh"
#endif
#if WARPWISE_OFFLOAD_API != 1
#error "offload's run-time support has a different API"
#endif

static int failures = 0;

static void check(bool ok, const char *what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok)
    ++failures;
}

// Each block reduces its part of \p in (one element per thread) with \p op;
// thread 0 writes the block's result, as an offloaded reduction's partials.
template <class T, class Op>
__global__ void reduce_blocks(const T *in, T *partials, Op op, T identity) {
  unsigned tid =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned block = blockIdx.x;
  T v = in[block * threads + tid];
  v = ww_omp_block_reduce(v, op, identity);
  // A second reduction in the same kernel: the support's barrier keeps it
  // from overwriting the first one's shared results while they are read.
  T count = ww_omp_block_reduce(T(1), ww_omp_plus(), T(0));
  if (tid == 0) {
    partials[2 * block] = v;
    partials[2 * block + 1] = count;
  }
}

// Products as --fmad=false writes them in a called function.
__global__ void rounded(const float *a, const double *b, float *fo,
                        double *dout) {
  unsigned i = threadIdx.x;
  fo[i] = ww_omp_fmul(a[i], a[i]) + 1.0f;
  dout[i] = ww_omp_dmul(b[i], b[i]) + 1.0;
}

template <class T, class Op>
static void check_reduce(const char *what, Op op, T identity, dim3 block,
                         unsigned blocks, unsigned values = 11) {
  unsigned threads = block.x * block.y * block.z;
  unsigned n = threads * blocks;
  T in[2048], partials[16];
  for (unsigned i = 0; i < n; ++i)
    in[i] = T((i * 37u) % values) + T(1);
  T *d_in = 0, *d_partials = 0;
  WW_OMP_CHECK(cudaMalloc(&d_in, n * sizeof(T)));
  WW_OMP_CHECK(cudaMalloc(&d_partials, 2 * blocks * sizeof(T)));
  WW_OMP_CHECK(cudaMemcpy(d_in, in, n * sizeof(T), cudaMemcpyHostToDevice));
  WW_OMP_TIME_BEGIN
  reduce_blocks<<<blocks, block>>>(d_in, d_partials, op, identity);
  WW_OMP_CHECK(cudaGetLastError());
  WW_OMP_TIME_END("reduce_blocks")
  WW_OMP_CHECK(cudaMemcpy(partials, d_partials, 2 * blocks * sizeof(T),
                          cudaMemcpyDeviceToHost));
  bool ok = true;
  for (unsigned b = 0; b < blocks; ++b) {
    T expected = identity;
    for (unsigned t = 0; t < threads; ++t)
      expected = op(expected, in[b * threads + t]);
    ok = ok && partials[2 * b] == expected && partials[2 * b + 1] == T(threads);
  }
  char line[160];
  std::snprintf(line, sizeof line, "block reduce, %s, block %ux%ux%u", what,
                block.x, block.y, block.z);
  check(ok, line);
  WW_OMP_CHECK(cudaFree(d_in));
  WW_OMP_CHECK(cudaFree(d_partials));
}

int main() {
  // Blocks for n items: at least 1, rounded up, at most the cap.
  check(ww_omp_blocks(0, 256, 1024) == 1u, "blocks: no items, one block");
  check(ww_omp_blocks(-5, 256, 1024) == 1u, "blocks: negative count");
  check(ww_omp_blocks(256, 256, 1024) == 1u, "blocks: one full block");
  check(ww_omp_blocks(257, 256, 1024) == 2u, "blocks: rounded up");
  check(ww_omp_blocks(1LL << 40, 256, 65535) == 65535u, "blocks: capped");

  // Host ranges: apart, touching, overlapping, one inside the other.
  char buf[64];
  check(ww_omp_disjoint(buf, 16, buf + 32, 16), "disjoint: apart");
  check(ww_omp_disjoint(buf, 16, buf + 16, 16), "disjoint: touching");
  check(ww_omp_disjoint(buf + 16, 16, buf, 16), "disjoint: touching, swapped");
  check(!ww_omp_disjoint(buf, 17, buf + 16, 16), "disjoint: one byte shared");
  check(!ww_omp_disjoint(buf, 64, buf + 8, 8), "disjoint: inside");

  // The operators offload's reductions use, on the types they reduce.
  check_reduce<int>("int +", ww_omp_plus(), 0, dim3(64), 3);
  check_reduce<long long>("long long +", ww_omp_plus(), 0LL, dim3(256), 2);
  check_reduce<double>("double +", ww_omp_plus(), 0.0, dim3(32, 4), 2);
  check_reduce<float>("float min", ww_omp_min(), FLT_MAX, dim3(128), 2);
  check_reduce<int>("int max", ww_omp_max(), INT_MIN, dim3(8, 4, 2), 2);
  // Factors 1 and 2: every partial product is exact, in any order.
  check_reduce<double>("double *", ww_omp_times(), 1.0, dim3(64), 1, 2);
  check_reduce<unsigned>("unsigned +", ww_omp_plus(), 0u, dim3(1024), 1);

  // Rounded products: on the host, the plain product.
  check(ww_omp_fmul(1.5f, 3.0f) == 4.5f, "fmul on the host");
  check(ww_omp_dmul(1.5, -3.0) == -4.5, "dmul on the host");
  float a[32], fo[32];
  double b[32], dout[32];
  for (int i = 0; i < 32; ++i) {
    a[i] = 1.0f + i / 3.0f;
    b[i] = 1.0 + i / 7.0;
  }
  float *d_a = 0, *d_fo = 0;
  double *d_b = 0, *d_dout = 0;
  WW_OMP_CHECK(cudaMalloc(&d_a, sizeof a));
  WW_OMP_CHECK(cudaMalloc(&d_fo, sizeof fo));
  WW_OMP_CHECK(cudaMalloc(&d_b, sizeof b));
  WW_OMP_CHECK(cudaMalloc(&d_dout, sizeof dout));
  WW_OMP_CHECK(cudaMemcpy(d_a, a, sizeof a, cudaMemcpyHostToDevice));
  WW_OMP_CHECK(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
  rounded<<<1, 32>>>(d_a, d_b, d_fo, d_dout);
  WW_OMP_CHECK(cudaGetLastError());
  WW_OMP_CHECK(cudaMemcpy(fo, d_fo, sizeof fo, cudaMemcpyDeviceToHost));
  WW_OMP_CHECK(cudaMemcpy(dout, d_dout, sizeof dout, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < 32; ++i) {
    // The product rounded first, then the add: what the host computes.
    volatile float fp = a[i] * a[i];
    volatile double dp = b[i] * b[i];
    ok = ok && fo[i] == fp + 1.0f && dout[i] == dp + 1.0;
  }
  // On the CPU executor this checks the calls and the data flow only (its
  // products are the host's); check_runtime.sh offload-nvcc reads nvcc's PTX
  // for the rounding itself.
  check(ok, "rounded products in a kernel: the host's values");
  WW_OMP_CHECK(cudaFree(d_a));
  WW_OMP_CHECK(cudaFree(d_fo));
  WW_OMP_CHECK(cudaFree(d_b));
  WW_OMP_CHECK(cudaFree(d_dout));

  std::printf("%s\n", failures ? "omp_support: FAILED" : "omp_support: ok");
  return failures ? 1 : 0;
}
