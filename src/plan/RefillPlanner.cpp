//===- RefillPlanner.cpp - Deciding the work refill -----------------------===//
//
// Whether lanes finish their items at different times is run-time data: the
// refill pays where trip counts differ within warps (random work per item)
// and costs its bookkeeping where they do not (equal work). warpwise applies
// it where the divergence analysis finds the loop's exit divergent and its
// trip count data-dependent, and ptxas shows the refill kernel keeping the
// original's occupancy within rules/refill.json's allowance; the remark gives
// the warp-utilisation model (rules/refill.json) the decision rests on.
//
//===----------------------------------------------------------------------===//
#include "RefillPlanner.h"
#include "PlanText.h"

#include "warpwise/Embedded.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace warpwise {

namespace {

struct RefillRules {
  unsigned MaxBlocksLost = 1;
  unsigned Lanes = 32;
  double RefillUtilisation = 0.9;
  bool ApplyAutomatically = false;
  /// Whether a refill whose launches the measured dispatch times is applied
  /// where the planner would decline it only for apply_automatically.
  bool ApplyMeasured = true;
  std::string Measured;
  double ChunkWork = 1024, CallCost = 4;
  unsigned ChunkMin = 16, ChunkMax = 1024;
  unsigned MinIdleLanes = 8;

  static RefillRules load() {
    RefillRules R;
    const char *Text = findEmbeddedFile("refill.json");
    nlohmann::json J =
        nlohmann::json::parse(Text ? Text : "", nullptr, false);
    if (!J.is_object())
      return R;
    R.MaxBlocksLost = J.value("max_resident_blocks_lost", R.MaxBlocksLost);
    R.Lanes = std::max(1u, J.value("lanes", R.Lanes));
    R.RefillUtilisation = J.value("refill_utilisation", R.RefillUtilisation);
    R.ApplyAutomatically =
        J.value("apply_automatically", R.ApplyAutomatically);
    R.ApplyMeasured = J.value("apply_measured", R.ApplyMeasured);
    R.Measured = J.value("measured", R.Measured);
    R.ChunkWork = J.value("chunk_work", R.ChunkWork);
    R.CallCost = J.value("call_cost", R.CallCost);
    R.ChunkMin = std::max(1u, J.value("chunk_min", R.ChunkMin));
    R.ChunkMax = std::max(R.ChunkMin, J.value("chunk_max", R.ChunkMax));
    R.MinIdleLanes = std::clamp(J.value("min_idle_lanes", R.MinIdleLanes),
                                1u, 32u);
    return R;
  }

  /// The model's sentence: utilisation of the original's and the refill's
  /// warps, and the predicted gain on the loop, for uniform trip counts.
  std::string model() const {
    double Original = (Lanes + 1.0) / (2.0 * Lanes);
    return "warp utilisation model (rules/refill.json): with independent "
           "trip counts uniform in [0, T] a warp's lanes are busy " +
           formatPercent(100 * Original) +
           " of the loop's issue (the warp runs its longest lane), with the "
           "refill about " +
           formatPercent(100 * RefillUtilisation) +
           " until the items run out: up to " +
           formatNumber(RefillUtilisation / Original) +
           "x on the loop for such data, none (the bookkeeping's cost) where "
           "every item takes as long";
  }
};

/// The loop's operators and calls (a call as \p CallCost), the body's,
/// condition's and step's: a rough cost of one iteration.
double iterationCost(const clang::Stmt *S, double CallCost) {
  if (!S)
    return 0;
  double Cost = 0;
  if (llvm::isa<clang::CallExpr>(S))
    Cost += CallCost;
  else if (llvm::isa<clang::BinaryOperator>(S) ||
           llvm::isa<clang::UnaryOperator>(S) ||
           llvm::isa<clang::ArraySubscriptExpr>(S))
    Cost += 1;
  for (const clang::Stmt *Child : S->children())
    Cost += iterationCost(Child, CallCost);
  return Cost;
}

const RefillRules &rules() {
  static const RefillRules Rules = RefillRules::load();
  return Rules;
}

} // namespace

unsigned refillChunk(const clang::Stmt *Loop) {
  const RefillRules &R = rules();
  double Cost = 0;
  if (auto *W = llvm::dyn_cast<clang::WhileStmt>(Loop))
    Cost = iterationCost(W->getCond(), R.CallCost) +
           iterationCost(W->getBody(), R.CallCost);
  else if (auto *F = llvm::dyn_cast<clang::ForStmt>(Loop))
    Cost = iterationCost(F->getCond(), R.CallCost) +
           iterationCost(F->getInc(), R.CallCost) +
           iterationCost(F->getBody(), R.CallCost);
  else
    Cost = iterationCost(Loop, R.CallCost);
  double Want = R.ChunkWork / std::max(1.0, Cost);
  unsigned Chunk = R.ChunkMin;
  // The power of two nearest Want (in ratio), within the bounds.
  while (Chunk < R.ChunkMax && Chunk * 1.41421356 < Want)
    Chunk *= 2;
  return Chunk;
}

unsigned refillMinIdleLanes() { return rules().MinIdleLanes; }

Decision planRefill(const PlanContext &PC,
                    const std::vector<clang::tooling::Replacement> &Applied,
                    const RefillCandidate &C,
                    const char *Transform) {
  const RefillRules &Rules = rules();
  Decision D;
  D.Transform = Transform;
  D.Kernel = C.FD->getNameAsString();
  D.Line = PC.Ctx.getSourceManager().getExpansionLineNumber(
      C.Loop->getBeginLoc());
  D.Form = "counter";
  std::string Kernel = D.Kernel;
  std::string Head = C.Where + ": " + C.Proof;
  const std::vector<std::vector<std::string>> Together = {{C.NewKernel}};

  if (PC.Force) {
    // Forced or not, the results must stay bit-identical.
    if (auto Why = PC.splitContractionChange(C.Edits, Kernel, Together)) {
      D.Reason = Head + "; but " + *Why;
      return D;
    }
    D.Applied = true;
    D.Reason = Head + "; applied because of " + PC.ForcedBy +
               " (profitability was not checked)" +
               (C.Measured ? "; its launches time the refill and the original "
                             "and run the faster"
                           : "");
    return D;
  }
  if (C.DataDependence.empty()) {
    D.Reason = Head +
               "; declined: the loop's trip count follows the item index "
               "alone, so neighbouring lanes' counts differ little and the "
               "refill would add its bookkeeping for little (--force-"
               "transforms applies it)";
    return D;
  }
  if (!C.StepsOnly.empty()) {
    D.Reason = Head + "; declined: the loop only steps `" + C.StepsOnly +
               "`, which its condition tests, so its trip count is known "
               "before it runs and nvcc runs it unrolled, at a fraction of "
               "an instruction per iteration; the refill's chunk loop, which "
               "tests the condition before the step, makes nvcc store the "
               "stepped value to memory every iteration (dec2zero on an "
               "H100: 600x slower), and even kept in a register it ran "
               "0.56x (--force-transforms applies it)";
    return D;
  }
  std::string Model = "the trip count is data-dependent (" +
                      C.DataDependence + "); " + Rules.model();
  const KernelInfo *Own = nullptr;
  for (const KernelInfo &KI : PC.Analysis.Kernels)
    if (KI.Name == Kernel)
      Own = &KI;
  if (!Own) {
    D.Reason = Head + ": the kernel was not analysed; declined";
    return D;
  }
  if (!PC.Feedback || !PC.Feedback->available()) {
    D.Reason = Head + "; " + Model +
               "; declined because the register guard needs ptxas and "
               "cuobjdump, and " +
               feedbackUnavailable(PC.Feedback);
    return D;
  }
  std::vector<clang::tooling::Replacement> After = Applied;
  After.insert(After.end(), C.Edits.begin(), C.Edits.end());
  PlanContext::MeasuredPair Pair =
      PC.measureBoth(Applied, After, PtxasRunner::nvccArchFor(PC.Arch));
  if (!Pair.Before || !Pair.After || !Pair.Before->count(Kernel) ||
      !Pair.After->count(C.NewKernel)) {
    D.Reason = Head + "; nvcc could not compile " +
               (!Pair.Before ? "the original (" + Pair.BeforeError + ")"
                : !Pair.After
                    ? "the refill kernel (" + Pair.AfterError + ")"
                    : std::string("both kernels")) +
               "; declined";
    return D;
  }
  const KernelStats &B = Pair.Before->at(Kernel),
                    &A = Pair.After->at(C.NewKernel);
  std::vector<unsigned> Sizes = Own->BlockSizes;
  if (Sizes.empty())
    Sizes.push_back(Own->BlockSize ? Own->BlockSize : 256);
  std::string Occ;
  for (unsigned Threads : Sizes) {
    OccupancyResult OB =
        computeOccupancy(PC.Arch, {B.Registers, Threads, Own->StaticShared});
    OccupancyResult OA =
        computeOccupancy(PC.Arch, {A.Registers, Threads, Own->StaticShared});
    std::string Here = "registers " + std::to_string(B.Registers) + " -> " +
                       std::to_string(A.Registers) + ", occupancy " +
                       formatPercent(OB.Percent) + " -> " +
                       formatPercent(OA.Percent) + " at " +
                       std::to_string(Threads) + " threads on " +
                       PC.Arch.smName();
    if (OA.BlocksPerSM + Rules.MaxBlocksLost < OB.BlocksPerSM) {
      D.Reason = Head + "; " + Model + "; but " + Here +
                 " (more than " + std::to_string(Rules.MaxBlocksLost) +
                 " resident block per SM lost); declined";
      return D;
    }
    if (Occ.empty())
      Occ = Here;
  }
  if (A.SpillBytes > B.SpillBytes) {
    D.Reason = Head + "; " + Model + "; but the refill kernel would spill (" +
               std::to_string(B.SpillBytes) + " -> " +
               std::to_string(A.SpillBytes) + " bytes); declined";
    return D;
  }
  if (auto Why = PC.splitContractionChange(C.Edits, Kernel, Together)) {
    D.Reason = Head + "; " + Model + "; but " + *Why;
    return D;
  }
  D.Measured = Occ + "; SASS instructions " + std::to_string(B.Instructions) +
               " -> " + std::to_string(A.Instructions);
  if (C.Measured && Rules.ApplyMeasured) {
    // Whether the items' trip counts differ within a warp is the data's:
    // the run times both kernels and keeps the faster.
    D.Applied = true;
    D.Reason = Head + "; " + Model + "; " + D.Measured +
               "; applied under measured dispatch: its launches time the "
               "refill and the original on their first launches of each "
               "shape, the refill first, and run the faster (-DWARPWISE_"
               "DISPATCH=0 or =1 pins one), since the refill gains where "
               "trip counts differ within a warp and loses 8-12% where they "
               "are equal (rules/refill.json)";
    return D;
  }
  if (!Rules.ApplyAutomatically) {
    // Legal and within the register guard, but the refill lost on most of
    // the shapes it was measured on: the user asks for it, or the measured
    // dispatch decides at run time.
    D.Reason = Head + "; " + Model + "; " + D.Measured +
               "; the refill would apply, but without measured dispatch it "
               "is applied only on request (--force-transforms or a "
               "directive): " +
               Rules.Measured;
    return D;
  }
  D.Applied = true;
  D.Reason = Head + "; " + Model + "; " + D.Measured + "; applied";
  return D;
}

} // namespace warpwise
