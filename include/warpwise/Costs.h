//===- Costs.h - Latency weights from rules/costs.json ----------*- C++ -*-===//
#ifndef WARPWISE_COSTS_H
#define WARPWISE_COSTS_H

#include "llvm/Support/Error.h"

#include <string>

namespace warpwise {

/// CFM's latency weights (seed 004, section 4) and the melding threshold.
struct CostTable {
  double Add = 5, Mul = 10, Div = 20, Load = 100, Store = 100, Select = 3,
         Branch = 3, Call = 20, Other = 3;
  double SimilarityThreshold = 0.2;

  /// The execution model (issue #14): warp issue slots along the paths warps
  /// take. "issue" weights are slots per warp instruction class; the rest
  /// are the model's calibrated constants (rules/costs.json says where each
  /// comes from).
  struct IssueWeights {
    double Alu = 1, Mul = 1, Div = 8, Load = 1, Store = 1, Select = 1,
           Compare = 1, Branch = 1, Call = 4, Convert = 1;
  } IssueSlots;
  using IssueModelWeights = IssueWeights;
  /// Extra slots for a branch that splits a warp: the divergence and the
  /// reconvergence (BSSY/BSYNC, the second path's branch).
  double DivergedBranch = 4;
  /// Straight-line code under a guard up to this many slots is predicated by
  /// nvcc instead of branched around: no divergence, no reconvergence.
  double PredicateMaxSlots = 12;
  /// The same for a branch nested inside a side (e.g. a data-dependent swap
  /// under the direction test): measured, nvcc predicates those less often.
  double InnerPredicateMaxSlots = 0;
  /// Slots per iteration of a loop that nvcc does not unroll (the compare,
  /// the branch, the induction updates and address arithmetic that an
  /// unrolled loop folds into immediate offsets).
  double LoopIteration = 4;
  /// Loops with a constant trip count up to this many iterations (nested
  /// ones: their product) are taken to be unrolled completely by nvcc.
  double UnrollMaxTrips = 256;
  /// The trip count assumed for a loop whose count is not a constant.
  double AssumedTrips = 16;
  /// Share of warps assumed mixed when a condition depends on data.
  double DataDependentMixed = 1.0;
  /// Issue-slot equivalents of one 32-byte DRAM sector and of one serialised
  /// replay of an indexed __constant__ load (one per distinct address).
  double SectorSlots = 8;
  double ConstantReplaySlots = 4;
  /// A rewrite is applied when the model predicts at least this speedup of
  /// the code around it and no case below MaxPredictedLoss.
  double MinPredictedGain = 1.02;
  double MaxPredictedLoss = 0.99;
  /// External variable sharing pays for its new parameters when the
  /// kernel's SASS shrinks by at least this share (the slice each thread no
  /// longer computes).
  double ExternalMinInstructionSaving = 0.01;

  /// Where the numbers come from, as decisions cite them.
  std::string Source = "rules/costs.json";

  /// The built-in table, or \p OverridePath when not empty, with \p Patch
  /// (a JSON object, as .warpwise.yaml's `Costs`) merged over it: each of
  /// its keys must name an entry of the table.
  static llvm::Expected<CostTable> load(const std::string &OverridePath = "",
                                        const std::string &Patch = "");
};

} // namespace warpwise

#endif
