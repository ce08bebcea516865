//===- MemoryAccess.h - Which memory a statement touches --------*- C++ -*-===//
//
// Shared by the transformations that reorder or duplicate memory accesses
// (fission, split): the variable an access goes through, and whether two such
// variables may refer to the same memory.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MEMORY_ACCESS_H
#define WARPWISE_MEMORY_ACCESS_H

#include <set>

namespace clang {
class CallExpr;
class Expr;
class SourceManager;
class Stmt;
class VarDecl;
} // namespace clang

namespace warpwise {

/// The pointer or array variable an access like `p[i]`, `*(p + k)` or
/// `s.a[i]` goes through; nullptr when it cannot be named.
const clang::VarDecl *accessBase(const clang::Expr *E);

/// Whether memory reached through \p A and through \p B may overlap. They do
/// not when one is `__restrict__` (C's rule: an object modified through a
/// restrict pointer is reached through it alone), when both are distinct
/// arrays, when one is `__constant__` (never written by a kernel), or when one
/// is a kernel's pointer parameter (set by the host) and the other a
/// `__shared__` or local array. Anything else may alias.
bool mayAlias(const clang::VarDecl *A, const clang::VarDecl *B);

/// What a statement reads and writes, and what keeps it from being moved.
struct Accesses {
  /// Variables declared or assigned (local arrays are variables; a global
  /// assigned by name is also a memory write).
  std::set<const clang::VarDecl *> Defs;
  std::set<const clang::VarDecl *> Uses;                ///< Variables read.
  std::set<const clang::VarDecl *> MemReads, MemWrites; ///< Memory, by base.
  bool UnknownWrite = false;   ///< A store whose base cannot be named.
  unsigned FirstStoreLine = 0; ///< Line of the first store to memory.
  /// First call whose order across threads matters (barriers, warp
  /// collectives, atomics, fences), and first call to a function with a body
  /// (its accesses are not tracked).
  const clang::CallExpr *OrderedCall = nullptr, *OpaqueCall = nullptr;
  /// First break, continue, return, goto or device-side launch.
  const clang::Stmt *Jump = nullptr;
};

Accesses collectAccesses(const clang::Stmt *S, const clang::SourceManager &SM);

} // namespace warpwise

#endif
