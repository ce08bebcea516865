//===- StatementSplice.h - Replacing one statement by several ---*- C++ -*-===//
//
// Where the grammar takes one statement (the body of a for, while or do, the
// then or else branch of an if, the statement after a label or a case), a
// transformation that writes several statements in place of one must wrap
// them in braces: otherwise only the first stays in the loop or branch and
// the others run once, after it (issue 26). In a block's statement list they
// stay unwrapped, so the declarations among them stay visible after them.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_STATEMENT_SPLICE_H
#define WARPWISE_STATEMENT_SPLICE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

#include <string>

namespace warpwise {

/// \p S as its parent holds it: the AttributedStmt around it when it has
/// attributes (`#pragma unroll`, `[[likely]]`), else \p S itself.
inline const clang::Stmt *asWritten(const clang::Stmt *S,
                                    clang::ASTContext &Ctx) {
  for (;;) {
    clang::DynTypedNodeList Parents = Ctx.getParents(*S);
    const auto *Attributed =
        Parents.empty() ? nullptr : Parents[0].get<clang::AttributedStmt>();
    if (!Attributed)
      return S;
    S = Attributed;
  }
}

/// The statement that holds \p S as written (see asWritten); null for a
/// function's body.
inline const clang::Stmt *statementParent(const clang::Stmt *S,
                                          clang::ASTContext &Ctx) {
  clang::DynTypedNodeList Parents = Ctx.getParents(*asWritten(S, Ctx));
  return Parents.empty() ? nullptr : Parents[0].get<clang::Stmt>();
}

/// True when \p S, replaced by several statements, must be wrapped in
/// braces: the statement holding it is not a block (a for, while, do, if,
/// else, label or case takes exactly one statement there).
inline bool needsBracesWhenReplaced(const clang::Stmt *S,
                                    clang::ASTContext &Ctx) {
  const clang::Stmt *Parent = statementParent(S, Ctx);
  return Parent && !llvm::isa<clang::CompoundStmt>(Parent);
}

/// \p Statements (each line indented already) as one block statement, for
/// a replacement that needsBracesWhenReplaced: the `{` takes the place of
/// the replaced statement's first token, the `}` closes on its own line
/// indented by \p OuterIndent (the enclosing statement's). The formatting
/// step moves the `{` up to the loop or branch header.
inline std::string inBraces(const std::string &Statements,
                            const std::string &OuterIndent) {
  return "{\n" + Statements + "\n" + OuterIndent + "}";
}

} // namespace warpwise

#endif
