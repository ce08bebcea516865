//===- SplitText.h - Statement text for the split's kernels -----*- C++ -*-===//
//
// The branch split builds its kernels from the original kernel's statements:
// as written, or with the builtin indices renamed (a heavy kernel runs a
// listed thread with that thread's indices), with `return` turned into what
// leaves the copy (`break` out of the decision, `continue` in a loop over the
// list), and with only the statements before the branch that a kernel uses.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_TEXT_H
#define WARPWISE_SPLIT_TEXT_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class LangOptions;
class SourceManager;
class Stmt;
} // namespace clang

namespace warpwise {

/// The text of the token range \p R in its file, or "" where a macro
/// expansion writes part of it.
std::string writtenText(const clang::SourceManager &SM,
                        const clang::LangOptions &LO, clang::SourceRange R);

/// A `threadIdx.x`-style reference: object, component and where it is.
struct BuiltinRef {
  std::string Object, Component;
  clang::CharSourceRange Range;
};

/// Every reference to threadIdx, blockIdx, blockDim or gridDim in \p S.
std::vector<BuiltinRef> builtinRefs(const clang::Stmt *S,
                                    const clang::SourceManager &SM,
                                    const clang::LangOptions &LO);

/// The statements of \p Prefix that a kernel running \p Uses after them
/// needs: every statement that may leave the kernel (`if (...) return;`),
/// and every one that declares or writes a variable that \p Uses or a
/// statement kept after it reads. The prefix has no side effects (legality
/// checked that), so a statement left out changes only variables nothing
/// reads; kept, it would leave a variable nvcc warns about (#177 declared
/// but never referenced, #550 set but never used).
std::vector<const clang::Stmt *>
usedPrefix(const std::vector<const clang::Stmt *> &Prefix,
           std::vector<const clang::Stmt *> Uses);

/// The offsets of statement \p S in \p Text, its `;` included, widened to
/// whole lines (with a trailing comment and the comment lines directly
/// above) when nothing else is on them; none when macros write it.
std::optional<std::pair<unsigned, unsigned>>
statementLines(const clang::Stmt *S, const clang::SourceManager &SM,
               const clang::LangOptions &LO, llvm::StringRef Text);

/// The offset where the line holding \p Pos begins.
unsigned lineStart(llvm::StringRef Text, unsigned Pos);

/// The whitespace before \p Pos on its line, when only whitespace precedes
/// it there (a statement's indentation); else "".
std::string indentBefore(llvm::StringRef Text, unsigned Pos);

/// The start of the `//` comment lines directly above the line holding
/// \p Offset (none: the start of that line; \p Offset when code precedes it
/// on its line), so that an insertion there does not separate a declaration
/// from its comment.
unsigned aboveLineComments(llvm::StringRef Text, unsigned Offset);

/// The source of \p S with `threadIdx.x` and `blockIdx.x` renamed to
/// \p Thread and \p Block (the forms that use it handle `.x` only), and the
/// `return` statements of \p Returns turned into \p ReturnAs.
std::string renderWith(const clang::Stmt *S, const clang::SourceManager &SM,
                       const clang::LangOptions &LO, const std::string &Thread,
                       const std::string &Block,
                       const std::set<const clang::Stmt *> &Returns = {},
                       const std::string &ReturnAs = "");

/// The source of \p S as written, with the `return` statements of
/// \p Returns turned into \p ReturnAs.
std::string renderAsWritten(const clang::Stmt *S,
                            const clang::SourceManager &SM,
                            const clang::LangOptions &LO,
                            const std::set<const clang::Stmt *> &Returns = {},
                            const std::string &ReturnAs = "");

/// The source of \p S as the adaptive form's heavy kernel runs it: every
/// component of threadIdx, blockIdx and gridDim taken from the listed
/// thread's own (`ww_thread.y`, `ww_block.x`, `ww_grid.z`).
std::string renderListed(const clang::Stmt *S, const clang::SourceManager &SM,
                         const clang::LangOptions &LO,
                         const std::set<const clang::Stmt *> &Returns,
                         const std::string &ReturnAs);

} // namespace warpwise

#endif
