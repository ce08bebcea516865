//===- Paths.h - How warpwise spells and compares file paths ----*- C++ -*-===//
//
// One spelling of a path for every stage: edits and caches key files by
// their normalised absolute path, and messages show a path relative to the
// current directory when it lies below it. Below every module (support), so
// that the frontend's and the diagnostics' messages spell paths as the
// rewriting stages do.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_PATHS_H
#define WARPWISE_PATHS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace warpwise {

/// \p Path made absolute, with `.` and `..` removed.
std::string normalisePath(llvm::StringRef Path);

/// The name a person reads for the absolute path \p Absolute: relative to
/// the current directory when it is below it, else the path itself.
std::string displayPath(const std::string &Absolute);

/// The deepest directory that holds every path in \p Paths (absolute and
/// normalised), by whole components.
std::string commonDirectory(llvm::ArrayRef<std::string> Paths);

/// \p Path relative to the directory \p Dir when it lies below it (whole
/// components; "." when they are equal), std::nullopt otherwise.
std::optional<std::string> pathBelow(llvm::StringRef Path, llvm::StringRef Dir);

} // namespace warpwise

#endif
