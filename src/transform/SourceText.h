//===- SourceText.h - Statement text for rewriting --------------*- C++ -*-===//
#ifndef WARPWISE_SOURCE_TEXT_H
#define WARPWISE_SOURCE_TEXT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <string>

namespace warpwise {

/// The source text of the token range \p R, through macro expansions (an
/// expansion's whole invocation).
inline std::string sourceText(const clang::ASTContext &Ctx,
                              clang::SourceRange R) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  clang::CharSourceRange Range = clang::CharSourceRange::getTokenRange(
      SM.getExpansionRange(R.getBegin()).getBegin(),
      SM.getExpansionRange(R.getEnd()).getEnd());
  return clang::Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

/// A statement's token range stops before a trailing `;` when the statement
/// ends in an expression (`x = 1;`, `if (c) return;`). Appends it to \p Text
/// when the source has it and the text does not end a block already.
inline std::string withSemicolon(const clang::Stmt *S, std::string Text,
                                 const clang::SourceManager &SM,
                                 const clang::LangOptions &LO) {
  while (!Text.empty() && (Text.back() == ' ' || Text.back() == '\t'))
    Text.pop_back();
  if (Text.empty() || Text.back() == ';' || Text.back() == '}')
    return Text;
  // The statement's last token in the file: for a statement that ends in a
  // macro invocation (`ACC(v, a[i]);`) that is the invocation's last token,
  // the `)`, and not where the expansion starts.
  clang::SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
  clang::SourceLocation Semi = clang::Lexer::findLocationAfterToken(
      Last, clang::tok::semi, SM, LO,
      /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (Semi.isValid() || llvm::isa<clang::Expr>(S))
    Text += ";";
  return Text;
}

} // namespace warpwise

#endif
