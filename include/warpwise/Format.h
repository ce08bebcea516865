//===- Format.h - clang-format for the code warpwise inserts ----*- C++ -*-===//
//
// People review warpwise's output as a diff: the code it inserts or replaces
// is formatted with clang-format, in the project's style, and nothing else
// is touched.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_FORMAT_H
#define WARPWISE_FORMAT_H

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <string>

namespace warpwise {

/// Checks a --style value ("file", "LLVM", "none", "{...}"); the message
/// of the error says what is wrong.
llvm::Error checkStyle(const std::string &Style);

/// \p Edits of \p Original (the file \p Path) with what they insert
/// formatted in \p Style (as clang-format resolves it: "file" looks for
/// the nearest .clang-format above \p Path, LLVM without one; "" is
/// "file"): the lines they touch, and no others. The user's comments in
/// what they insert (those of \p Original, and those labelled with the side
/// of a branch they came from, `// ww_cond_12: odd`) keep their text: they
/// are not reflowed, re-spaced, or made one paragraph with warpwise's own
/// comments; only the whitespace before them may change.
llvm::Expected<clang::tooling::Replacements>
formatEdits(const clang::tooling::Replacements &Edits, llvm::StringRef Original,
            llvm::StringRef Path, const std::string &Style);

} // namespace warpwise

#endif
