//===- WorkRefill.h - Warp-level work refill for data-dependent loops -*- C++ -*-===//
//
// A kernel whose threads each work on one item,
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) { prologue; while (cond) body; epilogue; }
//
// with a loop whose trip count comes from the item's data, runs each warp as
// long as its longest lane. The rewrite adds `<k>_ww_refill`, in which a lane
// whose item is done takes the next item while the others keep looping:
//
//   active = i < n; if (active) prologue;
//   while (__any_sync(~0u, active)) {
//     if (active) { if (cond) body; else { epilogue; active = false; } }
//     lanes done: one atomicAdd per warp on a per-launch counter, the next
//     items spread by ballot/popc/shfl; active = i < n; if (active) prologue;
//   }
//
// The host launches it over one wave of resident blocks, the original
// launch's threads being the items (warpwise's runtime, refill.cuh, zeroes
// the counter on the launch's stream); the original kernel stays and runs
// where the launch does not suit the refill. Legal where each item's work is
// independent of the others': see WorkRefill.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_WORK_REFILL_H
#define WARPWISE_WORK_REFILL_H

#include "warpwise/Transform.h"

namespace warpwise {

class WorkRefill : public Transform {
public:
  const char *name() const override { return "refill"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

} // namespace warpwise

#endif
