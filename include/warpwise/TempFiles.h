//===- TempFiles.h - Temporary files that never outlive warpwise -*- C++ -*-===//
//
// Every temporary file and directory warpwise makes (the stub headers, the
// candidates compiled with nvcc, the tools' logs) lives in one private
// directory, $TMPDIR/warpwise-XXXXXX, removed when warpwise exits and on
// SIGINT/SIGTERM/SIGHUP, unless --save-temps keeps it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_TEMPFILES_H
#define WARPWISE_TEMPFILES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <system_error>
#include <vector>

namespace warpwise {

/// A new directory `<root>/<Prefix>-XXXXXX`.
std::error_code createTemporaryDirectory(llvm::StringRef Prefix,
                                         llvm::SmallVectorImpl<char> &Path);

/// A new, empty file `<root>/<Prefix>-XXXXXX.<Suffix>`.
std::error_code createTemporaryFile(llvm::StringRef Prefix,
                                    llvm::StringRef Suffix,
                                    llvm::SmallVectorImpl<char> &Path);

/// --save-temps: keep the directory and say where it is.
void keepTemporaries();

/// The private directory, or empty when none was made yet.
std::string temporaryRoot();

/// The environment for a tool warpwise runs (nvcc and the programs it
/// starts): TMPDIR is the private directory, so that their temporary files
/// go with it on an interrupt; \p Extra entries ("NAME=value") replace
/// variables of the same name.
std::vector<std::string>
toolEnvironment(const std::vector<std::string> &Extra = {});

/// The line of a tool's output that says what went wrong: the first that
/// names an error, else the first that is not context ("In function ...:",
/// "In file included from ..."), else the first.
std::string firstErrorLine(llvm::StringRef Output);

/// Removes the private directory (unless kept). Called before exit.
void removeTemporaries();

} // namespace warpwise

#endif
