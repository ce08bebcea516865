//===- Emitter.h - Writing results: files, diffs, fixes, reports -*- C++ -*-===//
#ifndef WARPWISE_EMITTER_H
#define WARPWISE_EMITTER_H

// writeFileAtomically, for the emitter's users, lives below every stage.
#include "warpwise/AtomicFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace clang {
namespace tooling {
class Replacements;
}
} // namespace clang

namespace warpwise {

/// A unified diff (3 lines of context) from \p Old to \p New; empty when the
/// texts are equal.
std::string unifiedDiff(llvm::StringRef OldLabel, llvm::StringRef NewLabel,
                        llvm::StringRef Old, llvm::StringRef New);

/// \p Rewritten with #line directives that map it back to \p UserPath
/// (\p Original's path): `#line 1` at the top, and one before each
/// unchanged line that no longer sits at its original line number, so that
/// a compiler's diagnostics on the written copy name the user's file and
/// line. Inserted lines count on from the line before them. No directive is
/// put after a line that ends in a backslash (a macro continues there).
std::string withLineDirectives(llvm::StringRef Original,
                               llvm::StringRef Rewritten,
                               llvm::StringRef UserPath);

struct FileEdits {
  std::string Path; ///< Absolute path, as clang-apply-replacements wants it.
  const clang::tooling::Replacements *Edits;
  /// The same translation unit's edits of other files (project headers).
  std::vector<const clang::tooling::Replacements *> Others = {};
};

/// clang-apply-replacements YAML: one document with every file's edits.
std::string exportFixesYaml(const std::vector<FileEdits> &Files);

/// warpwise's runtime (Embedded.h) to write beside an output that includes
/// it: its path, what is there now ("" when nothing is) and its text.
struct RuntimeOutput {
  std::string Path, Original, Text;
};

/// The runtime each of \p Outputs (output path, the text written there)
/// needs beside it, once per directory, where that file is absent or holds
/// another text (an older runtime, say) that declares no later API
/// (declaredRuntimeApi): a rewritten file includes it with one line, so the
/// user's build finds it with no flag.
std::vector<RuntimeOutput> runtimeHeaderOutputs(
    const std::vector<std::pair<std::string, std::string>> &Outputs);

} // namespace warpwise

#endif
