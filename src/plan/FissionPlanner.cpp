//===- FissionPlanner.cpp - Deciding loop fission -------------------------===//
#include "FissionPlanner.h"
#include "PlanText.h"

#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/Decl.h"

namespace warpwise {

Decision planFission(const PlanContext &PC, const FissionCandidate &C,
                     const std::string &Replacement, const char *Transform) {
  Decision D;
  D.Transform = Transform;
  D.Kernel = C.Kernel->getNameAsString();
  D.Line = C.Line;
  D.Form = "loops";
  std::string Where =
      (C.Nest.empty() ? "loop at line " : "loop nest at line ") +
      std::to_string(C.Line) + " splits into " + std::to_string(C.Loops) +
      " independent loops";
  if (!C.Nest.empty())
    Where += ", each with its part of the " + C.Nest;
  if (!C.HostFacts.empty())
    Where += " (" + C.HostFacts + ")";
  const KernelInfo *K = nullptr;
  for (const KernelInfo &I : PC.Analysis.Kernels)
    if (I.Name == D.Kernel)
      K = &I;
  unsigned Threads = K && K->BlockSize ? K->BlockSize : 256;
  std::vector<clang::tooling::Replacement> Edits = {clang::tooling::Replacement(
      C.File, C.Begin, C.End - C.Begin, Replacement)};
  if (PC.Force) {
    // Forced or not, the results must stay bit-identical: a fission moves
    // an accumulation away from the product nvcc would contract into it.
    if (auto Why = PC.contractionChange(Edits, C.Kernel)) {
      D.Reason = Where + "; but " + *Why;
      return D;
    }
    D.Applied = true;
    D.Reason = Where + "; applied because of " + PC.ForcedBy +
               " (occupancy was not checked)";
    return D;
  }
  if (!PC.Feedback || !PC.Feedback->available()) {
    D.Reason = Where +
               ", but whether that crosses an occupancy step needs "
               "ptxas, and " +
               feedbackUnavailable(PC.Feedback) + "; not split";
    return D;
  }
  // Side by side; the original's error first, as when compiled in turn.
  // The occupancy guard reads ptxas's numbers only (the contraction check
  // below has the code listed where it compares it).
  PlanContext::MeasuredPair Measured = PC.measureOnEarlier(
      Edits, PtxasRunner::nvccArchFor(PC.Arch), /*NeedCode=*/false);
  auto &Before = Measured.Before, &After = Measured.After;
  std::string Error = Before ? Measured.AfterError : Measured.BeforeError;
  if (!Before || !After || !Before->count(D.Kernel) ||
      !After->count(D.Kernel)) {
    D.Reason =
        Where + ", but nvcc could not measure it (" + Error + "); not split";
    return D;
  }
  // Every compiled instance (a template's instantiations) at every block size
  // the file launches the kernel with must gain a step: one that gains none
  // runs 3-7% slower.
  std::vector<KernelStats> InstB = compiledInstances(Before->at(D.Kernel)),
                           InstA = compiledInstances(After->at(D.Kernel));
  std::vector<unsigned> Sizes;
  if (K)
    Sizes = K->BlockSizes;
  if (Sizes.empty())
    Sizes.push_back(Threads);
  unsigned long Smem = K ? K->StaticShared : 0;
  std::string Facts;
  for (const KernelStats &B : InstB) {
    const KernelStats *A = sameInstance(InstA, B);
    std::string What =
        InstB.size() > 1 ? "`" + instanceName(B.Mangled) + "` " : "";
    if (!A) {
      D.Reason = Where + ", but " + What +
                 "is missing from nvcc's output for the split; not split";
      return D;
    }
    for (unsigned T : K ? blockSizesFor(PC.Analysis, *K, B.Mangled) : Sizes) {
      OccupancyResult OB = computeOccupancy(PC.Arch, {B.Registers, T, Smem});
      OccupancyResult OA = computeOccupancy(PC.Arch, {A->Registers, T, Smem});
      std::string F = What + "registers " + std::to_string(B.Registers) +
                      " -> " + std::to_string(A->Registers) + ", occupancy " +
                      formatPercent(OB.Percent) + " -> " +
                      formatPercent(OA.Percent) + " at " + std::to_string(T) +
                      " threads on " + PC.Arch.smName();
      if (A->SpillBytes > B.SpillBytes) {
        D.Reason = Where + "; " + F + ", but it would spill; not split";
        return D;
      }
      if (OA.Percent <= OB.Percent) {
        D.Reason = Where + "; " + F +
                   ": no occupancy step is gained, and a split that gains "
                   "none measured 3-7% slower on H100; not split";
        return D;
      }
      Facts += (Facts.empty() ? "" : "; ") + F;
    }
  }
  if (auto Why = PC.contractionChange(Edits, C.Kernel)) {
    D.Reason = Where + "; " + Facts + "; but " + *Why;
    return D;
  }
  D.Applied = true;
  D.Measured = Facts;
  D.Reason = Where + "; " + Facts +
             " (an occupancy step gained: measured on H100 from -8% for a "
             "nest on a grid of 2^18 threads to +21%); applied";
  return D;
}

} // namespace warpwise
