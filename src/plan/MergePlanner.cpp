//===- MergePlanner.cpp - Deciding fusion and melding ---------------------===//
//
// Measured on an H100 (issue #5): fusing a branch that is divergent inside
// warps paid 1.37x-1.51x; the same fusion on a warp-uniform condition lost
// (0.76x-0.90x), and nvcc's own hoisting and if-conversion change with small
// source changes. So a candidate is applied only when (1) the condition is
// divergent within warps, (2) the sides are similar enough, and (3) nvcc's
// output confirms it: no occupancy step lost, no new spills, and fewer SASS
// instructions in the affected kernels.
//
//===----------------------------------------------------------------------===//
#include "MergePlanner.h"
#include "PlanText.h"

#include "warpwise/Costs.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/Decl.h"

#include <algorithm>

namespace warpwise {

Decision planMerge(TransformContext &TC, const MergeCandidate &C,
                   const MergeOutcome &M, const char *Transform) {
  Decision D;
  D.Transform = Transform;
  D.Kernel = C.FD->getNameAsString();
  D.Line = C.Branch ? C.Branch->Line : 0;
  D.Form = "";
  std::string Where = "if-else at line " + std::to_string(D.Line);

  if (!C.Branch) {
    D.Reason = Where + ": no divergence verdict; not rewritten";
    return D;
  }
  if (C.Branch->Level != Uniformity::Divergent) {
    D.Reason = Where + " is " + uniformityName(C.Branch->Level) + " (" +
               C.Branch->Reason +
               "): each warp runs one side only, so merging would add "
               "selects without saving issue slots (measured 0.76x-0.90x on "
               "H100); declined";
    return D;
  }
  if (!M.OK) {
    D.Reason = Where + " is divergent, but cannot be merged: " + M.Refusal;
    return D;
  }
  std::string Shape =
      std::to_string(M.Matched) + " statement pair" +
      (M.Matched == 1 ? "" : "s") + " merged" +
      (M.MeldedRegions ? " (" + std::to_string(M.MeldedRegions) +
                             " of them control-flow regions)"
                       : "") +
      ", " + std::to_string(M.GuardedA) + " then- and " +
      std::to_string(M.GuardedB) + " else-statements kept under guards, " +
      std::to_string(M.Selects) + " operand selects";
  std::string Sim = "similarity " + formatNumber(M.similarity()) + " (saves " +
                    formatNumber(M.Saved, "%.0f") + " of " +
                    formatNumber(M.Total, "%.0f") + " cost units)";
  if (TC.Force) {
    D.Applied = true;
    D.Form = M.MeldedRegions ? "meld"
                             : (M.GuardedA + M.GuardedB ? "partial" : "full");
    D.Reason = Where + " is divergent; " + Sim + "; " + Shape +
               "; applied because of --force-transforms (profitability was "
               "not checked)";
    return D;
  }
  if (M.similarity() < TC.Costs.SimilarityThreshold) {
    D.Reason = Where + " is divergent; " + Sim + " is below the threshold " +
               formatNumber(TC.Costs.SimilarityThreshold) +
               " (rules/costs.json); " + Shape + "; declined";
    return D;
  }
  if (!TC.Feedback || !TC.Feedback->available()) {
    D.Reason = Where + " is divergent; " + Sim +
               "; declined because the register guard needs ptxas and "
               "cuobjdump, and " +
               feedbackUnavailable(TC.Feedback);
    return D;
  }

  // Compile the file with and without this one rewrite.
  std::string NvArch = PtxasRunner::nvccArchFor(TC.Arch);
  std::string Error;
  auto Before = TC.measure({}, NvArch, Error);
  auto After = Before
                   ? TC.measure({clang::tooling::Replacement(
                                    C.File, C.Begin, C.End - C.Begin, M.Text)},
                                NvArch, Error)
                   : std::nullopt;
  if (!Before || !After) {
    D.Reason = Where + ": nvcc failed on the " +
               std::string(Before ? "candidate" : "original") + " (" + Error +
               "); not rewritten";
    return D;
  }
  // The kernels the branch runs in: itself, or every kernel of the file when
  // it sits in a __device__ function.
  std::vector<const KernelInfo *> Kernels;
  for (const KernelInfo &K : TC.Analysis.Kernels)
    if (K.Name == D.Kernel)
      Kernels.push_back(&K);
  if (Kernels.empty())
    for (const KernelInfo &K : TC.Analysis.Kernels)
      Kernels.push_back(&K);
  unsigned InsBefore = 0, InsAfter = 0, BraBefore = 0, BraAfter = 0;
  std::string Regs;
  for (const KernelInfo *K : Kernels) {
    auto B = Before->find(K->Name), A = After->find(K->Name);
    if (B == Before->end() || A == After->end())
      continue;
    InsBefore += B->second.Instructions;
    InsAfter += A->second.Instructions;
    BraBefore += B->second.Branches;
    BraAfter += A->second.Branches;
    std::vector<unsigned> Sizes = K->BlockSizes;
    if (Sizes.empty())
      Sizes.push_back(K->BlockSize ? K->BlockSize : 256);
    // Every instantiation at every block size it may be launched with: a
    // template whose small instantiation crosses a step while the large one
    // does not still loses occupancy there.
    std::vector<KernelStats> InstB = compiledInstances(B->second),
                             InstA = compiledInstances(A->second);
    unsigned MinB = ~0u, MaxB = 0, MinA = ~0u, MaxA = 0;
    for (const KernelStats &IB : InstB) {
      const KernelStats *IA = sameInstance(InstA, IB);
      std::string What = "`" + K->Name + "`";
      if (InstB.size() > 1)
        What = "`" + instanceName(IB.Mangled) + "`";
      if (!IA) {
        D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                   " is missing from nvcc's output for the candidate; "
                   "declined";
        return D;
      }
      MinB = std::min(MinB, IB.Registers);
      MaxB = std::max(MaxB, IB.Registers);
      MinA = std::min(MinA, IA->Registers);
      MaxA = std::max(MaxA, IA->Registers);
      for (unsigned Threads : blockSizesFor(TC.Analysis, *K, IB.Mangled)) {
        OccupancyResult OB =
            computeOccupancy(TC.Arch, {IB.Registers, Threads, K->StaticShared});
        OccupancyResult OA = computeOccupancy(
            TC.Arch, {IA->Registers, Threads, K->StaticShared});
        if (OA.Percent < OB.Percent) {
          D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                     " registers " + std::to_string(IB.Registers) + " -> " +
                     std::to_string(IA->Registers) + ", occupancy " +
                     formatPercent(OB.Percent) + " -> " +
                     formatPercent(OA.Percent) + " at " +
                     std::to_string(Threads) + " threads on " +
                     TC.Arch.smName() +
                     ": merging would cost an occupancy step (as seed 001's "
                     "div3 did); declined";
          return D;
        }
      }
      if (IA->SpillBytes > IB.SpillBytes) {
        D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                   " would spill (" + std::to_string(IB.SpillBytes) + " -> " +
                   std::to_string(IA->SpillBytes) + " bytes); declined";
        return D;
      }
    }
    if (InstB.empty())
      continue;
    auto Range = [](unsigned Lo, unsigned Hi) {
      return Lo == Hi ? std::to_string(Lo)
                      : std::to_string(Lo) + ".." + std::to_string(Hi);
    };
    std::string Threads;
    for (unsigned T : Sizes)
      Threads += (Threads.empty() ? "" : ", ") + std::to_string(T);
    std::string R = "`" + K->Name + "` registers " + Range(MinB, MaxB) +
                    " -> " + Range(MinA, MaxA);
    if (InstB.size() > 1)
      R += " over " + std::to_string(InstB.size()) + " instantiations";
    if (InstB.size() == 1 && Sizes.size() == 1) {
      OccupancyResult OB = computeOccupancy(
          TC.Arch, {InstB[0].Registers, Sizes[0], K->StaticShared});
      OccupancyResult OA =
          computeOccupancy(TC.Arch, {MaxA, Sizes[0], K->StaticShared});
      R += ", occupancy " + formatPercent(OB.Percent) + " -> " +
           formatPercent(OA.Percent) + " at " + Threads + " threads on " +
           TC.Arch.smName();
    } else {
      R += ", no occupancy step lost at " + Threads + " threads on " +
           TC.Arch.smName();
    }
    Regs += (Regs.empty() ? "" : "; ") + R;
  }
  std::string Sass = "SASS instructions " + std::to_string(InsBefore) + " -> " +
                     std::to_string(InsAfter) + ", branches " +
                     std::to_string(BraBefore) + " -> " +
                     std::to_string(BraAfter);
  if (InsAfter >= InsBefore) {
    D.Reason = Where + " is divergent; " + Sim +
               "; but nvcc's code does not "
               "shrink (" +
               Sass + "): it already shares that work; declined";
    return D;
  }
  D.Applied = true;
  D.Form =
      M.MeldedRegions ? "meld" : (M.GuardedA + M.GuardedB ? "partial" : "full");
  D.Reason = Where + " is divergent (" + C.Branch->Reason + "); " + Sim + "; " +
             Shape + "; " + Regs + "; " + Sass + "; applied";
  return D;
}

} // namespace warpwise
