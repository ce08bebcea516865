//===- Format.cpp - clang-format for the code warpwise inserts ------------===//
#include "warpwise/Format.h"

#include "clang/Format/Format.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <set>
#include <vector>

namespace warpwise {

namespace {

struct CommentSpan {
  unsigned Begin, End;
  llvm::StringRef Text;
};

/// The comments of \p Code (followed by a NUL), found by the raw lexer.
std::vector<CommentSpan> commentsOf(llvm::StringRef Code) {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  LO.LineComment = true;
  clang::Lexer L(clang::SourceLocation(), LO, Code.data(), Code.data(),
                 Code.data() + Code.size());
  L.SetCommentRetentionState(true);
  std::vector<CommentSpan> Out;
  clang::Token Tok;
  while (true) {
    L.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::eof))
      break;
    unsigned End = L.getBufferLocation() - Code.data();
    if (Tok.is(clang::tok::comment))
      Out.push_back({End - Tok.getLength(), End,
                     Code.slice(End - Tok.getLength(), End)});
  }
  return Out;
}

/// \p Text with its runs of whitespace made one space.
std::string squeezed(llvm::StringRef Text) {
  std::string Out;
  for (char C : Text.trim()) {
    bool Space = C == ' ' || C == '\t' || C == '\n' || C == '\r';
    if (!Space || (!Out.empty() && Out.back() != ' '))
      Out += Space ? ' ' : C;
  }
  return Out;
}

/// The text of a comment without its delimiters.
llvm::StringRef bodyOf(llvm::StringRef Comment) {
  if (Comment.starts_with("/*") && Comment.ends_with("*/") &&
      Comment.size() >= 4)
    return Comment.drop_front(2).drop_back(2).trim();
  return Comment.ltrim('/').trim();
}

/// Whether \p Comment, in the code warpwise writes, is a comment of the
/// user's: one of \p Original's (whitespace aside), or one warpwise moved
/// with the label of the branch side it came from (`// ww_cond_12: odd`
/// for `//odd`; see transform/Comments.h).
bool usersComment(llvm::StringRef Comment, const std::set<std::string> &Bodies,
                  const std::set<std::string> &Original) {
  if (Original.count(squeezed(Comment)))
    return true;
  if (!Comment.starts_with("// "))
    return false;
  auto [Label, Body] = Comment.drop_front(3).split(": ");
  Label.consume_front("!");
  if (Body.empty() || Label.empty() || Label.contains(' ') ||
      !llvm::all_of(Label, [](char C) { return llvm::isAlnum(C) || C == '_'; }))
    return false;
  return Bodies.count(squeezed(Body));
}

/// clang-format's changes to \p Code in \p Ranges, leaving the user's
/// comments as they are. clang-format reflows a comment paragraph with
/// pairs of changes (the line break, the next line's `//`), so dropping
/// some afterwards could leave half a pair; instead it formats the code
/// with each user's comment masked: `// odd lanes` becomes `//@@@@@@@@@@@`,
/// the same length, a comment that cannot be broken and that no other line
/// is joined with (a line starting with `@` is not reflowed into). What it
/// still changes inside one (a space after `//`, a block comment's
/// indentation) is dropped. Whitespace before a comment may change.
clang::tooling::Replacements
sparingComments(const clang::format::FormatStyle &Style, llvm::StringRef Code,
                llvm::ArrayRef<clang::tooling::Range> Ranges,
                llvm::StringRef Named, llvm::StringRef Original) {
  std::vector<CommentSpan> Users = commentsOf(Code);
  if (!Users.empty()) {
    std::set<std::string> Known, Bodies;
    for (const CommentSpan &C : commentsOf(Original)) {
      Known.insert(squeezed(C.Text));
      Bodies.insert(squeezed(bodyOf(C.Text)));
    }
    llvm::erase_if(Users, [&](const CommentSpan &C) {
      return !usersComment(C.Text, Bodies, Known);
    });
  }
  if (Users.empty())
    return clang::format::reformat(Style, Code, Ranges, Named);
  std::string Masked = Code.str();
  for (const CommentSpan &U : Users) {
    // `// clang-format off` and `on` keep working.
    if (bodyOf(U.Text).starts_with("clang-format"))
      continue;
    unsigned End = U.Text.starts_with("/*") ? U.End - 2 : U.End;
    for (unsigned I = U.Begin + 2; I < End; ++I)
      if (Masked[I] != '\n' && Masked[I] != '\r')
        Masked[I] = '@';
  }
  clang::tooling::Replacements Kept;
  for (const clang::tooling::Replacement &F :
       clang::format::reformat(Style, Masked, Ranges, Named)) {
    unsigned B = F.getOffset(), E = B + F.getLength();
    bool Inside = llvm::any_of(Users, [&](const CommentSpan &U) {
      return F.getLength() ? B < U.End && E > U.Begin
                           : U.Begin < B && B < U.End;
    });
    if (!Inside)
      llvm::consumeError(Kept.add(F));
  }
  return Kept;
}

} // namespace

llvm::Error checkStyle(const std::string &Style) {
  if (Style.empty() || Style == "file")
    return llvm::Error::success();
  auto S = clang::format::getStyle(Style, "warpwise.cu", "LLVM");
  if (!S)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--style: " + llvm::toString(S.takeError()));
  return llvm::Error::success();
}

llvm::Expected<clang::tooling::Replacements>
formatEdits(const clang::tooling::Replacements &Edits, llvm::StringRef Original,
            llvm::StringRef Path, const std::string &Style) {
  if (Edits.empty())
    return Edits;
  // clang-format picks the language by the name: a .cuh, or a file parsed
  // with --assume-cuda, is C++ to it as well.
  std::string Named = Path.ends_with(".cu") ? Path.str() : (Path + ".cu").str();
  auto S = clang::format::getStyle(Style.empty() ? "file" : Style, Named,
                                   "LLVM", Original);
  if (!S)
    return S.takeError();
  // Format the text as edited, in the ranges the edits inserted, and keep
  // only the changes inside them or in the whitespace right before them
  // (`if (go)\n    {` becomes `if (go) {`): clang-format also touches the
  // lines after a range, and those are the user's.
  auto Edited = clang::tooling::applyAllReplacements(Original, Edits);
  if (!Edited)
    return Edited.takeError();
  llvm::StringRef Code = *Edited;
  struct Piece {
    const clang::tooling::Replacement *Edit;
    unsigned Begin, End; ///< Of its text in the edited code.
    unsigned Pre;        ///< Whitespace before it that may change.
    clang::tooling::Replacements Inside;
  };
  std::vector<Piece> Pieces;
  std::vector<clang::tooling::Range> Ranges;
  long Shift = 0;
  unsigned PrevEnd = 0;
  for (const clang::tooling::Replacement &R : Edits) {
    unsigned Begin = R.getOffset() + Shift;
    unsigned End = Begin + R.getReplacementText().size();
    Shift += long(R.getReplacementText().size()) - long(R.getLength());
    unsigned Pre = 0;
    while (Begin - Pre > PrevEnd &&
           llvm::StringRef(" \t\r\n").contains(Code[Begin - Pre - 1]))
      ++Pre;
    Pieces.push_back({&R, Begin, End, Pre, {}});
    PrevEnd = End;
    // The lines of the inserted text, not the line it starts after.
    llvm::StringRef T = R.getReplacementText();
    size_t Lead = T.find_first_not_of("\r\n");
    if (Lead == llvm::StringRef::npos)
      continue;
    llvm::StringRef Body = T.drop_front(Lead).rtrim("\r\n");
    Ranges.push_back({unsigned(Begin + Lead), unsigned(Body.size())});
  }
  clang::tooling::Replacements Changes =
      sparingComments(*S, Code, Ranges, Named, Original);
  for (const clang::tooling::Replacement &F : Changes)
    for (Piece &P : Pieces) {
      if (F.getOffset() < P.Begin - P.Pre ||
          F.getOffset() + F.getLength() > P.End)
        continue;
      llvm::consumeError(P.Inside.add(
          clang::tooling::Replacement(Path, F.getOffset() - (P.Begin - P.Pre),
                                      F.getLength(), F.getReplacementText())));
      break;
    }
  clang::tooling::Replacements Out;
  for (const Piece &P : Pieces) {
    // Unchanged whitespace before an edit stays outside it.
    unsigned Pre = P.Inside.empty() ? 0 : P.Pre;
    std::string Text =
        (Code.substr(P.Begin - Pre, Pre) + P.Edit->getReplacementText()).str();
    auto Formatted = clang::tooling::applyAllReplacements(Text, P.Inside);
    if (!Formatted)
      return Formatted.takeError();
    if (llvm::Error E = Out.add(clang::tooling::Replacement(
            P.Edit->getFilePath(), P.Edit->getOffset() - Pre,
            P.Edit->getLength() + Pre, *Formatted)))
      return E;
  }
  return Out;
}

} // namespace warpwise
