//===- SharePlanner.h - Deciding variable sharing ---------------*- C++ -*-===//
#ifndef WARPWISE_SHARE_PLANNER_H
#define WARPWISE_SHARE_PLANNER_H

#include "warpwise/Transform.h"

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
  std::vector<clang::tooling::Replacement> Edits;
};

/// Sharing pays when ptxas shows local memory removed or an occupancy step
/// gained (fewer registers), at every launch block size, without an
/// occupancy step lost to the shared memory it takes or new spills.
Decision planShare(TransformContext &TC, const ShareCandidate &C,
                   const char *Transform);

} // namespace warpwise

#endif
