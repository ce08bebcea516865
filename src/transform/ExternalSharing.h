//===- ExternalSharing.h - Launch-uniform values from the host --*- C++ -*-===//
#ifndef WARPWISE_EXTERNAL_SHARING_H
#define WARPWISE_EXTERNAL_SHARING_H

#include "ShareAnalysis.h"

#include "warpwise/Transform.h"

namespace warpwise {
namespace share {

using ClosureFn =
    std::function<std::set<const VarDecl *>(const std::set<const VarDecl *> &)>;

/// External sharing (seed 001): the launch-uniform scalars among \p Worth
/// (computed from kernel parameters and constants alone) are computed by
/// the host at each launch and passed as new parameters. Reports its own
/// decision; takes what it shares out of \p Worth. Returns why launch-uniform
/// values stay on the device, for the internal decision ("" when none do or
/// none exist).
std::string shareExternally(TransformContext &TC, const char *Transform,
                            const FunctionDecl *FD,
                            const std::vector<const VarDecl *> &Order,
                            std::map<const VarDecl *, Candidate> &Cands,
                            std::set<const VarDecl *> &Worth,
                            const std::set<const VarDecl *> &WrittenParams,
                            const ClosureFn &Closure,
                            std::vector<Decision> &Decisions,
                            std::vector<Change> &Changes);

} // namespace share
} // namespace warpwise

#endif
