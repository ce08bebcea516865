//===- LoopFission.h - Loop splitting (seed 000, section 2.1) ---*- C++ -*-===//
//
// Splits a kernel loop whose body falls into groups of statements with no
// dependence between groups into one loop per group, each with the original
// header, so each loop keeps fewer values live. Cheap declarations that only
// read loop-invariant values are recomputed in every loop that needs them.
// Applied only when the split kernel reaches a higher occupancy step (issue
// #4: +8-21% when it did, -3 to -7% when it did not).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_LOOP_FISSION_H
#define WARPWISE_LOOP_FISSION_H

#include "warpwise/Transform.h"

namespace warpwise {

class LoopFission : public Transform {
public:
  const char *name() const override { return "fission"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

} // namespace warpwise

#endif
