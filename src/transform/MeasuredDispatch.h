//===- MeasuredDispatch.h - Let the run choose rewrite or original -*- C++ -*-//
//
// The model and ptxas cannot see the data a kernel runs on: the mask
// distribution, the grid a launch uses, which phase of a sort dominates
// (issue 25). Measured dispatch keeps the original of a kernel that an
// earlier transformation rewrote in place (meld, fuse, realloc, fission,
// internal share) beside the rewrite, as `<k>_ww_original`, and rewrites
// each `<<<>>>` launch of the kernel in the file into a block that asks
// warpwise's runtime (measured.cuh) which version to run: per launch site
// and launch shape, the first launches alternate the two under CUDA events,
// the faster is kept, and a low periodic re-probe follows the data. The
// two versions compute the same results (each transformation's legality
// and floating-point checks), so the order they run in does not matter.
//
// It runs after the other transformations of a pass (it wraps their edits),
// in the default set (--no-measured-dispatch leaves it out).
// `-DWARPWISE_DISPATCH=0` or `=1` pins a version.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MEASURED_DISPATCH_H
#define WARPWISE_MEASURED_DISPATCH_H

#include "warpwise/Transform.h"

namespace warpwise {

class MeasuredDispatch : public Transform {
public:
  const char *name() const override { return "dispatch"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

/// The suffix of the original a measured dispatch keeps: such a kernel is
/// final, no transformation looks at it again.
constexpr const char *KeptOriginalSuffix = "_ww_original";

} // namespace warpwise

#endif
