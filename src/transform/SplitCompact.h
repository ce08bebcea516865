//===- SplitCompact.h - The compact form of the branch split ----*- C++ -*-===//
//
// `<k>_ww_light` runs the decision once, lists the heavy side's threads
// (warp ballot, block prefix in shared memory, one atomic per block) and
// runs the light side; `<k>_ww_heavy` runs the heavy side over the list.
// Each launch allocates the list from warpwise's pool for the device
// (ww_list_pool, in the run-time support) in the launch's stream and frees
// it after the heavy kernel. One-dimensional launches of whole warps only.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_COMPACT_H
#define WARPWISE_SPLIT_COMPACT_H

#include "SplitLaunch.h"

#include <string>
#include <vector>

namespace warpwise {

/// Why the compact form does not apply to \p B, launched by \p Calls, or "".
std::string
compactProblem(const TransformContext &TC, const SplitBranch &B,
               const std::vector<const clang::CUDAKernelCallExpr *> &Calls);

/// The light and the heavy kernel, to insert after the original.
std::string compactKernels(const TransformContext &TC, const SplitBranch &B);

/// The launch \p L as the compact pair with its list, braced.
std::string compactLaunch(const SplitBranch &B, const LaunchSite &L);

} // namespace warpwise

#endif
