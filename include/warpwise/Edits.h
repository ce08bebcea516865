//===- Edits.h - The one edit model every transformation shares -*- C++ -*-===//
//
// Transformations never write files. They hand the emitter Changes: groups of
// clang::tooling::Replacement that belong to one decision and are applied
// whole or not at all, the way tooling::AtomicChange groups edits.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_EDITS_H
#define WARPWISE_EDITS_H

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace warpwise {

/// The edits of one decision ("split kernel k at line 12").
struct Change {
  std::string Description;
  std::vector<clang::tooling::Replacement> Edits;
};

/// All accepted edits, per file. Overlaps are refused with an error that names
/// both decisions; nothing is ever dropped silently.
class EditSet {
public:
  /// Adds every edit of \p C or none of them.
  llvm::Error add(const Change &C);

  bool empty() const { return ByFile.empty(); }
  const std::map<std::string, clang::tooling::Replacements> &byFile() const {
    return ByFile;
  }
  /// The edits for \p File (empty when there are none).
  clang::tooling::Replacements forFile(const std::string &File) const;
  const std::vector<std::string> &descriptions() const { return Accepted; }
  /// Composes \p Next, edits of the text this set makes of \p File, with the
  /// set, so that it edits the original text into that text with \p Next
  /// applied (a later pass of the rewrite).
  void compose(const std::string &File,
               const clang::tooling::Replacements &Next,
               const std::vector<std::string> &Descriptions);

private:
  std::map<std::string, clang::tooling::Replacements> ByFile;
  /// For each file, which change each replacement came from, by offset.
  std::map<std::string, std::map<unsigned, std::string>> Owner;
  std::vector<std::string> Accepted;
};

/// Applies \p Edits to \p Code.
llvm::Expected<std::string>
applyEdits(llvm::StringRef Code, const clang::tooling::Replacements &Edits);

} // namespace warpwise

#endif
