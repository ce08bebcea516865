//===- VariableSharing.h - Block-uniform values in shared memory -*- C++
//-*-===//
//
// Internal variable sharing (seed 001): a kernel whose threads each compute
// the same values (scalars and tables derived from kernel parameters,
// blockIdx, blockDim and gridDim) and keep them privately gets one copy per
// block in shared memory instead:
//
//   float inv = 1.0f / (2.0f * sigma * sigma);     // every thread
//   float w[32];
//   for (int k = 0; k < 32; ++k) w[k] = expf(-k * k * inv);
//   ... w[data[i] & 31] ...                        // local memory
//
// becomes
//
//   __shared__ float ww_shared_w[32];
//   {
//     float inv = ...;
//     float (&w)[32] = ww_shared_w;
//     for (int k = 0 + threadIdx.x; k < 32; k += blockDim.x) w[k] = ...;
//   }
//   __syncthreads();
//   float (&w)[32] = ww_shared_w;                  // the code after: as
//   written
//
// The fill runs where every thread of the block still runs (above a
// divergent early return when it neither loads nor stores memory), the
// barrier publishes it, and the names keep meaning what they meant: the rest
// of the kernel is not edited. See VariableSharing.cpp for the legality
// rules and SharePlanner.cpp for when it pays.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_VARIABLE_SHARING_H
#define WARPWISE_VARIABLE_SHARING_H

#include "warpwise/Transform.h"

namespace warpwise {

class VariableSharing : public Transform {
public:
  const char *name() const override { return "share"; }
  void run(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes) override;
};

} // namespace warpwise

#endif
