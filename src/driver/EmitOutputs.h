//===- EmitOutputs.h - Every output computed, then written ------*- C++ -*-===//
//
// The emit stage of a rewrite: the outputs computed in memory, then the
// files written (unless an error stops them), then --export-fixes,
// --depfile, --diff and standard output.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_EMITOUTPUTS_H
#define WARPWISE_DRIVER_EMITOUTPUTS_H

#include "Session.h"

namespace warpwise::driver {

/// Writes \p Text to \p Path, or to standard output for "-"; false (with
/// WW1005 in \p Log) when it cannot.
bool writeOrPrint(DiagnosticLog &Log, const std::string &Path,
                  const std::string &Text);

/// Every input's and edited header's rewritten text, formatted with
/// --style, in its line endings; and whether the rewrite goes to standard
/// output.
void computeOutputs(Session &Run);

/// Writes the inputs and headers that may be written.
void writeOutputs(Session &Run);

/// --export-fixes, --depfile, --diff, and the rewrite on standard output.
void writeSideOutputs(Session &Run);

} // namespace warpwise::driver

#endif
