//===- SessionTools.h - The frontend, --tune, nvcc feedback ----*- C++ -*-===//
//
// The tools a session runs, started once for every input: the frontend,
// --tune's timing of the variants (before the rewrite, which then runs
// with the options of the fastest), and nvcc's measurements.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SESSIONTOOLS_H
#define WARPWISE_DRIVER_SESSIONTOOLS_H

#include "Session.h"

namespace warpwise::driver {

/// The frontend; false (temporaries removed) when it cannot start.
bool startFrontend(Session &Run);

/// --tune: the variants are timed (or the cached verdict is read), and the
/// first input's settings become those of the fastest.
void tuneFirst(Session &Run);

/// nvcc's feedback (measurements, compile checks) and what -v, --no-ptxas
/// and missing tools say about it.
void startFeedback(Session &Run);

} // namespace warpwise::driver

#endif
