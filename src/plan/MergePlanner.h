//===- MergePlanner.h - Deciding fusion and melding -------------*- C++ -*-===//
#ifndef WARPWISE_MERGE_PLANNER_H
#define WARPWISE_MERGE_PLANNER_H

#include "MergeOutcome.h"
#include "warpwise/Plan.h"

namespace clang {
class IfStmt;
class FunctionDecl;
} // namespace clang

namespace warpwise {

struct MergeCandidate {
  const clang::IfStmt *If = nullptr;
  const clang::FunctionDecl *FD = nullptr;
  const BranchInfo *Branch = nullptr; ///< The analysis' verdict.
  std::string File;                   ///< Normalised path of its file.
  unsigned Begin = 0, End = 0;        ///< Byte range replaced there.
};

/// Legality and profitability of merging one divergent if-else, with the
/// reason a person reads. \p Merged is the merged rewriting (when legal),
/// \p BranchFree the branch-free one (when asked for and legal); the
/// execution model picks one of them or neither. \p Text receives the
/// replacement of the chosen form.
Decision planMerge(const PlanContext &PC, const MergeCandidate &C,
                   const MergeOutcome &Merged,
                   const SpeculationOutcome *BranchFree, const char *Transform,
                   std::string &Text);

} // namespace warpwise

#endif
