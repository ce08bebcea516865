//===- SplitAdaptive.h - The adaptive form of the branch split --*- C++ -*-===//
//
// The original kernel stays, and three kernels join it: `<k>_ww_adaptive`
// (the original with the heavy threads of mixed warps listed: path 1),
// `<k>_ww_light` (the light side alone, every heavy thread listed: path 2)
// and `<k>_ww_heavy` (the heavy side over the list, each listed thread with
// its own indices). At each launch the host asks warpwise's run-time support
// (ww_adaptive_begin) which to run, from the counts the heavy kernel
// published for earlier launches.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_ADAPTIVE_H
#define WARPWISE_SPLIT_ADAPTIVE_H

#include "SplitLaunch.h"

#include <set>
#include <string>

namespace warpwise {

/// Why the adaptive form does not apply to \p B, or "". Sets \p Returns to
/// the `return`s the heavy kernel turns into `continue`.
std::string adaptiveProblem(const TransformContext &TC, const SplitBranch &B,
                            std::set<const clang::Stmt *> &Returns);

/// The three kernels, to insert after the original.
std::string adaptiveKernels(const TransformContext &TC, const SplitBranch &B,
                            const std::set<const clang::Stmt *> &Returns);

/// The launch \p L (in the main file, \p MainText) as the host's choice
/// between the original kernel and the two pairs, braced; \p Measured: a
/// measured dispatch too, between that choice and the original alone.
std::string adaptiveLaunch(llvm::StringRef MainText, const SplitBranch &B,
                           const LaunchSite &L, bool Measured);

} // namespace warpwise

#endif
