//===- SplitCompact.cpp - The compact form of the branch split ------------===//
#include "SplitCompact.h"

#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

namespace warpwise {

using namespace clang;

namespace {

/// True when every shape is known, one-dimensional and whole warps wide.
bool oneDimensionalWarps(const std::vector<std::array<unsigned, 3>> &Shapes) {
  return !Shapes.empty() &&
         llvm::all_of(Shapes, [](const std::array<unsigned, 3> &D) {
           return D[1] == 1 && D[2] == 1 && D[0] % 32 == 0;
         });
}

/// The grid of \p Call is an integer, or a dim3 made from one.
bool oneDimensionalGrid(const CUDAKernelCallExpr *Call) {
  const Expr *Grid = Call->getConfig()->getArg(0);
  if (Grid->IgnoreImpCasts()->getType()->isIntegerType() ||
      Grid->IgnoreParenImpCasts()->getType()->isIntegerType())
    return true;
  auto *CE = dyn_cast<CXXConstructExpr>(Grid->IgnoreImplicit());
  return CE && CE->getNumArgs() >= 1 &&
         CE->getArg(0)->getType()->isIntegerType();
}

const char *const In = "  ";

/// The light kernel's body: the decision (returns become `break`), the
/// listing of the heavy threads, then the prefix the light side uses, the
/// light side and the suffix.
std::string lightBody(const TransformContext &TC, const SplitBranch &B) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  std::string Light =
      "{\n" + std::string(In) + "// warpwise " + B.Tag +
      ": the light side of `" + B.Name +
      "`, which also lists the threads of the heavy side\n";
  Light += In + std::string("__shared__ int ww_warp_base[32];\n") + In +
           "__shared__ int ww_block_base;\n" + In + "bool ww_heavy = false;\n" +
           In + "do {\n";
  for (const Stmt *S : usedPrefix(B.Prefix, {B.If->getCond()}))
    Light += In + std::string("  ") +
             renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x",
                        B.PrefixReturns, "break") +
             "\n";
  Light += In + std::string("  ww_heavy = ") + B.heavyCondition() + ";\n" +
           In + "} while (0);\n";
  Light +=
      In + std::string("const unsigned ww_lane = threadIdx.x % 32u;\n") + In +
      "const unsigned ww_warp = threadIdx.x / 32u;\n" + In +
      "const unsigned ww_votes = __ballot_sync(0xffffffffu, ww_heavy);\n" +
      In + "if (ww_lane == 0)\n" + In +
      "  ww_warp_base[ww_warp] = __popc(ww_votes);\n" + In +
      "__syncthreads();\n" + In + "if (threadIdx.x == 0) {\n" + In +
      "  int ww_total = 0;\n" + In +
      "  for (unsigned ww_w = 0; ww_w < (blockDim.x + 31u) / 32u; ++ww_w) "
      "{\n" +
      In + "    const int ww_n = ww_warp_base[ww_w];\n" + In +
      "    ww_warp_base[ww_w] = ww_total;\n" + In + "    ww_total += ww_n;\n" +
      In + "  }\n" + In +
      "  ww_block_base = ww_total ? atomicAdd(ww_count, ww_total) : 0;\n" + In +
      "}\n" + In + "__syncthreads();\n" + In + "if (ww_heavy) {\n" + In +
      "  ww_list[ww_block_base + ww_warp_base[ww_warp] +\n" + In +
      "          __popc(ww_votes & ((1u << ww_lane) - 1u))] =\n" + In +
      "      blockIdx.x * blockDim.x + threadIdx.x;\n" + In + "  return;\n" +
      In + "}\n";
  std::vector<const Stmt *> LightUses(B.Suffix);
  LightUses.push_back(B.lightSide());
  for (const Stmt *S : usedPrefix(B.Prefix, LightUses))
    Light += In + renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x") + "\n";
  Light += In + renderWith(B.lightSide(), SM, LO, "threadIdx.x", "blockIdx.x") +
           "\n";
  for (const Stmt *S : B.Suffix)
    Light += In + renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x") + "\n";
  return Light + "}";
}

/// The heavy kernel's body: one listed thread per thread, with its own
/// thread and block index, running the prefix the heavy side uses, the
/// heavy side and the suffix.
std::string heavyBody(const TransformContext &TC, const SplitBranch &B) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  std::string Heavy = "{\n" + std::string(In) + "// warpwise " + B.Tag +
                      ": the heavy side of `" + B.Name +
                      "`, run over the threads the light kernel listed\n";
  Heavy +=
      In +
      std::string(
          "const unsigned ww_slot = blockIdx.x * blockDim.x + threadIdx.x;\n") +
      In + "if (ww_slot >= (unsigned)*ww_count)\n" + In + "  return;\n" + In +
      "const unsigned ww_id = ww_list[ww_slot];\n" + In +
      "const unsigned ww_block = ww_id / blockDim.x;\n" + In +
      "const unsigned ww_thread = ww_id % blockDim.x;\n";
  std::vector<const Stmt *> HeavyUses(B.Suffix);
  HeavyUses.push_back(B.heavySide());
  for (const Stmt *S : usedPrefix(B.Prefix, HeavyUses))
    Heavy += In + renderWith(S, SM, LO, "ww_thread", "ww_block") + "\n";
  Heavy += In + renderWith(B.heavySide(), SM, LO, "ww_thread", "ww_block") +
           "\n";
  for (const Stmt *S : B.Suffix)
    Heavy += In + renderWith(S, SM, LO, "ww_thread", "ww_block") + "\n";
  return Heavy + "}";
}

} // namespace

std::string
compactProblem(const TransformContext &TC, const SplitBranch &B,
               const std::vector<const CUDAKernelCallExpr *> &Calls) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  for (const BuiltinRef &R : builtinRefs(B.Body, SM, LO))
    if (R.Component != "x")
      return "it uses `" + R.Object + "." + R.Component +
             "`; the compact form handles one-dimensional launches only";
  for (const LaunchInfo &L : TC.Analysis.Launches)
    if (L.Kernel == B.Name && !oneDimensionalWarps(L.knownBlockDims()))
      return "the launch at line " + std::to_string(L.Line) +
             " does not show a one-dimensional block whose size is a "
             "multiple of 32";
  for (const CUDAKernelCallExpr *Call : Calls)
    if (!oneDimensionalGrid(Call))
      return "the grid of the launch at line " +
             std::to_string(SM.getExpansionLineNumber(Call->getBeginLoc())) +
             " is not shown to be one-dimensional";
  if (B.Kernel->getNumParams() == 0)
    return "the kernel has no parameters to extend";
  return B.PrefixProblem;
}

std::string compactKernels(const TransformContext &TC, const SplitBranch &B) {
  // Headers: renamed, with the list and the counter appended.
  return "\n\n" +
         B.header("_ww_light",
                  ", int *__restrict__ ww_list, int *__restrict__ ww_count") +
         lightBody(TC, B) + "\n\n" +
         B.header("_ww_heavy", ", const int *__restrict__ ww_list, const int "
                               "*__restrict__ ww_count") +
         heavyBody(TC, B);
}

std::string compactLaunch(const SplitBranch &B, const LaunchSite &L) {
  // Allocate the list in the launch's stream from warpwise's pool for the
  // device (the default pool returns its memory at every synchronization,
  // and mapping the list anew cost ~20 us per launch on an H100), run both
  // kernels, free it in the same stream.
  std::string G = "ww_grid_" + L.Tag, Bl = "ww_block_" + L.Tag,
              Lst = "ww_list_" + L.Tag, St = L.stream(),
              Dev = "ww_dev_" + L.Tag, Pool = "ww_pool_" + L.Tag;
  std::string Launch = "<<<" + G + ", " + Bl + ", " + L.shared() + ", " + St +
                       ">>>(" + L.argsThen(Lst + " + 1, " + Lst) + "); ";
  std::string Bytes = "((size_t)" + G + ".x * " + Bl + ".x + 1) * sizeof(int)";
  return "{ // warpwise " + B.Tag + ": split launch, compact form\n" + L.Temps +
         "dim3 const " + G + "(" + L.Config[0] + "); dim3 const " + Bl + "(" +
         L.Config[1] + "); int " + Dev + " = 0; cudaGetDevice(&" + Dev +
         "); cudaMemPool_t const " + Pool + " = ww_list_pool(" + Dev +
         "); int *" + Lst + " = 0; if (" + Pool +
         ") cudaMallocFromPoolAsync((void **)&" + Lst + ", " + Bytes + ", " +
         Pool + ", " + St + "); else cudaMallocAsync((void **)&" + Lst + ", " +
         Bytes + ", " + St + "); cudaMemsetAsync(" + Lst + ", 0, sizeof(int), " +
         St + "); " + L.Callee + "_ww_light" + L.TemplateArgs + Launch +
         L.Callee + "_ww_heavy" + L.TemplateArgs + Launch + "cudaFreeAsync(" +
         Lst + ", " + St + "); }";
}

} // namespace warpwise
