//===- BranchMerge.h - Shared driver of fusion and melding ------*- C++ -*-===//
#ifndef WARPWISE_BRANCH_MERGE_H
#define WARPWISE_BRANCH_MERGE_H

#include "warpwise/Transform.h"

namespace warpwise {

/// Finds the if-else statements of the file's kernels and __device__
/// functions, merges each with the engine in Merge.h, asks the planner, and
/// turns applied decisions into changes. Fusion and melding differ in which
/// branches they take: straight-line sides, or sides with control flow.
class BranchMergeTransform : public Transform {
public:
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;

protected:
  virtual bool allowsControlFlow() const = 0;
};

} // namespace warpwise

#endif
