//===- SourceScope.h - Which files warpwise analyses and rewrites -*- C++ -*-=//
//
// A translation unit is the main file and every header it includes. The
// user's kernels live in the main file and in the project's own headers
// (`#include "kernels.cuh"`, the layout of Rodinia and of cuda-samples
// dct8x8); the CUDA toolkit, CCCL, clang's resource headers and -isystem
// directories are system headers and never the user's to rewrite. A
// SourceScope answers, for a location, whether it is in one of the files in
// scope, and gives each file's normalised absolute path and text: edits are
// keyed by that path, the way clang-apply-replacements expects.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SOURCESCOPE_H
#define WARPWISE_SOURCESCOPE_H

#include "warpwise/Paths.h"

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <optional>
#include <set>
#include <string>

namespace clang {
class SourceManager;
}

namespace warpwise {

/// The default --header-filter: every header that is not a system header.
constexpr const char *AllProjectHeaders = ".*";

/// Where a location is, as an edit needs it.
struct FilePosition {
  std::string File;     ///< Normalised absolute path; empty when invalid.
  llvm::StringRef Text; ///< The whole file's text as clang parsed it.
  unsigned Offset = 0;  ///< Of the location's expansion in Text.
  bool Main = false;    ///< The main file of the translation unit.
};

class SourceScope {
public:
  /// \p HeaderFilter is matched against a header's normalised absolute
  /// path; an empty filter, or one that matches no path (`^$`), keeps the
  /// scope to the main file. An invalid regex also keeps it to the main
  /// file (the driver reports it before getting here).
  SourceScope(const clang::SourceManager &SM, const std::string &HeaderFilter);

  /// True when \p Loc's expansion is in the main file or in a project header
  /// the filter accepts.
  bool contains(clang::SourceLocation Loc) const;
  bool containsFile(clang::FileID FID) const;

  /// The normalised absolute path of \p FID (make_absolute, remove_dots).
  std::string path(clang::FileID FID) const;
  /// The text of \p FID as clang parsed it (an in-memory overlay included).
  llvm::StringRef text(clang::FileID FID) const;
  /// Path, text and offset of \p Loc's expansion.
  FilePosition position(clang::SourceLocation Loc) const;
  /// The text of the in-scope file whose normalised path is \p Path, or
  /// std::nullopt-like empty with \p Found false.
  llvm::StringRef textOf(const std::string &Path, bool &Found) const;

  /// The name a person reads for \p FID: the main file as the user gave it
  /// (\p MainDisplay), a header relative to the current directory when it is
  /// below it, else its absolute path.
  std::string display(clang::FileID FID, const std::string &MainDisplay) const;
  std::string display(clang::SourceLocation Loc,
                      const std::string &MainDisplay) const;

  const clang::SourceManager &sourceManager() const { return SM; }

  /// Takes the headers at these normalised paths out of scope, whatever the
  /// filter says (a header two inputs would rewrite differently).
  void exclude(std::set<std::string> Paths) { Excluded = std::move(Paths); }

  /// Normalises \p Path the way inputs are: absolute, without `.` and `..`.
  static std::string normalise(llvm::StringRef Path);
  /// \p Absolute relative to the current directory when below it.
  static std::string displayPath(const std::string &Absolute);

private:
  const clang::SourceManager &SM;
  std::unique_ptr<llvm::Regex> Filter; ///< Null: main file only.
  std::set<std::string> Excluded;
  mutable llvm::DenseMap<clang::FileID, bool> InScope;
};

} // namespace warpwise

#endif
