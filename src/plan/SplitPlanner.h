//===- SplitPlanner.h - Deciding branch splitting ---------------*- C++ -*-===//
#ifndef WARPWISE_SPLIT_PLANNER_H
#define WARPWISE_SPLIT_PLANNER_H

#include "warpwise/Transform.h"

#include "clang/Tooling/Core/Replacement.h"

namespace clang {
class FunctionDecl;
}

namespace warpwise {

struct SplitCandidate {
  const clang::FunctionDecl *Kernel = nullptr;
  const BranchInfo *Branch = nullptr;
  unsigned Line = 0;
  std::string File;      ///< Normalised path of the kernel's file.
  unsigned InsertAt = 0; ///< Where the two new kernels go (after the original).
  std::string Kernels;   ///< Their text.
  std::vector<clang::tooling::Replacement> Launches;
  /// The compact form, or why it does not apply.
  std::string CompactKernels;
  /// Host code the compact launches need (the list-pool helper), unless the
  /// file has it: measured with the kernels, emitted once per file.
  std::string CompactPrelude;
  unsigned PreludeAt = 0; ///< File scope, before the kernel's declaration.
  std::vector<clang::tooling::Replacement> CompactLaunches;
  std::string CompactProblem;
  /// The adaptive form (the original kernel with the heavy threads of mixed
  /// warps listed, a heavy kernel over the list, the host choosing per
  /// launch), or why it does not apply; its host helper is emitted once per
  /// file, at PreludeAt.
  std::string AdaptiveKernels;
  std::string AdaptivePrelude;
  std::vector<clang::tooling::Replacement> AdaptiveLaunches;
  std::string AdaptiveProblem;
  /// The condition or the code before it loads from memory: which threads
  /// take the heavy side is run-time data.
  bool DataDependent = false;
  bool HeavyIsElse = true;
};

/// The literal form pays where CF'09 measured it (G80-class targets) and
/// loses on an H100 (issue #4); the decision uses the CF'09 formula with
/// ptxas's registers for the original and the two new kernels.
Decision planSplit(TransformContext &TC, const SplitCandidate &C,
                   const char *Transform);

} // namespace warpwise

#endif
