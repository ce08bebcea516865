//===- MemoryAccess.h - Which memory a statement touches --------*- C++ -*-===//
//
// Shared by every transformation that reorders, duplicates or removes code
// (fission, split, fuse, meld): the variables and memory a statement reads and
// writes, calls included (through per-callee effect summaries), and whether
// two variables may refer to the same memory.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MEMORY_ACCESS_H
#define WARPWISE_MEMORY_ACCESS_H

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class SourceManager;
class Stmt;
class VarDecl;
} // namespace clang

namespace warpwise {

/// The pointer or array variable an access like `p[i]`, `*(p + k)` or
/// `s.a[i]` goes through; nullptr when it cannot be named.
const clang::VarDecl *accessBase(const clang::Expr *E);

/// Pairs of a kernel's pointer parameters that never point into the same
/// allocation, proven from the host code: every launch of the kernel in the
/// translation unit passes them buffers from distinct allocations.
class AliasFacts {
public:
  /// Records that \p A and \p B (parameters of one kernel) are distinct.
  void addDistinct(const clang::VarDecl *A, const clang::VarDecl *B);
  bool distinct(const clang::VarDecl *A, const clang::VarDecl *B) const;
  /// Why, for the remark: "every launch in this file (lines 93, 103) passes
  /// ... distinct allocations".
  std::map<const clang::FunctionDecl *, std::string> Why;
  /// Set whenever distinct() answered yes: the decision relied on the host.
  mutable std::set<const clang::FunctionDecl *> Used;

private:
  std::set<std::pair<const clang::VarDecl *, const clang::VarDecl *>> Pairs;
};

/// Collects alias facts for every kernel defined in the main file from the
/// launches in the translation unit.
AliasFacts collectAliasFacts(clang::ASTContext &Ctx);

/// Whether memory reached through \p A and through \p B may overlap. They do
/// not when one is `__restrict__` (C's rule: an object modified through a
/// restrict pointer is reached through it alone), when both are distinct
/// arrays, when one is `__constant__` (never written by a kernel), when one
/// is a kernel's pointer parameter (set by the host) and the other a
/// `__shared__` or local array, or when \p Facts proves them distinct
/// allocations. Anything else may alias.
bool mayAlias(const clang::VarDecl *A, const clang::VarDecl *B,
              const AliasFacts *Facts = nullptr);

/// What a statement reads and writes, and what keeps it from being moved.
struct Accesses {
  /// Variables declared or assigned (local arrays are variables; a global
  /// assigned by name is also a memory write).
  std::set<const clang::VarDecl *> Defs;
  std::set<const clang::VarDecl *> Uses;                ///< Variables read.
  std::set<const clang::VarDecl *> MemReads, MemWrites; ///< Memory, by base.
  bool UnknownWrite = false;   ///< A store whose base cannot be named.
  bool UnknownRead = false;    ///< A load whose base cannot be named.
  unsigned FirstStoreLine = 0; ///< Line of the first store to memory.
  /// First call whose order across threads matters (barriers, warp
  /// collectives, atomics, fences), and first call whose effects are not
  /// known (no definition, indirect, or a body warpwise cannot summarise),
  /// with why.
  const clang::CallExpr *OrderedCall = nullptr;
  const clang::Stmt *OpaqueCall = nullptr; ///< A call, new, or inline asm.
  std::string OrderedName, OpaqueName, OpaqueWhy;
  /// First break, continue, return, goto or device-side launch.
  const clang::Stmt *Jump = nullptr;

  /// Adds \p O's accesses to these (first calls and jumps kept).
  void merge(const Accesses &O);
};

/// Maps the declarations of a template instantiation to the pattern's, so
/// that the accesses of every instantiation speak of the pattern's variables.
using DeclMap = std::map<const clang::VarDecl *, const clang::VarDecl *>;

Accesses collectAccesses(const clang::Stmt *S, const clang::SourceManager &SM,
                         const DeclMap *Rename = nullptr);

/// The accesses of \p S, a statement of \p FD; when \p FD is a template
/// pattern, joined with those of the same statement in each of its
/// instantiations in the translation unit (where overloads, operators and
/// dependent calls are resolved).
Accesses collectAccessesAllInstances(const clang::Stmt *S,
                                     const clang::FunctionDecl *FD,
                                     const clang::SourceManager &SM);

/// What calling a function does to the caller's state, summarised from its
/// body or from rules/callees.json.
struct CallSummary {
  bool Unknown = false;
  std::string UnknownWhy; ///< e.g. "`foo` has no definition in this file"
  std::string OrderedName; ///< A barrier, collective, atomic or fence inside.
  /// Per parameter: loads through it (pointer or reference), stores through
  /// it.
  std::vector<bool> ReadsParam, WritesParam;
  bool WritesObject = false, ReadsObject = false; ///< `this` of a method.
  std::set<const clang::VarDecl *> GlobalReads, GlobalWrites;
  /// Captured variables a lambda reads or assigns.
  std::set<const clang::VarDecl *> CapturedUses, CapturedDefs;
  bool UnknownRead = false;
  bool writes() const;
};

/// Summary of a call to \p F (nullptr: unknown), cached for the translation
/// unit.
const CallSummary &summarizeFunction(const clang::FunctionDecl *F);

/// Drops the cached summaries: called when a new translation unit is
/// analysed (several files, and the rewrite's later passes, share a process).
void forgetCallSummaries();

/// The functions \p C may call: its direct callee, or in a template pattern
/// every declaration its unresolved name refers to. Empty for an indirect
/// call or a dependent member or qualified call.
std::vector<const clang::FunctionDecl *> calleeCandidates(
    const clang::CallExpr *C);

/// A short spelling of what \p C calls, for remarks.
std::string calleeName(const clang::CallExpr *C);

} // namespace warpwise

#endif
