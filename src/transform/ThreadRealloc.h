//===- ThreadRealloc.h - Packing a partner guard's threads ------*- C++ -*-===//
//
// Thread reallocation (seed 001) for the pairwise steps of sorting networks
// and butterflies: in
//
//   unsigned ixj = tid ^ j;
//   if (ixj > tid) { ... work on the pair (tid, ixj) ... }
//   __syncthreads();
//
// only the threads whose bit j is clear do the work. For j < 32 every warp
// has half of its lanes idle and issues the whole body. The rewrite hands
// the pair of the i-th passing thread to thread i, so the working threads
// fill the lowest warps and the others skip:
//
//   first = 2 * tid - (tid & (j - 1));       // the i-th index with bit j clear
//   if (first < blockDim.x) { tid' = first; ixj' = first ^ j; ... }
//
// Each pair is still worked on by exactly one thread, in the same barrier
// interval; when j is not a power of two at run time the guard is kept as
// written. It is only the same program when nothing in the barrier interval
// depends on which thread did the work: see ThreadRealloc.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_THREAD_REALLOC_H
#define WARPWISE_THREAD_REALLOC_H

#include "warpwise/Transform.h"

namespace warpwise {

class ThreadReallocation : public Transform {
public:
  const char *name() const override { return "realloc"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

} // namespace warpwise

#endif
