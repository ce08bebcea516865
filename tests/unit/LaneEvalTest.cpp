// LaneEval::evalLanes (every thread at once) against eval (one thread at a
// time): where evalLanes answers, each thread's value is eval's; where some
// thread's evaluation would fail, or a part a thread skips would fail in
// another, it does not answer and the caller goes thread by thread.
#include "analysis/LaneEval.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <catch2/catch.hpp>

using namespace warpwise;

namespace {

const char *Kernel = R"(
template <int N> __global__ void k(int *out, int n) {
  int tid = threadIdx.x;
  int partner = tid ^ 4;
  unsigned u = tid;
  char c = tid * 37;
  short s = tid * 1000;
  if ((tid & N) == 0) {}
  if (partner > tid) {}
  if (u - 3u < 10u) {}
  if (c < 0) {}
  if (s == -7232) {}
  if (!(tid % 5) || -tid < -20) {}
  if (~tid & 1) {}
  if ((tid << 30) < 0) {}
  if (tid < 8 ? tid % 3 == 0 : (tid >> 2) == 5) {}
  if (blockIdx.x * blockDim.x + tid > 70) {}
  if (tid / (tid - 3) > 0) {}
  if (tid != 3 && 12 / (tid - 3) > 1) {}
  if (tid + n > 0) {}
}
template __global__ void k<4>(int *, int);
)";

/// The conditions of the ifs of k<4>'s body, in order.
std::vector<const clang::Expr *> conditions(const clang::FunctionDecl *F) {
  std::vector<const clang::Expr *> Out;
  for (const clang::Stmt *S :
       llvm::cast<clang::CompoundStmt>(F->getBody())->body())
    if (auto *If = llvm::dyn_cast<clang::IfStmt>(S))
      Out.push_back(If->getCond());
  return Out;
}

} // namespace

TEST_CASE("every thread at once gives each thread's value", "[lanes]") {
  std::vector<std::string> Args = {"-x",
                                   "cuda",
                                   "--cuda-host-only",
                                   "--cuda-gpu-arch=sm_90",
                                   "-nocudainc",
                                   "-nocudalib",
                                   "-Wno-unknown-cuda-version",
                                   "-resource-dir",
                                   WARPWISE_CLANG_RESOURCE_DIR,
                                   "-include",
                                   std::string(WARPWISE_SOURCE_DIR) +
                                       "/src/frontend/warpwise_cuda_stub.h"};
  std::unique_ptr<clang::ASTUnit> AST =
      clang::tooling::buildASTFromCodeWithArgs(Kernel, Args, "k.cu");
  REQUIRE(AST);
  REQUIRE_FALSE(AST->getDiagnostics().hasErrorOccurred());
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::FunctionDecl *Instance = nullptr;
  for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (auto *T = llvm::dyn_cast<clang::FunctionTemplateDecl>(D))
      for (const clang::FunctionDecl *S : T->specializations())
        Instance = S;
  REQUIRE(Instance);
  std::vector<const clang::Expr *> Conds = conditions(Instance);
  REQUIRE(Conds.size() == 13);
  const unsigned Threads = 64;
  LaneEval Eval(Ctx, Instance, Instance, Threads);
  // Which conditions evalLanes answers: all but the last three (a division
  // by zero in thread 3; one that only thread 3 skips; a parameter).
  std::vector<bool> Answers(Conds.size(), true);
  Answers[10] = Answers[11] = Answers[12] = false;
  for (size_t C = 0; C < Conds.size(); ++C)
    for (unsigned Block = 0; Block < 2; ++Block) {
      INFO("condition " << C << ", block " << Block);
      Eval.Block = Block;
      Eval.Missing = "kept";
      std::optional<LaneValues> All = Eval.evalLanes(Conds[C]);
      CHECK(Eval.Missing == "kept");
      CHECK(Eval.Lane == -1);
      CHECK(All.has_value() == Answers[C]);
      unsigned Evaluated = 0;
      for (unsigned T = 0; T < Threads; ++T) {
        Eval.Lane = T;
        Eval.Missing.clear();
        std::optional<int64_t> One = Eval.eval(Conds[C]);
        Evaluated += One.has_value();
        if (All) {
          REQUIRE(One);
          CHECK(*One == All->at(T));
        }
      }
      Eval.Lane = -1;
      // Thread by thread, the one skipped division answers everywhere, the
      // division by zero in thread 3 alone fails, the parameter everywhere.
      if (C == 10)
        CHECK(Evaluated == Threads - 1);
      if (C == 11)
        CHECK(Evaluated == Threads);
      if (C == 12)
        CHECK(Evaluated == 0);
    }
}

TEST_CASE("values wrap to their type in every thread", "[lanes]") {
  IntegerWrap Char{false, 8, true}, Bool{true, 64, false},
      U16{false, 16, false};
  CHECK(Char(37 * 4) == -108);
  CHECK(Bool(-5) == 1);
  CHECK(U16(-1) == 65535);
  CHECK(IntegerWrap{}(int64_t(1) << 40) == int64_t(1) << 40);
}
