//===- SplitLiteral.h - The literal form of the branch split ----*- C++ -*-===//
//
// CF'09's form: `<k>_ww_then` and `<k>_ww_else`, each the original kernel
// with the branch replaced by an early exit and one side, launched one after
// the other in the launch's stream. It uses nothing newer than the input.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_LITERAL_H
#define WARPWISE_SPLIT_LITERAL_H

#include "SplitLaunch.h"

#include <string>

namespace warpwise {

/// The two kernels, to insert after the original (each with its comment,
/// each after a blank line).
std::string literalKernels(const TransformContext &TC, const SplitBranch &B);

/// The launch \p L as the two launches, braced.
std::string literalLaunch(const SplitBranch &B, const LaunchSite &L);

} // namespace warpwise

#endif
