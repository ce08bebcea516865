//===- AstQueries.h - Small questions about statements ----------*- C++ -*-===//
//
// Shared by the analyses and the transformations that ask them: which
// variable an expression names, which builtin (`threadIdx.x`) it reads,
// where a statement sits in a body, which variables a statement writes, and
// whether it is straight-line code.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_AST_QUERIES_H
#define WARPWISE_AST_QUERIES_H

#include <set>
#include <string>
#include <vector>

namespace clang {
class Expr;
class Stmt;
class VarDecl;
} // namespace clang

namespace warpwise {

/// The variable \p E names (through parentheses and implicit casts), or null.
const clang::VarDecl *referencedVar(const clang::Expr *E);

/// `threadIdx.x` and friends, a property reference on a builtin object in
/// Clang's CUDA headers: sets \p Object ("threadIdx") and \p Component ("x").
bool builtinVariable(const clang::Expr *E, std::string &Object,
                     std::string &Component);

/// The statements from \p Root down to \p Target, both included; empty when
/// \p Target is not inside \p Root. (Clang's parent map does not cover the
/// statements of a template's pattern; this does.)
std::vector<const clang::Stmt *> pathTo(const clang::Stmt *Root,
                                        const clang::Stmt *Target);

/// Variables \p S writes: assigned, incremented, address taken, or passed to
/// a reference parameter (or to a callee not known).
std::set<const clang::VarDecl *> writtenVariables(const clang::Stmt *S);

/// No branch, loop, switch or call anywhere in \p S.
bool isStraightLine(const clang::Stmt *S);

/// The statements of a block, or the one statement (null: none).
std::vector<const clang::Stmt *> statementsOf(const clang::Stmt *B);

} // namespace warpwise

#endif
