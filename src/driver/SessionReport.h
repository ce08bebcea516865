//===- SessionReport.h - What a session says about its inputs ---*- C++ -*-===//
//
// The report stage: remarks across inputs, analyze's output, rewrite's
// --report, the summary on standard error and the exit code.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SESSIONREPORT_H
#define WARPWISE_DRIVER_SESSIONREPORT_H

#include "Session.h"

namespace warpwise::driver {

/// The remarks that need every input: a --split-form KERNEL=FORM for a
/// kernel no input defines, and a launch of a kernel that another input
/// split.
void reportAcrossInputs(Session &Run);

/// analyze: the analyses (text or JSON), the summary; the exit code.
int reportAnalysis(Session &Run);

/// rewrite --report: every file's analysis, decisions and diagnostics as
/// JSON, written even when inputs had errors.
void writeReport(Session &Run);

/// rewrite: the summary, and the exit code (with --check, whether anything
/// would change).
int finishRewrite(Session &Run);

} // namespace warpwise::driver

#endif
