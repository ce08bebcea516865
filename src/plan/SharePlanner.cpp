//===- SharePlanner.cpp - Deciding variable sharing -----------------------===//
//
// A shared copy of a block-uniform value trades a private register (or, for
// a table indexed at run time, the thread's local memory) for a shared-memory
// load at each use, a barrier and the block's shared bytes. What it frees
// shows in ptxas's numbers: the stack frame (local memory per thread) and the
// registers, which matter where they cross an occupancy step. Those are the
// two grounds for applying it; the shared memory it takes must not cost an
// occupancy step at any launch block size, and it must not add spills.
//
//===----------------------------------------------------------------------===//
#include "SharePlanner.h"
#include "PlanText.h"

#include "warpwise/Costs.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/Decl.h"

#include <algorithm>

namespace warpwise {

Decision planShare(const PlanContext &PC, const ShareCandidate &C,
                   const char *Transform) {
  Decision D;
  D.Transform = Transform;
  D.Kernel = C.FD->getNameAsString();
  D.Line = C.Line;
  D.Form = C.External ? "external" : "internal";
  std::string Head = C.Where + ": " + C.Proof;
  std::string Tail = C.Left.empty() ? "" : "; " + C.Left;
  if (PC.Force) {
    D.Applied = true;
    D.Reason = Head + Tail + "; applied because of " + PC.ForcedBy +
               " (profitability was not checked)";
    return D;
  }
  const KernelInfo *Own = nullptr;
  for (const KernelInfo &KI : PC.Analysis.Kernels)
    if (KI.Name == D.Kernel)
      Own = &KI;
  if (!Own) {
    D.Reason = Head + Tail + "; the kernel was not analysed; declined";
    return D;
  }
  if (!PC.Feedback || !PC.Feedback->available()) {
    D.Reason = Head + Tail +
               "; declined because whether it pays is measured with ptxas "
               "and cuobjdump, and " +
               feedbackUnavailable(PC.Feedback);
    return D;
  }
  // Internal sharing is decided on ptxas's numbers alone; external sharing
  // also on the instruction counts, which need the listing.
  std::string Failure;
  auto Pair =
      PC.measureCandidate(C.Edits, Own->Name, Failure, /*NeedCode=*/C.External);
  if (!Pair) {
    D.Reason = Head + Tail + ": " + Failure;
    return D;
  }
  const KernelStats &StatsB = Pair->first, &StatsA = Pair->second;
  unsigned long Dynamic = 0;
  for (const LaunchInfo &L : PC.Analysis.Launches)
    if (L.Kernel == Own->Name && L.DynamicShared)
      Dynamic = std::max(Dynamic, *L.DynamicShared);

  std::vector<KernelStats> InstB = compiledInstances(StatsB),
                           InstA = compiledInstances(StatsA);
  std::string Measured, Gains;
  bool Gained = false;
  for (const KernelStats &IB : InstB) {
    const KernelStats *IA = sameInstance(InstA, IB);
    // External sharing changes the parameters, so the mangled name: the
    // kernel (not a template) is its only instance.
    if (!IA && C.External && InstB.size() == 1 && InstA.size() == 1)
      IA = &InstA.front();
    std::string What = InstB.size() > 1 ? "`" + instanceName(IB.Mangled) + "`"
                                        : "`" + Own->Name + "`";
    if (!IA) {
      D.Reason = Head + "; " + What +
                 " is missing from nvcc's output for the candidate; declined";
      return D;
    }
    std::string Numbers = What + " registers " + std::to_string(IB.Registers) +
                          " -> " + std::to_string(IA->Registers) +
                          ", local memory " + std::to_string(IB.StackBytes) +
                          " -> " + std::to_string(IA->StackBytes) +
                          " bytes per thread, shared memory " +
                          std::to_string(IB.SharedBytes) + " -> " +
                          std::to_string(IA->SharedBytes) + " bytes per block";
    if (IA->SpillBytes > IB.SpillBytes) {
      D.Reason = Head + Tail + "; " + Numbers + "; but it would spill (" +
                 std::to_string(IB.SpillBytes) + " -> " +
                 std::to_string(IA->SpillBytes) + " bytes); declined";
      return D;
    }
    std::string Occupancies;
    for (unsigned Threads : blockSizesFor(PC.Analysis, *Own, IB.Mangled)) {
      OccupancyResult OB = computeOccupancy(
          PC.Arch, {IB.Registers, Threads, IB.SharedBytes + Dynamic});
      OccupancyResult OA = computeOccupancy(
          PC.Arch, {IA->Registers, Threads, IA->SharedBytes + Dynamic});
      std::string Step = "occupancy " + formatPercent(OB.Percent) + " -> " +
                         formatPercent(OA.Percent) + " at " +
                         std::to_string(Threads) + " threads on " +
                         PC.Arch.smName();
      if (OA.Percent < OB.Percent) {
        D.Reason = Head + Tail + "; " + Numbers + "; but " + Step +
                   " (the shared copy or the registers cost a step); declined";
        return D;
      }
      if (OA.Percent > OB.Percent) {
        Gained = true;
        Gains += std::string(Gains.empty() ? "" : ", ") + Step;
      }
      if (Occupancies.empty())
        Occupancies = Step;
    }
    if (IA->StackBytes < IB.StackBytes) {
      Gained = true;
      Gains += std::string(Gains.empty() ? "" : ", ") + What +
               " local memory " + std::to_string(IB.StackBytes) + " -> " +
               std::to_string(IA->StackBytes) + " bytes per thread";
    }
    Measured += std::string(Measured.empty() ? "" : "; ") + Numbers +
                (Occupancies.empty() ? "" : ", " + Occupancies);
  }
  if (C.External) {
    std::string Sass = "SASS instructions " +
                       std::to_string(StatsB.Instructions) + " -> " +
                       std::to_string(StatsA.Instructions);
    Measured += "; " + Sass;
    double Saved = StatsB.Instructions
                       ? 1.0 - double(StatsA.Instructions) / StatsB.Instructions
                       : 0.0;
    if (Saved >= PC.Costs.ExternalMinInstructionSaving && Saved > 0) {
      Gained = true;
      Gains += std::string(Gains.empty() ? "" : ", ") + Sass +
               " (work every thread did, done once by the host)";
    }
  }
  if (!Gained) {
    D.Reason =
        Head + Tail + "; " + Measured +
        (C.External
             ? "; declined: fewer than " +
                   formatPercent(100 * PC.Costs.ExternalMinInstructionSaving) +
                   " of the instructions are saved (" + PC.Costs.Source +
                   ") and no occupancy step is "
                   "gained"
             : "; declined: no local memory is removed and no "
               "occupancy step is gained");
    return D;
  }
  D.Applied = true;
  D.Measured = Measured;
  D.Reason = Head + Tail + "; " + Measured + "; applied for " + Gains;
  return D;
}

} // namespace warpwise
