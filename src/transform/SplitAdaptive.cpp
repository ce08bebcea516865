//===- SplitAdaptive.cpp - The adaptive form of the branch split ----------===//
#include "SplitAdaptive.h"

#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

namespace warpwise {

using namespace clang;

namespace {

/// The decision and the listing, shared by both first kernels: every
/// thread evaluates the decision (returns become `break`), warps vote, and
/// thread 0 of each block that has heavy threads adds the block's listed
/// threads and mixed warps to counter 0 (one atomic) and its uniformly heavy
/// warps to counter 2. \p InPlace lists only the heavy threads of mixed
/// warps.
std::string listing(const TransformContext &TC, const SplitBranch &B,
                    bool InPlace) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  std::string In = "  ";
  std::string L =
      In + "__shared__ unsigned ww_warp_base[32];\n" + In +
      "__shared__ unsigned long long ww_block_base;\n" + In +
      "bool ww_live = false, ww_heavy = false;\n" + In + "do {\n";
  for (const Stmt *S : usedPrefix(B.Prefix, {B.If->getCond()}))
    L += In + "  " +
         renderAsWritten(S, SM, LO, B.PrefixReturns, "break") +
         "\n";
  L += In + "  ww_live = true;\n" + In + "  ww_heavy = " + B.heavyCondition() +
       ";\n" + In + "} while (0);\n";
  L += In + "const unsigned ww_tid =\n" + In +
       "    threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
       "threadIdx.z);\n" +
       In +
       "const unsigned ww_lane = ww_tid % 32u, ww_warp = ww_tid / 32u;\n" +
       In +
       "const unsigned ww_heavy_votes = __ballot_sync(0xffffffffu, "
       "ww_heavy);\n" +
       In +
       "const unsigned ww_live_votes = __ballot_sync(0xffffffffu, "
       "ww_live);\n" +
       In + "const bool ww_mixed =\n" + In +
       "    ww_heavy_votes != 0u && ww_heavy_votes != ww_live_votes;\n" +
       In + "const bool ww_listed_here = " +
       (InPlace ? "ww_mixed && ww_heavy" : "ww_heavy") + ";\n" + In +
       "if (__syncthreads_or(ww_heavy)) {\n" + In +
       "  // Per warp: threads listed, bit 8 mixed, bit 9 uniformly "
       "heavy.\n" +
       In + "  if (ww_lane == 0u)\n" + In +
       "    ww_warp_base[ww_warp] =\n" + In + "        " +
       (InPlace ? "(ww_mixed ? __popc(ww_heavy_votes) : 0u)"
                : "__popc(ww_heavy_votes)") +
       " | (ww_mixed ? 0x100u : 0u) |\n" + In +
       "        (ww_heavy_votes != 0u && !ww_mixed ? 0x200u : 0u);\n" +
       In + "  __syncthreads();\n" + In + "  if (ww_tid == 0u) {\n" + In +
       "    unsigned ww_listed = 0u, ww_mixed_warps = 0u, "
       "ww_uniform_warps = 0u;\n" +
       In + "    for (unsigned ww_w = 0u;\n" + In +
       "         ww_w < blockDim.x * blockDim.y * blockDim.z / 32u; "
       "++ww_w) {\n" +
       In + "      const unsigned ww_n = ww_warp_base[ww_w];\n" + In +
       "      ww_warp_base[ww_w] = ww_listed;\n" + In +
       "      ww_listed += ww_n & 0xffu;\n" + In +
       "      ww_mixed_warps += ww_n >> 8 & 1u;\n" + In +
       "      ww_uniform_warps += ww_n >> 9 & 1u;\n" + In + "    }\n" +
       In +
       "    // Mixed warps in the high word, listed threads in the low "
       "word (the host\n" +
       In + "    // keeps a launch below 2^31 threads).\n" + In +
       "    ww_block_base = atomicAdd(\n" + In +
       "        ww_counts, (unsigned long long)ww_mixed_warps << 32 | "
       "ww_listed);\n" +
       In + "    if (ww_uniform_warps != 0u)\n" + In +
       "      atomicAdd(&ww_counts[2], (unsigned long "
       "long)ww_uniform_warps);\n" +
       In + "  }\n" + In + "  __syncthreads();\n" + In +
       "  if (ww_listed_here) {\n" + In +
       "    ww_list[(unsigned)ww_block_base + ww_warp_base[ww_warp] +\n" +
       In +
       "            __popc(ww_heavy_votes & ((1u << ww_lane) - 1u))] =\n" +
       In +
       "        (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * "
       "blockIdx.z)) *\n" +
       In + "            (blockDim.x * blockDim.y * blockDim.z) +\n" +
       In + "        ww_tid;\n" + In + "    return;\n" + In + "  }\n" +
       In + "}\n";
  return L;
}

/// The in-place kernel's body: the listing, then the original body as
/// written.
std::string inPlaceBody(const TransformContext &TC, const SplitBranch &B) {
  std::string In = "  ";
  std::string Side = B.HeavyIsElse ? "else" : "then";
  std::string A = "{\n" + In + "// warpwise " + B.Tag + ": `" + B.Name +
                  "` with the heavy (" + Side +
                  ") side of its if-else moved out of mixed\n" + In +
                  "// warps: a warp whose live threads all take one side "
                  "runs it here; the\n" +
                  In + "// heavy threads of a mixed warp are listed for `" +
                  B.Name + "_ww_heavy`\n" + listing(TC, B, true);
  return A + In + "// `" + B.Name + "` as written:" +
         B.Original.substr(B.BodyAt + 1, B.RBraceAt - B.BodyAt - 1) + "}";
}

/// The light kernel's body: the listing of every heavy thread, then the
/// light side alone (no heavy code: the light side's registers).
std::string lightBody(const TransformContext &TC, const SplitBranch &B) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  std::string In = "  ";
  std::string Light = "{\n" + In + "// warpwise " + B.Tag + ": the light (" +
                      (B.HeavyIsElse ? "then" : "else") + ") side of `" +
                      B.Name + "`; every thread of its heavy side is\n" + In +
                      "// listed for `" + B.Name + "_ww_heavy`\n" +
                      listing(TC, B, false);
  std::vector<const Stmt *> LightUses(B.Suffix);
  LightUses.push_back(B.lightSide());
  for (const Stmt *S : usedPrefix(B.Prefix, LightUses))
    Light += In + renderAsWritten(S, SM, LO) + "\n";
  Light += In + renderAsWritten(B.lightSide(), SM, LO) + "\n";
  for (const Stmt *S : B.Suffix)
    Light += In + renderAsWritten(S, SM, LO) + "\n";
  return Light + "}";
}

/// The heavy kernel's body: the heavy side over the list, in a grid-stride
/// loop; the last block publishes the launch's counts.
std::string heavyBody(const TransformContext &TC, const SplitBranch &B,
                      const std::set<const Stmt *> &Returns) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  std::string In = "  ";
  std::string Side = B.HeavyIsElse ? "else" : "then";
  std::string H =
      "{\n" + In + "// warpwise " + B.Tag + ": the heavy (" + Side + ") side of `" +
      B.Name + "` for the threads `" + B.Name +
      "_ww_adaptive` listed,\n" + In +
      "// each with its original thread and block index\n" + In +
      "const unsigned ww_listed = (unsigned)ww_counts[0];\n" + In +
      "const unsigned ww_per_block = blockDim.x * blockDim.y * "
      "blockDim.z;\n" +
      In + "for (unsigned ww_slot =\n" + In +
      "         blockIdx.x * ww_per_block + threadIdx.x +\n" + In +
      "         blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" +
      In + "     ww_slot < ww_listed; ww_slot += gridDim.x * "
           "ww_per_block) {\n" +
      In + "  const unsigned ww_id = ww_list[ww_slot];\n" + In +
      "  const unsigned ww_b = ww_id / ww_per_block, ww_t = ww_id % "
      "ww_per_block;\n" +
      In + "  const dim3 ww_thread(ww_t % blockDim.x, ww_t / blockDim.x % "
           "blockDim.y,\n" +
      In + "                       ww_t / (blockDim.x * blockDim.y));\n" +
      In + "  const dim3 ww_block(ww_b % ww_grid.x, ww_b / ww_grid.x % "
           "ww_grid.y,\n" +
      In + "                      ww_b / (ww_grid.x * ww_grid.y));\n";
  std::vector<const Stmt *> HeavyUses(B.Suffix);
  HeavyUses.push_back(B.heavySide());
  for (const Stmt *S : usedPrefix(B.Prefix, HeavyUses))
    H += In + "  " + renderListed(S, SM, LO, Returns, "continue") + "\n";
  H += In + "  " + renderListed(B.heavySide(), SM, LO, Returns, "continue") +
       "\n";
  for (const Stmt *S : B.Suffix)
    H += In + "  " + renderListed(S, SM, LO, Returns, "continue") + "\n";
  H += In + "}\n" + In +
       "// The last block to finish publishes this launch's counts for "
       "the host's\n" +
       In + "// next decision and clears them for the next launch.\n" +
       In + "__syncthreads();\n" + In +
       "if (threadIdx.x == 0u && threadIdx.y == 0u && threadIdx.z == 0u) "
       "{\n" +
       In + "  __threadfence();\n" + In +
       "  if (atomicAdd(&ww_counts[1], 1ull) == gridDim.x - 1u) {\n" + In +
       "    const unsigned long long ww_counted = ww_counts[0];\n" + In +
       "    ww_stats[1] = ww_counted & 0xffffffffull;\n" + In +
       "    ww_stats[2] = ww_counted >> 32;\n" + In +
       "    ww_stats[3] = ww_threads;\n" + In +
       "    ww_stats[4] = ww_counts[2];\n" + In +
       "    ww_stats[5] = ww_path;\n" + In +
       "    __threadfence_system();\n" + In +
       "    ww_stats[0] = ww_stats[0] + 1u;\n" + In +
       "    ww_counts[0] = 0u;\n" + In + "    ww_counts[1] = 0u;\n" + In +
       "    ww_counts[2] = 0u;\n" + In +
       "  }\n" + In + "}\n}";
  return H;
}

} // namespace

std::string adaptiveProblem(const TransformContext &TC, const SplitBranch &B,
                            std::set<const Stmt *> &Returns) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  // `return` becomes `continue` in the heavy kernel's grid-stride loop:
  // only where no loop or switch of its own would take the `continue`.
  Returns = B.PrefixReturns;
  std::string Problem = B.PrefixProblem;
  std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *N,
                                                     bool InLoop) {
    if (!N)
      return;
    if (isa<ReturnStmt>(N)) {
      if (InLoop && Problem.empty())
        Problem = "a return inside a loop or switch (line " +
                  std::to_string(SM.getExpansionLineNumber(N->getBeginLoc())) +
                  ") cannot become the `continue` of the heavy kernel's loop";
      Returns.insert(N);
      return;
    }
    bool Loop = isa<ForStmt>(N) || isa<WhileStmt>(N) || isa<DoStmt>(N) ||
                isa<SwitchStmt>(N) || isa<CXXForRangeStmt>(N);
    for (const Stmt *Child : N->children())
      Scan(Child, InLoop || Loop);
  };
  for (const Stmt *S : B.Prefix)
    Scan(S, false);
  Scan(B.heavySide(), false);
  for (const Stmt *S : B.Suffix)
    Scan(S, false);
  if (Problem.empty() && B.Kernel->getNumParams() == 0)
    Problem = "the kernel has no parameters to extend";
  if (Problem.empty() && !TC.Ctx.getLangOpts().CPlusPlus11)
    Problem = "its host code needs C++11 (std::mutex), and this file is "
              "parsed as an earlier standard";
  if (Problem.empty() && B.RBraceAt <= B.BodyAt)
    Problem = "part of the kernel is written with macros";
  return Problem;
}

std::string adaptiveKernels(const TransformContext &TC, const SplitBranch &B,
                            const std::set<const Stmt *> &Returns) {
  return "\n\n" +
         B.header("_ww_adaptive", ", unsigned long long *__restrict__ "
                                  "ww_counts,\n    int *__restrict__ ww_list") +
         inPlaceBody(TC, B) + "\n\n" +
         B.header("_ww_light", ", unsigned long long *__restrict__ "
                               "ww_counts,\n    int *__restrict__ ww_list") +
         lightBody(TC, B) + "\n\n" +
         B.header("_ww_heavy",
                  ", unsigned long long *__restrict__ ww_counts,\n    const int "
                  "*__restrict__ ww_list, volatile unsigned long long "
                  "*ww_stats,\n    dim3 ww_grid, unsigned long long ww_threads, "
                  "unsigned ww_path") +
         heavyBody(TC, B, Returns);
}

std::string adaptiveLaunch(llvm::StringRef MainText, const SplitBranch &B,
                           const LaunchSite &L, bool Measured) {
  // The host decides per launch (ww_adaptive_begin); the original kernel
  // stays for the launches it keeps. Measured: the dispatch's plan first
  // (its start event precedes every kernel of the launch), and its version
  // 0 runs the original without asking the split's policy.
  std::string Ind = indentBefore(MainText, L.Begin);
  std::string G = "ww_grid_" + L.Tag, Bl = "ww_block_" + L.Tag,
              Site = "ww_site_" + L.Tag, Plan = "ww_plan_" + L.Tag,
              MSite = "ww_msite_" + L.Tag, MPlan = "ww_mplan_" + L.Tag,
              St = L.stream();
  std::string Cfg = G + ", " + Bl + ", " + L.shared() + ", " + St;
  std::string NL = "\n" + Ind + "  ";
  std::string Dispatch =
      Measured
          ? "static ww_measured_site " + MSite + ";" + NL +
                "ww_measured_plan " + MPlan + " = ww_measured_begin(" + NL +
                "    " + MSite + ", " + G + ", " + Bl + ", " + L.shared() +
                ", " + St + measuredKeyArgument(L, NL) + ");" + NL
          : "";
  return "{ // warpwise " + B.Tag + ": split launch, adaptive form" +
         (Measured ? ", measured" : "") + NL +
         llvm::StringRef(L.Temps).rtrim().str() + (L.Temps.empty() ? "" : NL) +
         "dim3 const " + G + "(" + L.Config[0] + ");" + NL + "dim3 const " +
         Bl + "(" + L.Config[1] + ");" + NL + Dispatch +
         "static ww_adaptive_site " + Site + ";" + NL + "ww_adaptive_plan " +
         Plan + " =" + NL + "    ww_adaptive_begin(" + Site + ", " + G + ", " +
         Bl + ", " + St + (Measured ? ", " + MPlan : "") + ");" + NL + "if (" +
         Plan + ".path != 0u) {" + NL + "  if (" + Plan + ".path == 1u)" + NL +
         "    " + L.Callee + "_ww_adaptive" + L.TemplateArgs + "<<<" + Cfg +
         ">>>(" + NL + "        " +
         L.argsThen(Plan + ".counts, " + Plan + ".list") + ");" + NL +
         "  else" + NL + "    " + L.Callee + "_ww_light" + L.TemplateArgs +
         "<<<" + Cfg + ">>>(" + NL + "        " +
         L.argsThen(Plan + ".counts, " + Plan + ".list") + ");" + NL + "  " +
         L.Callee + "_ww_heavy" + L.TemplateArgs + "<<<" + Plan +
         ".heavy_blocks, " + Bl + ", " + L.shared() + ", " + St + ">>>(" + NL +
         "      " +
         L.argsThen(Plan + ".counts, " + Plan + ".list, " + Plan + ".stats, " +
                    G + ", " + Plan + ".threads, " + Plan + ".path") +
         ");" + NL + "} else {" + NL + "  " + L.Callee + L.TemplateArgs +
         "<<<" + Cfg + ">>>(" + L.Args + ");" + NL + "}" + NL +
         "ww_adaptive_end(" + Plan + ");" +
         (Measured ? NL + "ww_measured_end(" + MPlan + ");" : "") + "\n" + Ind +
         "}";
}

} // namespace warpwise
