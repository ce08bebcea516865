//===- Merge.h - Aligning and merging the two sides of a branch -*- C++ -*-===//
//
// The engine behind branch fusion and control-flow melding. The two sides of
// a divergent if/else are aligned statement by statement (Needleman-Wunsch
// with CFM's latency weights: a match saves the cost of the operations the
// two statements share; gaps cost nothing). Matched pairs become one
// statement whose differing operands are picked by `c ? a : b` on the branch
// condition, evaluated once; unmatched statements stay under `if (c)` /
// `if (!c)` guards in their original order. With control flow allowed
// (melding), matched if/for/while statements are merged recursively: their
// conditions and bounds are selected and their bodies aligned again.
//
// Every thread still executes exactly its own side's statements, in order,
// with its own operands: that is the invariant the rewriting keeps.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MERGE_H
#define WARPWISE_MERGE_H

#include "warpwise/Costs.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class IfStmt;
} // namespace clang

namespace warpwise {

struct MergeOutcome {
  bool OK = false;
  std::string Refusal; ///< Why the branch cannot be merged (legality).
  std::string Text;    ///< Replacement for the whole if statement.
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

/// Merges the then- and else-sides of \p If (in \p FD). With
/// \p AllowControlFlow false only straight-line sides are accepted (fusion).
/// With \p KeepContraction (nvcc's default -fmad=true) no select separates a
/// floating-point product from its consumer, so fma contraction is unchanged.
MergeOutcome mergeBranch(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                         const clang::IfStmt *If, const CostTable &Costs,
                         bool AllowControlFlow, bool KeepContraction = true);

} // namespace warpwise

#endif
