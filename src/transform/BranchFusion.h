//===- BranchFusion.h - Branch fusion (seed 001) ----------------*- C++ -*-===//
//
// Fuses the straight-line sides of a divergent if-else: the work both sides
// share is issued once, with operands picked by `c ? a : b`.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_BRANCH_FUSION_H
#define WARPWISE_BRANCH_FUSION_H

#include "BranchMerge.h"

namespace warpwise {

class BranchFusion : public BranchMergeTransform {
public:
  const char *name() const override { return "fuse"; }

protected:
  bool allowsControlFlow() const override { return false; }
};

} // namespace warpwise

#endif
