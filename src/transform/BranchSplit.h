//===- BranchSplit.h - Branch splitting (seeds 000 and 003) -----*- C++ -*-===//
//
// Splits a kernel `prefix; if (c) A else B; suffix` into an if-kernel
// (`prefix; if (!(c)) return; A; suffix`) and an else-kernel, and rewrites
// every `<<<>>>` launch of it in the file into the two launches. Only the
// literal form of CF'09 is implemented; the planner applies it only where it
// paid (old architectures) unless --split-form forces it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_BRANCH_SPLIT_H
#define WARPWISE_BRANCH_SPLIT_H

#include "warpwise/Transform.h"

namespace warpwise {

class BranchSplit : public Transform {
public:
  const char *name() const override { return "split"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

} // namespace warpwise

#endif
