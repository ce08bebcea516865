//===- ControlFlowMeld.h - Control-flow melding (seed 004) ------*- C++ -*-===//
//
// Melds divergent if-else sides that hold similar structured control flow
// (nested ifs, for and while loops): conditions and bounds are selected,
// bodies aligned and merged recursively, as CFM does on LLVM IR.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_CONTROL_FLOW_MELD_H
#define WARPWISE_CONTROL_FLOW_MELD_H

#include "BranchMerge.h"

namespace warpwise {

class ControlFlowMeld : public BranchMergeTransform {
public:
  const char *name() const override { return "meld"; }

protected:
  bool allowsControlFlow() const override { return true; }
};

} // namespace warpwise

#endif
