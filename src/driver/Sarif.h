//===- Sarif.h - Diagnostics for code-review tools --------------*- C++ -*-===//
//
// --sarif FILE: the session's diagnostics as a SARIF 2.1.0 log (one run,
// the WW ids as its rules), the format GitHub code scanning, GitLab and
// review bots read.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SARIF_H
#define WARPWISE_DRIVER_SARIF_H

#include "warpwise/Diagnostics.h"

#include <nlohmann/json.hpp>

namespace warpwise::driver {

/// The SARIF 2.1.0 log of \p Log's diagnostics (clang's raw text left
/// out): one run whose tool.driver lists every documented id as a rule,
/// with docs/diagnostics.md's text, and one result per diagnostic at the
/// file as the user named it. Silenced diagnostics carry an external
/// suppression.
nlohmann::json sarifLog(const DiagnosticLog &Log);

/// The path \p Path as a SARIF artifact location: a relative reference
/// against %SRCROOT% (the current directory) or a file:// URI.
nlohmann::json sarifArtifactLocation(const std::string &Path);

} // namespace warpwise::driver

#endif
