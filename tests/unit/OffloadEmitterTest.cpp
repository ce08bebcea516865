// offload's kernel emitter on its own: the CUDA text of a kernel, of its
// launch, of a region's copies, and of the run-time support, for plans and
// regions the planner made from small loops.
#include "OffloadTestSupport.h"

#include "offload/KernelEmitter.h"
#include "warpwise/Offload.h"

using namespace offload_test;
using namespace warpwise::offload;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

TEST_CASE("offload emitter: a one-dimensional loop: kernel, launch and copies",
          "[offload][emitter]") {
  auto In = parse(R"(
void scale(int n, double a[1000], double s) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = a[i] * s;
}
)");
  FunctionPlanner F(*In, "scale");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  const KernelPlan &P = *R.Units[0].Kernels[0];
  KernelEmitter E(*In->Src, 256);
  CHECK(E.kernelText(P) ==
        "// warpwise offload: '#pragma omp parallel for' at line 3.\n"
        "__global__ void k_L3(double *__restrict__ a, int n, double s, int "
        "ww_lb0, unsigned int ww_n0) {\n"
        "  for (unsigned int ww_t0 = (unsigned int)blockIdx.x * blockDim.x + "
        "threadIdx.x; ww_t0 < ww_n0; ww_t0 += (unsigned int)gridDim.x * "
        "blockDim.x) {\n"
        "    int i = ww_lb0 + (int)ww_t0;\n"
        "    a[i] = a[i] * s;\n"
        "  }\n"
        "}\n");
  CHECK(E.launchText(P, R) ==
        "{ // warpwise offload: '#pragma omp parallel for' -> k_L3\n"
        "  const long long ww_lb0 = (long long)(0);\n"
        "  const long long ww_ub0 = (long long)(n);\n"
        "  const long long ww_st0 = 1;\n"
        "  const long long ww_n0 = ww_ub0 > ww_lb0 ? (ww_ub0 - ww_lb0 + ww_st0 "
        "- 1) / ww_st0 : 0;\n"
        "  if (ww_n0 > 0) {\n"
        "    dim3 ww_block(256);\n"
        "    dim3 ww_grid(ww_omp_blocks(ww_n0, 256, 1048576));\n"
        "    WW_OMP_TIME_BEGIN\n"
        "    k_L3<<<ww_grid, ww_block>>>(ww_d1_a, n, s, (int)ww_lb0, (unsigned "
        "int)ww_n0);\n"
        "    WW_OMP_CHECK(cudaGetLastError());\n"
        "    WW_OMP_TIME_END(\"k_L3\")\n"
        "  }\n"
        "}");
  CHECK(E.regionHead(R) ==
        "// warpwise offload: device data for lines 3-5\n"
        "double *ww_d1_a = 0;\n"
        "WW_OMP_CHECK(cudaMalloc((void **)&ww_d1_a, (size_t)(1000) * "
        "sizeof(*ww_d1_a)));\n"
        "WW_OMP_CHECK(cudaMemcpy(ww_d1_a, a, (size_t)(1000) * "
        "sizeof(*ww_d1_a), cudaMemcpyHostToDevice));\n");
  CHECK(E.regionTail(R) ==
        "\nWW_OMP_CHECK(cudaMemcpy(a, ww_d1_a, (size_t)(1000) * "
        "sizeof(*ww_d1_a), cudaMemcpyDeviceToHost));\n"
        "WW_OMP_CHECK(cudaFree(ww_d1_a));");
  // --block-size.
  KernelEmitter E128(*In->Src, 128);
  CHECK_THAT(E128.launchText(P, R),
             Contains("    dim3 ww_block(128);\n"
                      "    dim3 ww_grid(ww_omp_blocks(ww_n0, 128, 1048576));"));
}

TEST_CASE("offload emitter: a reduction: per-thread copies, a block reduction, "
          "partials "
          "combined on the host",
          "[offload][emitter]") {
  auto In = parse(R"(
double dot(int n, double x[1000], double y[1000]) {
  double s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}
)");
  FunctionPlanner F(*In, "dot");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  const KernelPlan &P = *R.Units[0].Kernels[0];
  KernelEmitter E(*In->Src, 256);
  std::string K = E.kernelText(P);
  CHECK_THAT(K, Contains("__global__ void k_L4(double *__restrict__ x, double "
                         "*__restrict__ y, int n, int ww_lb0, unsigned int "
                         "ww_n0, double *ww_part0) "
                         "{\n  double s = (double)0;\n"));
  CHECK_THAT(K, EndsWith("  s = ww_omp_block_reduce(s, ww_omp_plus(), "
                         "(double)0);\n"
                         "  if (ww_first)\n"
                         "    ww_part0[ww_block] = s;\n"
                         "}\n"));
  std::string L = E.launchText(P, R);
  CHECK_THAT(L, Contains("dim3 ww_grid(ww_omp_blocks(ww_n0, 256, 1024));"));
  CHECK_THAT(L, Contains("(unsigned int)ww_n0, ww_d1_k_L4_part0);"));
  CHECK_THAT(L, Contains("    double ww_h_part0[1024];\n"
                         "    const unsigned ww_blocks0 = ww_grid.x * "
                         "ww_grid.y * ww_grid.z;\n"));
  CHECK_THAT(L, Contains("      s = ww_omp_plus()(s, ww_h_part0[ww_b]);\n"));
  CHECK_THAT(E.prologue(R),
             EndsWith("double *ww_d1_k_L4_part0 = 0;\n"
                      "WW_OMP_CHECK(cudaMalloc((void **)&ww_d1_k_L4_part0, "
                      "1024 * sizeof(double)));\n"));
  CHECK_THAT(E.epilogue(R),
             EndsWith("WW_OMP_CHECK(cudaFree(ww_d1_k_L4_part0));\n"));
}

TEST_CASE("offload emitter: collapsed and swapped nests: a 2-D grid, x over "
          "the inner loop",
          "[offload][emitter]") {
  auto In = parse(R"(
#define N 256
void two(double a[N][N], int m) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < m; j += 2)
      a[i][j] = i;
}
)");
  FunctionPlanner F(*In, "two");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  const KernelPlan &P = *R.Units[0].Kernels[0];
  KernelEmitter E(*In->Src, 256);
  std::string K = E.kernelText(P);
  // The kernel's array type follows the program's macro.
  CHECK_THAT(
      K,
      Contains("__global__ void k_L4(double (*__restrict__ a)[N], int m, int "
               "ww_lb0, unsigned int ww_n0, int ww_lb1, int "
               "ww_st1, unsigned int ww_n1) {\n"));
  CHECK_THAT(K, Contains("  for (unsigned int ww_t0 = (unsigned "
                         "int)blockIdx.y * blockDim.y + threadIdx.y;"));
  CHECK_THAT(K, Contains("    for (unsigned int ww_t1 = (unsigned "
                         "int)blockIdx.x * blockDim.x + threadIdx.x;"));
  CHECK_THAT(K, Contains("      int j = ww_lb1 + (int)ww_t1 * ww_st1;\n"));
  std::string L = E.launchText(P, R);
  CHECK_THAT(L, Contains("    dim3 ww_block(32, 8);\n"
                         "    dim3 ww_grid(ww_omp_blocks(ww_n1, 32, 65535), "
                         "ww_omp_blocks(ww_n0, 8, 65535));\n"));
  CHECK_THAT(L, Contains("  const long long ww_st1 = (long long)(2);\n"));
  CHECK_THAT(L, Contains("  if (ww_n0 > 0 && ww_n1 > 0) {\n"));
  CHECK_THAT(E.prologue(R),
             StartsWith("double (*ww_d1_a)[N] = 0;\n"
                        "WW_OMP_CHECK(cudaMalloc((void **)&ww_d1_a, "
                        "(size_t)(N) * sizeof(*ww_d1_a)));\n"));
}

TEST_CASE("offload emitter: the kernel's body: atomic updates made CUDA's, "
          "inner simd in "
          "order",
          "[offload][emitter]") {
  auto In = parse(R"(
void hist(int h[16], const int key[1000], double a[1000]) {
#pragma omp parallel for
  for (int i = 0; i < 1000; i++) {
#pragma omp atomic
    h[key[i] % 16] += 2;
#pragma omp simd
    for (int j = 0; j < 4; j++)
      a[i] += j;
  }
}
)");
  FunctionPlanner F(*In, "hist");
  REQUIRE(F.Regions.size() == 1);
  const KernelPlan &P = *F.Regions[0].Units[0].Kernels[0];
  REQUIRE(P.Refusal.empty());
  KernelEmitter E(*In->Src, 256);
  std::string K = E.kernelText(P);
  CHECK_THAT(K, Contains("// (device: atomicAdd) #pragma omp atomic\n"
                         "    atomicAdd(&(h[key[i] % 16]), (int)(2));\n"));
  CHECK_THAT(K, Contains("\n// (device: runs in order in the thread) "
                         "#pragma omp simd\n"));
}

TEST_CASE("offload emitter: a loop alone under an if: its region inside the "
          "launch block, "
          "with the overlap check",
          "[offload][emitter]") {
  auto In = parse(R"(
void f(int n, int c, double *a, double *b) {
  if (c)
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
    for (int i = 0; i < n; i++)
      b[i] = a[i];
}
)");
  FunctionPlanner F(*In, "f");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  CHECK(R.InsideBlock);
  REQUIRE(R.AliasPairs.size() == 1);
  KernelEmitter E(*In->Src, 256);
  std::string L = E.launchText(*R.Units[0].Kernels[0], R);
  CHECK_THAT(
      L, StartsWith("{ // warpwise offload: '#pragma omp target teams "
                    "distribute parallel for map(to: a[0:n]) map(from: "
                    "b[0:n])' -> k_L4\n"
                    "// warpwise offload: arrays not proven separate; where "
                    "they overlap, the loop runs on the host as written\n"
                    "if (ww_omp_disjoint(b, (size_t)(n) * sizeof(*b), a, "
                    "(size_t)(n) * sizeof(*a))) {\n"
                    "double *ww_d1_b = 0;\n"));
  CHECK_THAT(L, EndsWith("} else {\n"
                         "#pragma omp target teams distribute parallel for "
                         "map(to: a[0:n]) map(from: b[0:n])\n"
                         "    for (int i = 0; i < n; i++)\n"
                         "      b[i] = a[i];\n"
                         "}\n"
                         "}"));
}

TEST_CASE("offload emitter: run-time support, extents and swaps",
          "[offload][emitter]") {
  std::string C = KernelEmitter::preamble(true);
  std::string Cxx = KernelEmitter::preamble(false);
  CHECK_THAT(Cxx, StartsWith("// Generated by warpwise offload"));
  // The support is one line; its text is the header warpwise writes
  // beside the output.
  CHECK_THAT(Cxx, EndsWith("\n#include \"warpwise_offload.cuh\" // warpwise "
                           "offload's run-time support\n"));
  std::string Support = warpwise::offloadSupportHeaderText();
  CHECK_THAT(Support, Contains("#define WW_OMP_CHECK(call)"));
  CHECK_THAT(Support, Contains("__device__ T ww_omp_block_reduce(T v, Op op, "
                               "T identity) {"));
  CHECK_THAT(Support, Contains("ww_omp_fmul(float a, float b)"));
  CHECK(C == Cxx + "#ifndef restrict\n#define restrict __restrict__\n"
                   "#endif\n");

  auto In = parse(R"(
void *malloc(unsigned long);
void step(int n, int steps) {
  double *in = malloc(n * sizeof(double));
  double *out = malloc(n * sizeof(double));
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      out[i] = in[i - 1] + in[i + 1];
    double *tmp = in;
    in = out;
    out = tmp;
  }
}
)");
  FunctionPlanner F(*In, "step");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  KernelEmitter E(*In->Src, 256);
  const KernelPlan &P = *R.Units[0].Kernels[0];
  REQUIRE(P.Arrays.size() == 2);
  CHECK(E.extentCapture(P.Arrays[0]) ==
        "\nconst size_t ww_extent_out = (size_t)(n); // warpwise offload: the "
        "element count of 'out'");
  REQUIRE(R.Units[0].Swaps.size() == 1);
  CHECK(E.deviceSwap(R, *R.Units[0].Swaps[0]) ==
        "\n{ // warpwise offload: the device copies swap as well\n"
        "  auto ww_swap = ww_d1_in;\n"
        "  ww_d1_in = ww_d1_out;\n"
        "  ww_d1_out = ww_swap;\n"
        "}");
  CHECK(KernelEmitter::deviceName(R, P.Arrays[0].Var) == "ww_d1_out");
}
