//===- MemoryAccess.h - Which memory a statement touches --------*- C++ -*-===//
//
// Shared by the transformations that reorder or duplicate memory accesses
// (fission, split): the variable an access goes through, and whether two such
// variables may refer to the same memory.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MEMORY_ACCESS_H
#define WARPWISE_MEMORY_ACCESS_H

namespace clang {
class Expr;
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

} // namespace warpwise

#endif
