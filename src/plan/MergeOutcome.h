//===- MergeOutcome.h - The forms of a merged branch ------------*- C++ -*-===//
//
// What the melding engine (src/transform/Merge.h, IfConvert.h) makes of a
// divergent if-else, in the two forms the merge planner weighs: the merged
// sides and the branch-free form with speculated stores. Each says whether
// it is legal, its text and what the execution model needs to price it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MERGE_OUTCOME_H
#define WARPWISE_MERGE_OUTCOME_H

#include <string>
#include <vector>

namespace warpwise {

/// The then- and else-sides aligned and merged (Merge.h).
struct MergeOutcome {
  bool OK = false;
  std::string Refusal; ///< Why the branch cannot be merged (legality).
  std::string Text;    ///< Replacement for the whole if statement.
  /// The bodies of the callees merged into local functions of Text
  /// (offset and text): what nvcc computed on their lines now comes from
  /// Text's, which the floating-point comparison must know.
  std::vector<std::pair<unsigned, std::string>> CalleeBodies;
  /// Calls of two different functions the sides make that could not be
  /// merged, each with why ("`f` and `g`: `f` writes memory").
  std::vector<std::string> UnmergedCalls;
  /// The pairs of callees merged into local functions ("`f` and `g`").
  std::vector<std::string> MergedCalls;
  double Saved = 0;    ///< Cost units issued once instead of twice.
  double Total = 0;    ///< Cost units of both sides.
  unsigned Matched = 0, GuardedA = 0, GuardedB = 0, Selects = 0;
  unsigned MeldedRegions = 0; ///< Matched if/for/while pairs.
  /// Selects between floating-point products (allowed by --fmad=false).
  unsigned ProductSelects = 0;
  double similarity() const { return Total > 0 ? Saved / Total : 0; }

  // The execution model's view (issue #14), in warp issue slots with loops
  // weighted by their trips; see warpwise/ExecutionModel.h.
  double IssueCond = 0;   ///< The condition, evaluated once.
  double AfterShared = 0; ///< Merged statements and their selects.
  double AfterGuardedA = 0, AfterGuardedB = 0; ///< Statements under guards.
  double AfterGuards = 0;                      ///< Guard executions.
  double AfterLoopIterations = 0; ///< Iterations of merged loops not unrolled.
  /// Merged loops that nvcc unrolled before and no longer can (their bounds
  /// became selects).
  unsigned LostUnrolling = 0;
  std::vector<std::string> Assumptions;
};

/// The branch-free form: every condition evaluated once, each stored
/// location stored once, unconditionally (IfConvert.h).
struct SpeculationOutcome {
  bool OK = false;
  std::string Refusal; ///< Why the tree cannot be made branch-free.
  std::string Text;    ///< Replacement for the whole if statement.
  std::string Proof;   ///< What the legality proof used, for the remark.
  unsigned Locations = 0, Conditions = 0;
  /// Issue slots of the branch-free form per warp: the same whether the
  /// lanes agree or not.
  double Issue = 0;
};

} // namespace warpwise

#endif
