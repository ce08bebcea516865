//===- HeaderOutputs.h - The project headers a rewrite changes --*- C++ -*-===//
//
// Header bookkeeping between the per-file stages and the writing: inputs
// that rewrite one header must agree on it, each rewritten header is
// written once, and every output gets its place.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_HEADEROUTPUTS_H
#define WARPWISE_DRIVER_HEADEROUTPUTS_H

#include "Session.h"

namespace warpwise::driver {

/// Where two inputs rewrite a project header differently (WW1017), the
/// header leaves the scope of both and both are processed again.
void resolveHeaderConflicts(Session &Run);

/// Run.HeaderOutputs: each rewritten header once, and with --out-dir the
/// unchanged headers through which an input includes one.
void collectHeaderOutputs(Session &Run);

/// Where each output goes (-o, -i, --out-dir below the input root), with
/// the errors of outputs that have no place or would overwrite an input.
void placeOutputs(Session &Run);

/// warpwise's runtime beside each output that includes it, as a header
/// output of its own (written atomically, reported by --check and --diff),
/// where that file is absent or differs.
void placeRuntimeHeaders(Session &Run);

} // namespace warpwise::driver

#endif
