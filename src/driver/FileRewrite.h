//===- FileRewrite.h - Every input through the pipeline ---------*- C++ -*-===//
//
// The per-file stages of a session: parse -> analyse -> plan -> transform
// -> the later passes of the rewrite -> the compile checks, for one input
// or for all of them (in parallel with -j).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_FILEREWRITE_H
#define WARPWISE_DRIVER_FILEREWRITE_H

#include "Session.h"

namespace warpwise::driver {

/// One file, start to end, reporting to its own \p FileLog.
void processFile(const Session &Run, InputFile &F, DiagnosticLog &FileLog);

/// Every input, their logs replayed into Run.Log in input order (the
/// output of -j 1 whatever -j says).
void processInputs(Session &Run);

} // namespace warpwise::driver

#endif
