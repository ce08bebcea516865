//===- SplitCandidate.h - A kernel's branch to split, and its legality -*- C++ -*-===//
//
// What every form of the branch split shares: the candidate (the first
// top-level if-else of a kernel whose condition diverges within warps, with
// the code before and after it), whether splitting it is legal, and the
// text the forms build their kernels from. The forms (SplitLiteral,
// SplitCompact, SplitAdaptive) and the launches (SplitLaunch) start here;
// the planner (plan/SplitPlanner) weighs the SplitCandidate they fill.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_CANDIDATE_H
#define WARPWISE_SPLIT_CANDIDATE_H

#include "warpwise/Transform.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class CompoundStmt;
class FunctionDecl;
class FunctionTemplateDecl;
class IfStmt;
class Stmt;
} // namespace clang

namespace warpwise {

class AliasFacts;

/// A kernel `prefix; if (c) A else B; suffix` whose if-else diverges within
/// warps, as every form reads it.
struct SplitBranch {
  const clang::FunctionDecl *Kernel = nullptr;
  /// The kernel's function template, when it is one.
  const clang::FunctionTemplateDecl *Template = nullptr;
  const clang::CompoundStmt *Body = nullptr;
  const clang::IfStmt *If = nullptr;
  const BranchInfo *Verdict = nullptr;
  /// The body's statements before and after the if-else.
  std::vector<const clang::Stmt *> Prefix, Suffix;
  std::string Name;
  unsigned Line = 0, Column = 0; ///< Of the if-else.
  /// The file the kernel is in (a project header, maybe): its normalised
  /// path, its text and its name as messages show it.
  std::string File, Shown;
  llvm::StringRef Text;
  /// The decision's name, in the comment of every piece of code it writes
  /// ("WW4003 split.k.1").
  std::string Tag;
  /// The side with more live registers (the analysis' estimate) is heavy.
  bool HeavyIsElse = true;
  /// The code before the branch or the condition loads from memory, so
  /// which threads take the heavy side is run-time data.
  bool ReadsMemory = false;

  /// The text the forms are built from (readSplitText): the kernel's
  /// definition (from `template <...>` for a template), at [Begin, End) of
  /// Text, and offsets into it: the if-else (with a `;` ending its else),
  /// the kernel's name, its body's braces, the `)` closing its parameters.
  std::string Original;
  unsigned Begin = 0, End = 0;
  unsigned IfBegin = 0, IfEnd = 0, NameAt = 0, BodyAt = 0, RParenAt = 0;
  unsigned RBraceAt = 0;
  std::string Cond, ThenText, ElseText;
  std::string Indent; ///< Of the if-else's line.

  /// The prefix's exits: the `return` that is the whole then-statement of a
  /// top-level `if` without else (findPrefixReturns); PrefixProblem names
  /// one inside anything else, which the compact and adaptive forms refuse.
  std::set<const clang::Stmt *> PrefixReturns;
  std::string PrefixProblem;

  const clang::Stmt *heavySide() const;
  const clang::Stmt *lightSide() const;
  /// `!(c)` or `(c)`: whether a thread takes the heavy side.
  std::string heavyCondition() const;
  /// A new kernel's header: the original's up to its body, renamed with
  /// \p NameSuffix, with \p Extra appended to its parameters.
  std::string header(const std::string &NameSuffix, const char *Extra) const;
};

/// The first top-level if-else of \p FD's body that the analysis found
/// divergent within warps, with what comes before and after it; none when
/// the body has no such branch.
std::optional<SplitBranch> findSplitBranch(const TransformContext &TC,
                                           const clang::FunctionDecl *FD);

/// Why splitting \p B is not legal, or "": its threads must be independent
/// (no shared memory, barriers, warp intrinsics, atomics, volatile data or
/// indirect calls, callees included), the prefix and the condition must
/// have no side effects (they run in both kernels), and what they read must
/// not be written by the sides or the suffix. Sets B.ReadsMemory. \p Facts
/// records which allocations at the launches made reads and writes
/// distinct.
std::string splitProblem(const TransformContext &TC, SplitBranch &B,
                         AliasFacts &Facts);

/// Reads the text of \p B the forms are built from; false where a macro
/// writes part of it.
bool readSplitText(const TransformContext &TC, SplitBranch &B);

/// Finds the prefix's exits (B.PrefixReturns, B.PrefixProblem).
void findPrefixReturns(const TransformContext &TC, SplitBranch &B);

} // namespace warpwise

#endif
