//===- RewritePasses.h - Rewrite until a pass changes nothing ---*- C++ -*-===//
//
// The rewrite of one file repeats its passes over its own output, parsed
// in memory, until a pass changes nothing (see RewritePasses.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_REWRITEPASSES_H
#define WARPWISE_DRIVER_REWRITEPASSES_H

#include "Session.h"

namespace warpwise::driver {

/// Runs the later passes of \p F's rewrite (the first has run) until one
/// changes nothing, at most MaxRewritePasses, each recorded in F.Passes.
/// True when a pass parsed the final text.
bool settleRewrite(const Session &Run, InputFile &F, DiagnosticLog &FileLog);

} // namespace warpwise::driver

#endif
