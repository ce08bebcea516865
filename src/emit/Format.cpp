//===- Format.cpp - clang-format for the code warpwise inserts ------------===//
#include "warpwise/Format.h"

#include "clang/Format/Format.h"

#include <vector>

namespace warpwise {

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
      clang::format::reformat(*S, Code, Ranges, Named);
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
