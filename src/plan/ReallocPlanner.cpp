//===- ReallocPlanner.cpp - Deciding thread reallocation ------------------===//
//
// Packing a partner guard's threads pays where warps issue the guarded work
// for a few lanes: with j < 32, `tid ^ j > tid` leaves half of every warp's
// lanes idle, and each warp issues the whole body. Packed, half of the
// warps issue it with every lane busy and the other half skip it. With
// j >= 32 the lanes of a warp agree and packing changes nothing but adds
// the index arithmetic. The execution model counts both, lane by lane, for
// every launch block size; ptxas then guards occupancy and spills, with
// every earlier rewrite of the file applied.
//
//===----------------------------------------------------------------------===//
#include "ReallocPlanner.h"
#include "PlanText.h"

#include "warpwise/Costs.h"
#include "warpwise/ExecutionModel.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <optional>

namespace warpwise {

namespace {

/// One candidate's planning, one step at a time: the execution model's
/// prediction, then nvcc's registers and spills, then the rounding. Each
/// step that declines the candidate gives D its reason and returns false.
class ReallocPlan {
public:
  ReallocPlan(const PlanContext &PC, const ReallocCandidate &C,
              const char *Transform)
      : PC(PC), C(C), K(PC.Costs) {
    D.Transform = Transform;
    D.Kernel = C.FD->getNameAsString();
    D.Line =
        PC.Ctx.getSourceManager().getExpansionLineNumber(C.If->getBeginLoc());
    D.Form = "packed";
  }
  Decision decide();

private:
  Decision forced();
  /// Issue per warp: the rest of the loop body around the guard, the guard,
  /// the guarded work (in every warp with a passing lane) and, packed, the
  /// index arithmetic.
  void countIssue();
  /// The model's cases for instantiation \p Inst (null: not a template) at
  /// every block size it is launched with, into Worst, Best and Cases.
  bool predictInstance(const clang::FunctionDecl *Inst);
  bool predict();
  /// Compiled with the file's earlier rewrites, with and without this one:
  /// no occupancy step lost, no new spills (Regs, Stats).
  bool compiledGuards();

  const PlanContext &PC;
  const ReallocCandidate &C;
  const CostTable &K;
  Decision D;
  const KernelInfo *Own = nullptr;
  double Rest = 0, Guard = 0, Work = 0, Packing = 0;
  double Worst = 0, Best = 0;
  bool First = true;
  std::string Cases, Model;
  std::optional<std::pair<KernelStats, KernelStats>> Stats;
  std::string Regs;
};

Decision ReallocPlan::forced() {
  // Forced or not, the results must stay bit-identical.
  if (auto Why = PC.contractionChange(C.Edits, C.FD)) {
    D.Reason = C.Where + ": " + C.Proof + "; but " + *Why;
    return D;
  }
  D.Applied = true;
  D.Reason = C.Where + ": " + C.Proof + "; applied because of " + PC.ForcedBy +
             " (profitability was not checked)";
  return D;
}

void ReallocPlan::countIssue() {
  IssueCounter Counter(PC.Ctx, K);
  const clang::Stmt *Around = enclosingLoopBody(C.FD, C.If);
  Rest = std::max(Counter.slots(Around) - Counter.slots(C.If), 0.0);
  IssueCounter Sides(PC.Ctx, K);
  Guard = Sides.exprSlots(C.If->getCond()) + K.IssueSlots.Branch;
  Work = Sides.slots(C.If->getThen());
  // ww_stride, ww_packed, ww_first and the new guard: six ALU operations
  // and a select, uniform but issued by every warp.
  Packing = 6 * K.IssueSlots.Alu + K.IssueSlots.Select;
}

bool ReallocPlan::predictInstance(const clang::FunctionDecl *Inst) {
  std::string Mangled = Inst ? kernelSymbolName(PC.Ctx, Inst) : "";
  std::vector<unsigned> Sizes = blockSizesFor(PC.Analysis, *Own, Mangled);
  auto Given = PC.Analysis.InstanceBlockSizes.find(Mangled);
  bool Read =
      Own->BlockSizeForced ||
      !launchBlockSizes(PC.Analysis, Own->Name).empty() ||
      (!Mangled.empty() && Given != PC.Analysis.InstanceBlockSizes.end() &&
       !Given->second.empty());
  if (Sizes.empty() || !Read) {
    D.Reason = C.Where + ": " + C.Proof + "; but no launch of `" + D.Kernel +
               "` has a block size warpwise can read, and whether packing "
               "pays depends on it (--block-size gives one); declined";
    return false;
  }
  for (unsigned T : Sizes) {
    GuardPacking G = guardPacking(PC.Ctx, C.FD, Inst, C.If, T);
    if (!G.Known) {
      D.Reason = C.Where + ": " + C.Proof +
                 "; but the guard could not be evaluated lane by lane at " +
                 std::to_string(T) + " threads (" + G.Basis + "); declined";
      return false;
    }
    double Before = G.Reached * (Rest + Guard) + G.Active * Work +
                    G.Mixed * K.DivergedBranch;
    double After = G.Reached * (Rest + Guard + Packing) + G.Packed * Work;
    double Predicted = After > 0 ? Before / After : 1;
    if (First || Predicted < Worst)
      Worst = Predicted;
    if (First || Predicted > Best)
      Best = Predicted;
    First = false;
    if (Cases.size() < 400)
      Cases += std::string(Cases.empty() ? "" : "; ") + "at " +
               std::to_string(T) + " threads " +
               formatNumber(G.Active, "%.0f") + " -> " +
               formatNumber(G.Packed, "%.0f") + " of " +
               formatNumber(G.Reached, "%.0f") +
               " warp-steps issue the work, predicted " +
               formatNumber(Predicted) + "x";
  }
  return true;
}

bool ReallocPlan::predict() {
  countIssue();
  std::vector<const clang::FunctionDecl *> Instances;
  if (auto *FTD = C.FD->getDescribedFunctionTemplate())
    for (const clang::FunctionDecl *Spec : FTD->specializations())
      Instances.push_back(Spec);
  if (Instances.empty())
    Instances.push_back(nullptr);
  for (const clang::FunctionDecl *Inst : Instances)
    if (!predictInstance(Inst))
      return false;
  Model = "model: " + Cases;
  if (Worst < K.MaxPredictedLoss || Best < K.MinPredictedGain) {
    D.Reason = C.Where + ": " + C.Proof + "; " + Model + "; declined: " +
               (Worst < K.MaxPredictedLoss
                    ? "a case is predicted below " +
                          formatNumber(K.MaxPredictedLoss) + "x"
                    : "no case is predicted to gain " +
                          formatNumber(K.MinPredictedGain) + "x") +
               " (" + K.Source + ")";
    return false;
  }
  return true;
}

bool ReallocPlan::compiledGuards() {
  if (!PC.Feedback || !PC.Feedback->available()) {
    D.Reason = C.Where + ": " + C.Proof + "; " + Model +
               "; declined because the register guard needs ptxas and "
               "cuobjdump, and " +
               feedbackUnavailable(PC.Feedback);
    return false;
  }
  // The guards read ptxas's numbers only: a candidate they decline needs
  // no listing (decide() asks for the instruction counts of one applied).
  std::string Failure;
  Stats = PC.measureCandidate(C.Edits, Own->Name, Failure, /*NeedCode=*/false);
  if (!Stats) {
    D.Reason = C.Where + ": " + Failure;
    return false;
  }
  std::vector<KernelStats> InstB = compiledInstances(Stats->first),
                           InstA = compiledInstances(Stats->second);
  for (const KernelStats &IB : InstB) {
    const KernelStats *IA = sameInstance(InstA, IB);
    std::string What = InstB.size() > 1 ? "`" + instanceName(IB.Mangled) + "`"
                                        : "`" + Own->Name + "`";
    if (!IA) {
      D.Reason = C.Where + ": " + What +
                 " is missing from nvcc's output for the candidate; declined";
      return false;
    }
    for (unsigned Threads : blockSizesFor(PC.Analysis, *Own, IB.Mangled)) {
      OccupancyResult OB =
          computeOccupancy(PC.Arch, {IB.Registers, Threads, Own->StaticShared});
      OccupancyResult OA = computeOccupancy(
          PC.Arch, {IA->Registers, Threads, Own->StaticShared});
      if (OA.Percent < OB.Percent) {
        D.Reason = C.Where + ": " + C.Proof + "; " + Model + "; but " + What +
                   " registers " + std::to_string(IB.Registers) + " -> " +
                   std::to_string(IA->Registers) + ", occupancy " +
                   formatPercent(OB.Percent) + " -> " +
                   formatPercent(OA.Percent) + " at " +
                   std::to_string(Threads) + " threads on " + PC.Arch.smName() +
                   "; declined";
        return false;
      }
    }
    if (IA->SpillBytes > IB.SpillBytes) {
      D.Reason = C.Where + ": " + C.Proof + "; " + Model + "; but " + What +
                 " would spill (" + std::to_string(IB.SpillBytes) + " -> " +
                 std::to_string(IA->SpillBytes) + " bytes); declined";
      return false;
    }
    if (Regs.empty())
      Regs = What + " registers " + std::to_string(IB.Registers) + " -> " +
             std::to_string(IA->Registers) + ", no occupancy step lost";
  }
  return true;
}

Decision ReallocPlan::decide() {
  if (PC.Force)
    return forced();
  for (const KernelInfo &KI : PC.Analysis.Kernels)
    if (KI.Name == D.Kernel)
      Own = &KI;
  if (!Own) {
    D.Reason = C.Where + ": the kernel was not analysed; declined";
    return D;
  }
  if (!predict() || !compiledGuards())
    return D;
  if (auto Why = PC.contractionChange(C.Edits, C.FD)) {
    D.Reason = C.Where + ": " + C.Proof + "; " + Model + "; but " + *Why;
    return D;
  }
  // The same compiles, now with their instruction counts (nvdisasm's).
  std::string Failure;
  Stats = PC.measureCandidate(C.Edits, Own->Name, Failure);
  if (!Stats) {
    D.Reason = C.Where + ": " + Failure;
    return D;
  }
  D.Applied = true;
  D.Measured = Regs + "; SASS instructions " +
               std::to_string(Stats->first.Instructions) + " -> " +
               std::to_string(Stats->second.Instructions);
  D.Reason =
      C.Where + ": " + C.Proof + "; " + Model + "; " + D.Measured + "; applied";
  return D;
}

} // namespace

Decision planRealloc(const PlanContext &PC, const ReallocCandidate &C,
                     const char *Transform) {
  return ReallocPlan(PC, C, Transform).decide();
}

} // namespace warpwise
