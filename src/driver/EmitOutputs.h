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

/// Whether \p Path (a file; "-" and "" are standard output and none) can
/// be written: its directory exists (or, with \p CreateDirectories, can be
/// created) and is writable, and it is not a directory. WW1005 in \p Log
/// when not.
bool checkDestination(DiagnosticLog &Log, const std::string &Path,
                      bool CreateDirectories);

/// Every destination the rewrite writes (outputs, headers, --export-fixes,
/// --depfile, --report, --sarif), checked before any is written; false
/// (and Run.Unwritable) when one cannot be.
bool checkDestinations(Session &Run);

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
