//===- SharePlanner.h - Deciding variable sharing ---------------*- C++ -*-===//
#ifndef WARPWISE_SHARE_PLANNER_H
#define WARPWISE_SHARE_PLANNER_H

#include "warpwise/Plan.h"

#include "clang/Tooling/Core/Replacement.h"

namespace clang {
class FunctionDecl;
} // namespace clang

namespace warpwise {

/// One kernel's block-uniform values, legal to share, with the edits that
/// share them.
struct ShareCandidate {
  const clang::FunctionDecl *FD = nullptr;
  unsigned Line = 0;           ///< Of the first statement of the fill.
  std::string Where;           ///< "`w[32]`, `inv` of `blur` (lines 12-15)".
  std::string Proof;           ///< What the legality checks established.
  std::string Left;            ///< The values left private, and why ("" none).
  unsigned long NewShared = 0; ///< Bytes of shared memory per block added.
  /// External sharing: the host computes the values and passes them; the
  /// work every thread no longer does counts as a gain.
  bool External = false;
  std::vector<clang::tooling::Replacement> Edits;
};

/// Sharing pays when ptxas shows local memory removed or an occupancy step
/// gained (fewer registers), or, external sharing, fewer SASS instructions
/// (work each thread did that the host now does once), without an occupancy
/// step lost at any launch block size or new spills.
Decision planShare(const PlanContext &PC, const ShareCandidate &C,
                   const char *Transform);

} // namespace warpwise

#endif
