// The fuse/meld planner's gates, with a stand-in for nvcc so the register
// guard's refusal is tested independently of what a given nvcc emits.
#include "warpwise/Analysis.h"
#include "warpwise/Costs.h"
#include "warpwise/Feedback.h"
#include "warpwise/Transform.h"

#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <catch2/catch.hpp>

using namespace warpwise;

namespace {
/// A stand-in for nvcc: fixed register and instruction counts for the
/// original text and for any candidate (recognised by warpwise's condition
/// variable), per compiled instance of kernel `k`. One instance stands for a
/// plain kernel, several for the instantiations of a template.
struct FakeInstance {
  std::string Mangled; ///< Empty for a plain kernel.
  unsigned RegsBefore, RegsAfter, InsBefore, InsAfter;
};

class FakeFeedback : public CompileFeedback {
public:
  explicit FakeFeedback(std::vector<FakeInstance> I,
                        std::string CandidateMarker = "ww_cond_")
      : CompileFeedback(Kit, {}), Instances(std::move(I)),
        Marker(std::move(CandidateMarker)) {}
  bool available() const override { return true; }
  std::optional<std::map<std::string, KernelStats>>
  measure(const std::string &Source, const std::string &, const std::string &,
          std::string &, const std::map<std::string, std::string> &,
          bool) override {
    bool Candidate = Source.find(Marker) != std::string::npos;
    KernelStats Total;
    for (const FakeInstance &I : Instances) {
      KernelStats S;
      S.Mangled = I.Mangled;
      S.Registers = Candidate ? I.RegsAfter : I.RegsBefore;
      S.Instructions = Candidate ? I.InsAfter : I.InsBefore;
      Total.Registers = std::max(Total.Registers, S.Registers);
      Total.Instructions += S.Instructions;
      if (Instances.size() > 1)
        Total.Instances.push_back(S);
    }
    return std::map<std::string, KernelStats>{{"k", Total}};
  }

private:
  static inline CudaToolkit Kit;
  std::vector<FakeInstance> Instances;
  std::string Marker; ///< Text only a candidate contains.
};

// The branch runs 64 times per thread, so the kernel is bound by issue (the
// execution model predicts a gain) rather than by its one load and store.
const char *Kernel = R"(
__global__ void k(const float *in, float *out, float s) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[t];
  float r = 0.0f;
  for (int j = 0; j < 64; ++j) {
    if (t % 2) {
      float a = v * v;
      float b = a * 1.5f;
      r = b / s + a;
    } else {
      float a = v * v;
      float b = a * 2.5f;
      r = b / (s + 1.0f) + a;
    }
    v = r;
  }
  out[t] = r;
}
void go(const float *in, float *out) { k<<<64, 256>>>(in, out, 2.0f); }
)";

// The same branch once per thread: one load and one store outweigh it.
const char *StraightKernel = R"(
__global__ void k(const float *in, float *out, float s) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[t];
  float r;
  if (t % 2) {
    float a = v * v;
    float b = a * 1.5f;
    r = b / s + a;
  } else {
    float a = v * v;
    float b = a * 2.5f;
    r = b / (s + 1.0f) + a;
  }
  out[t] = r;
}
void go(const float *in, float *out) { k<<<64, 256>>>(in, out, 2.0f); }
)";

const char *TemplateKernel = R"(
template <int N>
__global__ void k(const float *in, float *out, float s) {
  int t = blockIdx.x * N + threadIdx.x;
  float v = in[t];
  float r = 0.0f;
  for (int j = 0; j < 64; ++j) {
    if (t % 2) {
      float a = v * v;
      float b = a * 1.5f;
      r = b / s + a;
    } else {
      float a = v * v;
      float b = a * 2.5f;
      r = b / (s + 1.0f) + a;
    }
    v = r;
  }
  out[t] = r;
}
template <int N> void go(const float *in, float *out) {
  k<N><<<64, N>>>(in, out, 2.0f);
}
template void go<64>(const float *, float *);
template void go<256>(const float *, float *);
)";

std::vector<Decision> planWith(const char *Source, CompileFeedback &FB,
                               std::vector<Change> &Changes,
                               std::vector<unsigned> *BlockSizes = nullptr,
                               const char *Transform = "fuse") {
  std::vector<std::string> Args = {
      "-x", "cuda", "--cuda-host-only", "--cuda-gpu-arch=sm_90",
      "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version",
      "-resource-dir", WARPWISE_CLANG_RESOURCE_DIR, "-include",
      std::string(WARPWISE_SOURCE_DIR) + "/src/frontend/warpwise_cuda_stub.h"};
  std::unique_ptr<clang::ASTUnit> AST =
      clang::tooling::buildASTFromCodeWithArgs(Source, Args, "k.cu");
  REQUIRE(AST);
  REQUIRE_FALSE(AST->getDiagnostics().hasErrorOccurred());
  clang::ASTContext &Ctx = AST->getASTContext();
  FileAnalysis A = analyzeTranslationUnit(Ctx, "k.cu");
  REQUIRE(A.Kernels.size() == 1);
  A.Kernels[0].BlockSize = 256;
  if (BlockSizes)
    *BlockSizes = launchBlockSizes(A, "k");
  A.Kernels[0].BlockSizes =
      BlockSizes ? *BlockSizes : std::vector<unsigned>{256};
  auto Table = ArchTable::load();
  REQUIRE(static_cast<bool>(Table));
  auto Costs = CostTable::load();
  REQUIRE(static_cast<bool>(Costs));
  DiagnosticLog Log;
  std::vector<ClaimedRange> Claimed;
  std::string File = "k.cu", Display = "k.cu";
  TransformContext TC{
      Ctx,    File, Display, Source,  A,     *Table->find("sm_90"),
      *Costs, &FB,  Log,     Claimed, false, "", "", 0, false, false};
  // The stand-in for nvcc gives counts, not code: the contraction check
  // (SassFp.h; lit: rewrite/fmad-contraction.cu) is left out as for a
  // -fmad=false build.
  TC.FmadFalse = true;
  std::vector<Decision> Decisions;
  createTransform(Transform)->run(TC, Decisions, Changes);
  return Decisions;
}

std::vector<Decision> plan(unsigned RB, unsigned RA, unsigned IB, unsigned IA,
                           std::vector<Change> &Changes) {
  FakeFeedback FB({{"", RB, RA, IB, IA}});
  return planWith(Kernel, FB, Changes);
}
} // namespace

TEST_CASE("fusion is applied when nvcc's code shrinks", "[planner]") {
  std::vector<Change> Changes;
  auto D = plan(30, 30, 200, 150, Changes);
  REQUIRE(D.size() == 1);
  CHECK(D[0].Applied);
  CHECK(D[0].Form == "full");
  CHECK(D[0].Reason.find("SASS instructions 200 -> 150") != std::string::npos);
  REQUIRE(Changes.size() == 1);
  CHECK(Changes[0].Edits[0].getReplacementText().contains(
      "float b = a * (ww_cond_7 ? 1.5f : 2.5f);"));
  CHECK(D[0].Reason.find("model (fuse): ") != std::string::npos);
  CHECK(D[0].Reason.find("k at 256 threads: 100.0% of warps mixed") !=
        std::string::npos);
}

TEST_CASE("fusion is declined when it would cross an occupancy step",
          "[planner]") {
  // sm_90 at 256 threads: 32 registers give 100%, 33 only 75%.
  std::vector<Change> Changes;
  auto D = plan(32, 33, 200, 150, Changes);
  REQUIRE(D.size() == 1);
  CHECK_FALSE(D[0].Applied);
  CHECK(D[0].Reason.find("registers 32 -> 33, occupancy 100.0% -> 75.0%") !=
        std::string::npos);
  CHECK(D[0].Reason.find("occupancy step") != std::string::npos);
  CHECK(Changes.empty());
}

TEST_CASE("fusion is declined when nvcc's code keeps its size", "[planner]") {
  std::vector<Change> Changes;
  auto D = plan(30, 30, 200, 200, Changes);
  REQUIRE(D.size() == 1);
  CHECK_FALSE(D[0].Applied);
  CHECK(D[0].Reason.find("nvcc's code is the same size") != std::string::npos);
  CHECK(Changes.empty());
}

TEST_CASE("fusion is applied when nvcc's code grows but the model predicts "
          "a gain",
          "[planner]") {
  // SASS size is not the judge of speed (issue #14: a merge sort fusion ran
  // 1.05x with 370 -> 375 instructions).
  std::vector<Change> Changes;
  auto D = plan(30, 30, 200, 210, Changes);
  REQUIRE(D.size() == 1);
  CHECK(D[0].Applied);
  CHECK(D[0].Reason.find("SASS instructions 200 -> 210") != std::string::npos);
  CHECK(Changes.size() == 1);
}

TEST_CASE("fusion is declined where memory traffic bounds the kernel",
          "[planner]") {
  std::vector<Change> Changes;
  FakeFeedback FB({{"", 30, 30, 200, 150}});
  auto D = planWith(StraightKernel, FB, Changes);
  REQUIRE(D.size() == 1);
  CHECK_FALSE(D[0].Applied);
  CHECK(D[0].Reason.find("`k` is bound by memory traffic, not issue (2 "
                         "global accesses outside loops") != std::string::npos);
  CHECK(Changes.empty());
}

TEST_CASE("a template kernel is guarded per instantiation and block size",
          "[planner]") {
  // k<64> stays at 33 registers; k<256> goes 32 -> 33 (100% -> 75% on
  // sm_90), which the largest-register totals (33 -> 33) would hide. Each
  // instantiation is checked at the block sizes its own launches use.
  std::vector<Change> Changes;
  FakeFeedback FB({{"_Z1kILi64EEvPKfPff", 33, 33, 200, 150},
                   {"_Z1kILi256EEvPKfPff", 32, 33, 200, 150}});
  std::vector<unsigned> Sizes;
  auto D = planWith(TemplateKernel, FB, Changes, &Sizes);
  // The block sizes come from the launch's two instantiations.
  CHECK(Sizes == std::vector<unsigned>{64, 256});
  REQUIRE(D.size() == 1);
  CHECK_FALSE(D[0].Applied);
  CHECK(D[0].Reason.find("`k<256>` registers 32 -> 33, occupancy 100.0% -> "
                         "75.0% at 256 threads") != std::string::npos);
  CHECK(Changes.empty());
}

TEST_CASE("a template kernel is merged when no instantiation loses a step",
          "[planner]") {
  std::vector<Change> Changes;
  FakeFeedback FB({{"_Z1kILi64EEvPKfPff", 20, 22, 200, 150},
                   {"_Z1kILi256EEvPKfPff", 24, 26, 200, 150}});
  std::vector<unsigned> Sizes;
  auto D = planWith(TemplateKernel, FB, Changes, &Sizes);
  REQUIRE(D.size() == 1);
  CHECK(D[0].Applied);
  CHECK(D[0].Reason.find("registers 20..24 -> 22..26 over 2 instantiations, "
                         "no occupancy step lost at 64, 256 threads") !=
        std::string::npos);
  CHECK(D[0].Reason.find("SASS instructions 400 -> 300") != std::string::npos);
  CHECK(Changes.size() == 1);
}

const char *TemplateLoops = R"(
template <int N>
__global__ void k(const float *__restrict__ a, const float *__restrict__ b,
                  float *__restrict__ s, float *__restrict__ t, int rows) {
  int i = blockIdx.x * N + threadIdx.x;
  float x = 0.0f, y = 0.0f;
  for (int r = 0; r < rows; ++r) {
    x += a[r * 4096 + i];
    y += b[r * 4096 + i];
  }
  s[i] = x;
  t[i] = y;
}
template <int N> void go(const float *a, const float *b, float *s, float *t) {
  k<N><<<64, N>>>(a, b, s, t, 8);
}
template void go<64>(const float *, const float *, float *, float *);
template void go<256>(const float *, const float *, float *, float *);
)";

TEST_CASE("fission of a template kernel needs a step gained by every "
          "instantiation",
          "[planner]") {
  // sm_90: 40 -> 32 registers gains a step (75% -> 100% at 256 threads);
  // 24 -> 20 gains none (100% already). k<64> gaining nothing declines.
  std::vector<Change> Changes;
  std::vector<unsigned> Sizes;
  FakeFeedback Mixed({{"_Z1kILi64EEvPKfS1_PfS2_i", 24, 20, 100, 110},
                      {"_Z1kILi256EEvPKfS1_PfS2_i", 40, 32, 100, 110}},
                     "@decision@");
  auto D = planWith(TemplateLoops, Mixed, Changes, &Sizes, "fission");
  CHECK(Sizes == std::vector<unsigned>{64, 256});
  REQUIRE(D.size() == 1);
  CHECK_FALSE(D[0].Applied);
  CHECK(D[0].Reason.find("`k<64>` registers 24 -> 20, occupancy 100.0% -> "
                         "100.0% at 64 threads") != std::string::npos);
  CHECK(D[0].Reason.find("no occupancy step is gained") != std::string::npos);
  CHECK(Changes.empty());

  FakeFeedback Both({{"_Z1kILi64EEvPKfS1_PfS2_i", 40, 32, 100, 110},
                     {"_Z1kILi256EEvPKfS1_PfS2_i", 40, 32, 100, 110}},
                    "@decision@");
  std::vector<Change> Applied;
  auto E = planWith(TemplateLoops, Both, Applied, &Sizes, "fission");
  REQUIRE(E.size() == 1);
  CHECK(E[0].Applied);
  CHECK(E[0].Reason.find("`k<256>` registers 40 -> 32, occupancy 75.0% -> "
                         "100.0% at 256 threads") != std::string::npos);
  CHECK(Applied.size() == 1);
}
