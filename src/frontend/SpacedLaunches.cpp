//===- SpacedLaunches.cpp - Launch chevrons written with spaces -----------===//
//
// nvcc reads `k << < grid, block >> > (args)` as a launch (code formatters
// that do not know CUDA write it so, as in Rodinia's particlefilter); clang
// lexes `<<<` and `>>>` only when the three characters touch. warpwise parses
// such a file with the chevrons closed up and the spaces moved behind them
// (`k <<<  grid, block >>>  (args)`): the same length, the same lines, so
// every offset clang reports is an offset of the file as it is, and the file
// itself is never changed.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Frontend.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/TokenKinds.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Token.h"
#include "llvm/Support/Regex.h"

#include <optional>
#include <vector>

namespace warpwise {

using namespace clang;

namespace {

struct RawToken {
  tok::TokenKind Kind;
  unsigned Begin, End; ///< Offsets in the buffer.
  llvm::StringRef Text;
};

std::vector<RawToken> lexRaw(llvm::StringRef Buffer) {
  LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  LO.CUDA = true;
  Lexer L(SourceLocation(), LO, Buffer.begin(), Buffer.begin(), Buffer.end());
  std::vector<RawToken> Tokens;
  Token T;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(tok::eof))
      break;
    // The lexer stands just after the token it returned.
    unsigned End = L.getBufferLocation() - Buffer.begin();
    unsigned Begin = End - T.getLength();
    Tokens.push_back(
        {T.getKind(), Begin, End, Buffer.substr(Begin, T.getLength())});
  }
  return Tokens;
}

bool onlySpaces(llvm::StringRef Buffer, unsigned From, unsigned To) {
  return Buffer.substr(From, To - From).find_first_not_of(" \t\r\n") ==
         llvm::StringRef::npos;
}

/// The tokens from \p I that spell three \p C characters with only
/// whitespace between them: the index after the last, or nothing.
std::optional<size_t> chevronRun(const std::vector<RawToken> &Toks, size_t I,
                                 llvm::StringRef Buffer, char C) {
  unsigned Count = 0;
  size_t J = I;
  for (; J < Toks.size() && Count < 3; ++J) {
    llvm::StringRef T = Toks[J].Text;
    if (T.empty() || T.find_first_not_of(C) != llvm::StringRef::npos)
      return std::nullopt;
    if (J > I && !onlySpaces(Buffer, Toks[J - 1].End, Toks[J].Begin))
      return std::nullopt;
    Count += T.size();
  }
  if (Count != 3)
    return std::nullopt;
  return J;
}

/// Moves the chevron characters of [Begin, End) to its front.
void closeUp(std::string &Out, unsigned Begin, unsigned End, char C) {
  std::string Moved(3, C);
  for (unsigned I = Begin; I < End; ++I)
    if (Out[I] != C)
      Moved += Out[I];
  Out.replace(Begin, End - Begin, Moved);
}

} // namespace

std::string closeSpacedLaunchChevrons(llvm::StringRef Contents) {
  // Cheap test first: nearly every file has no `<` or `>` after a space
  // after another.
  static const llvm::Regex Spaced("<[ \t\r\n]+<|>[ \t\r\n]+>");
  if (!Spaced.match(Contents))
    return Contents.str();
  // The lexer reads up to a terminating NUL, which a std::string has.
  const std::string Source = Contents.str();
  std::vector<RawToken> Toks = lexRaw(Source);
  std::string Out = Source;
  for (size_t I = 1; I < Toks.size(); ++I) {
    std::optional<size_t> Open;
    if (Toks[I].Kind == tok::lesslessless)
      Open = I + 1;
    else if (Toks[I].Kind == tok::lessless || Toks[I].Kind == tok::less)
      Open = chevronRun(Toks, I, Source, '<');
    // `operator<< <T>(...)` names a specialisation of operator<<.
    if (!Open || (Toks[I - 1].Kind == tok::raw_identifier &&
                  Toks[I - 1].Text == "operator"))
      continue;
    // The configuration, to the `>>>` at its own nesting level.
    int Depth = 0;
    std::optional<size_t> Close;
    size_t J = *Open;
    for (; J < Toks.size(); ++J) {
      tok::TokenKind K = Toks[J].Kind;
      if (K == tok::l_paren || K == tok::l_square || K == tok::l_brace)
        ++Depth;
      else if (K == tok::r_paren || K == tok::r_square || K == tok::r_brace) {
        if (--Depth < 0)
          break;
      } else if (K == tok::semi && Depth == 0) {
        break;
      } else if (Depth == 0 && (K == tok::greatergreatergreater ||
                                K == tok::greatergreater || K == tok::greater)) {
        Close = K == tok::greatergreatergreater
                    ? std::optional<size_t>(J + 1)
                    : chevronRun(Toks, J, Source, '>');
        if (Close)
          break;
      }
    }
    // A launch: its arguments follow.
    if (!Close || *Close >= Toks.size() || Toks[*Close].Kind != tok::l_paren)
      continue;
    if (*Open != I + 1)
      closeUp(Out, Toks[I].Begin, Toks[*Open - 1].End, '<');
    if (*Close != J + 1)
      closeUp(Out, Toks[J].Begin, Toks[*Close - 1].End, '>');
    I = *Close;
  }
  return Out;
}

} // namespace warpwise
