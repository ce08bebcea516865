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

#include "../plan/MergeOutcome.h"
#include "warpwise/Costs.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class IfStmt;
} // namespace clang

namespace warpwise {

/// Merges the then- and else-sides of \p If (in \p FD). With
/// \p AllowControlFlow false only straight-line sides are accepted (fusion).
/// With \p KeepContraction (nvcc's default -fmad=true) no select separates a
/// floating-point product from its consumer, so fma contraction is unchanged.
MergeOutcome mergeBranch(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                         const clang::IfStmt *If, const CostTable &Costs,
                         bool AllowControlFlow, bool KeepContraction = true);

} // namespace warpwise

#endif
