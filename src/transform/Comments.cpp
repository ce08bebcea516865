//===- Comments.cpp - The user's comments in code that is rewritten -------===//
#include "Comments.h"

#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <set>

namespace warpwise {

using namespace clang;

std::vector<SourceComment> commentsIn(llvm::StringRef Code, unsigned Begin,
                                      unsigned End,
                                      const LangOptions &LO) {
  std::vector<SourceComment> Out;
  End = std::min<unsigned>(End, Code.size());
  if (Begin >= End)
    return Out;
  Lexer L(SourceLocation(), LO, Code.data(), Code.data() + Begin,
          Code.data() + Code.size());
  L.SetCommentRetentionState(true);
  Token Tok;
  while (true) {
    L.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      break;
    unsigned TokEnd = L.getBufferLocation() - Code.data();
    unsigned TokBegin = TokEnd - Tok.getLength();
    if (TokBegin >= End)
      break;
    if (Tok.is(tok::comment))
      Out.push_back({TokBegin, TokEnd, Code.slice(TokBegin, TokEnd).str()});
  }
  return Out;
}

std::string normalizedComment(llvm::StringRef Text) {
  std::string Out;
  bool Space = false;
  for (char C : Text.trim()) {
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      Space = true;
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

llvm::StringRef commentBody(llvm::StringRef Text) {
  Text = Text.trim();
  if (Text.starts_with("/*") && Text.ends_with("*/") && Text.size() >= 4)
    return Text.drop_front(2).drop_back(2).trim();
  if (Text.starts_with("//"))
    return Text.ltrim('/').trim();
  return Text;
}

std::string commentLines(llvm::StringRef Comment, llvm::StringRef Indent) {
  return (Indent + Comment.rtrim() + "\n").str();
}

std::string labelledComment(llvm::StringRef Label, llvm::StringRef Comment,
                            llvm::StringRef Indent) {
  llvm::StringRef Body = commentBody(Comment);
  if (Comment.trim().starts_with("//"))
    return (Indent + "// " + Label + ":" + (Body.empty() ? "" : " ") + Body +
            "\n")
        .str();
  return (Indent + "// " + Label + ":\n").str() + commentLines(Comment, Indent);
}

bool statementExtent(const SourceManager &SM, const LangOptions &LO,
                     const Stmt *S, unsigned &Begin, unsigned &End) {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
  if (!R.isValid())
    return false;
  Begin = SM.getFileOffset(R.getBegin());
  End = SM.getFileOffset(R.getEnd());
  llvm::StringRef File = SM.getBufferData(SM.getFileID(R.getBegin()));
  if (End == 0 || End > File.size() || End <= Begin)
    return false;
  // A statement that ends in an expression (`x = 1`, `if (c) x = 1`) ends
  // at its `;`, which its range leaves out.
  if (File[End - 1] != ';' && File[End - 1] != '}') {
    SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
    SourceLocation Semi = Lexer::findLocationAfterToken(
        Last, tok::semi, SM, LO, /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (Semi.isValid() && SM.getFileID(Semi) == SM.getFileID(R.getBegin()))
      End = SM.getFileOffset(Semi);
  }
  return true;
}

namespace {

/// The statement that ends \p S when it ends in a body that is not a block
/// (`if (c) x = 1;`: `x = 1`), or null.
const Stmt *lastBody(const Stmt *S) {
  const Stmt *Body = nullptr;
  if (auto *If = dyn_cast_or_null<IfStmt>(S))
    Body = If->getElse() ? If->getElse() : If->getThen();
  else if (auto *For = dyn_cast_or_null<ForStmt>(S))
    Body = For->getBody();
  else if (auto *While = dyn_cast_or_null<WhileStmt>(S))
    Body = While->getBody();
  return Body && !isa<CompoundStmt>(Body) ? Body : nullptr;
}

/// The file offset of \p Loc's expansion.
unsigned offsetOf(const SourceManager &SM, SourceLocation Loc) {
  return SM.getFileOffset(SM.getExpansionLoc(Loc));
}

} // namespace

SideComments commentsOfSide(const SourceManager &SM, const LangOptions &LO,
                            const Stmt *Owner, const Stmt *Side) {
  SideComments Out;
  if (!Owner || !Side)
    return Out;
  SourceLocation Opens; // The last token before the side.
  SourceLocation Until; // Where the side's stretch ends, if not at its end.
  unsigned OpensLength = 1;
  if (auto *If = dyn_cast<IfStmt>(Owner)) {
    if (Side == If->getThen()) {
      Opens = If->getRParenLoc();
      Until = If->getElseLoc();
    } else if (Side == If->getElse()) {
      Opens = If->getElseLoc();
      OpensLength = 4;
    }
  } else if (auto *For = dyn_cast<ForStmt>(Owner)) {
    if (Side == For->getBody())
      Opens = For->getRParenLoc();
  } else if (auto *While = dyn_cast<WhileStmt>(Owner)) {
    if (Side == While->getBody())
      Opens = While->getRParenLoc();
  }
  unsigned SideBegin, SideEnd;
  if (Opens.isInvalid() || Opens.isMacroID() ||
      !statementExtent(SM, LO, Side, SideBegin, SideEnd))
    return Out;
  FileID File = SM.getFileID(SM.getExpansionLoc(Opens));
  if (SM.getFileID(SM.getExpansionLoc(Side->getBeginLoc())) != File)
    return Out;
  llvm::StringRef Code = SM.getBufferData(File);
  unsigned From = offsetOf(SM, Opens) + OpensLength;
  unsigned To = SideEnd;
  if (Until.isValid() && !Until.isMacroID())
    To = std::max(To, offsetOf(SM, Until));
  if (From > SideBegin)
    return Out;

  struct Extent {
    const Stmt *S;
    unsigned Begin, End;
  };
  std::vector<Extent> Stmts;
  auto *Block = dyn_cast<CompoundStmt>(Side);
  unsigned LBrace = 0, RBrace = 0;
  if (Block) {
    LBrace = offsetOf(SM, Block->getLBracLoc());
    RBrace = offsetOf(SM, Block->getRBracLoc());
    for (const Stmt *Child : Block->body()) {
      Out.Statements.push_back(Child);
      unsigned B, E;
      if (statementExtent(SM, LO, Child, B, E))
        Stmts.push_back({Child, B, E});
    }
  } else {
    Out.Statements.push_back(Side);
    Stmts.push_back({Side, SideBegin, SideEnd});
  }
  auto SameLine = [&](unsigned A, unsigned B) {
    return Code.slice(std::min(A, B), std::max(A, B)).find('\n') ==
           llvm::StringRef::npos;
  };
  // The side's own line: its `{`, or the `)` or `else` before it.
  unsigned HeaderAt = Block ? LBrace : From;
  for (SourceComment &C : commentsIn(Code, From, To, LO)) {
    if (Block && (C.Begin < LBrace || C.Begin > RBrace)) {
      (C.Begin < LBrace ? Out.Header : Out.Closing).push_back(std::move(C));
      continue;
    }
    const Extent *Prev = nullptr, *Next = nullptr, *In = nullptr;
    for (const Extent &E : Stmts) {
      if (E.Begin <= C.Begin && C.Begin < E.End)
        In = &E;
      else if (E.End <= C.Begin)
        Prev = &E;
      else if (!Next)
        Next = &E;
    }
    if (In)
      Out.Inner[In->S].push_back(std::move(C));
    else if (Prev && SameLine(Prev->End, C.Begin)) {
      // `if (c) x = 1; // c` describes `x = 1`.
      const Stmt *Owner = Prev->S;
      while (const Stmt *Body = lastBody(Owner))
        Owner = Body;
      Out.Trailing[Owner].push_back(std::move(C));
    }
    else if (!Prev && SameLine(HeaderAt, C.Begin))
      Out.Header.push_back(std::move(C));
    else if (Next)
      Out.Leading[Next->S].push_back(std::move(C));
    else
      Out.Closing.push_back(std::move(C));
  }
  return Out;
}

std::vector<SourceComment>
missingFrom(const std::string &Rendered,
            const std::vector<SourceComment> &Comments,
            const LangOptions &LO) {
  std::set<std::string> Present;
  for (const SourceComment &C : commentsIn(Rendered, 0, Rendered.size(), LO))
    Present.insert(normalizedComment(C.Text));
  std::vector<SourceComment> Out;
  for (const SourceComment &C : Comments)
    if (!Present.count(normalizedComment(C.Text)))
      Out.push_back(C);
  return Out;
}

namespace {

bool sameComment(const SourceComment &A, const SourceComment &B) {
  return normalizedComment(A.Text) == normalizedComment(B.Text);
}

/// Appends those of \p From to \p To that are not equal to one there.
void addNew(std::vector<SourceComment> &To,
            const std::vector<SourceComment> &From) {
  for (const SourceComment &C : From)
    if (std::none_of(To.begin(), To.end(), [&](const SourceComment &T) {
          return sameComment(T, C);
        }))
      To.push_back(C);
}

} // namespace

std::vector<const Stmt *> CommentKeeper::side(const Stmt *Owner,
                                              const Stmt *Side) {
  if (!Side)
    return {};
  SideComments SC = commentsOfSide(SM, LO, Owner, Side);
  using ByStmt = std::map<const Stmt *, std::vector<SourceComment>>;
  auto Add = [](ByStmt &To, const ByStmt &From) {
    for (auto &[S, Cs] : From)
      To[S].insert(To[S].end(), Cs.begin(), Cs.end());
  };
  Add(Leading, SC.Leading);
  Add(Trailing, SC.Trailing);
  Add(Inner, SC.Inner);
  Header[Side] = std::move(SC.Header);
  Closing[Side] = std::move(SC.Closing);
  if (!SC.Statements.empty())
    return SC.Statements;
  if (auto *Block = dyn_cast<CompoundStmt>(Side))
    return {Block->body_begin(), Block->body_end()};
  return {Side};
}

std::vector<SourceComment>
CommentKeeper::untaken(const std::vector<SourceComment> &Cs) {
  std::vector<SourceComment> Out;
  for (const SourceComment &C : Cs)
    if (take(C))
      Out.push_back(C);
  return Out;
}

void CommentKeeper::place(const Stmt *A, const Stmt *B, std::string Piece,
                          llvm::StringRef Indent, std::string &Text) {
  auto Of = [&](std::map<const Stmt *, std::vector<SourceComment>> &Map,
                const Stmt *S) {
    auto It = S ? Map.find(S) : Map.end();
    return It == Map.end() ? std::vector<SourceComment>() : untaken(It->second);
  };
  std::vector<SourceComment> Above = Of(Leading, A);
  addNew(Above, Of(Leading, B));
  std::vector<SourceComment> In = Of(Inner, A);
  for (const SourceComment &C : Of(Inner, B))
    In.push_back(C);
  addNew(Above, missingFrom(Piece, In, LO));
  // What trailed the statements that end them (`if (c) x = 1; // c`) and
  // were not written with code of their own.
  auto Trails = [&](const Stmt *S) {
    std::vector<SourceComment> Out;
    for (; S; S = lastBody(S))
      for (const SourceComment &C : Of(Trailing, S))
        Out.push_back(C);
    return Out;
  };
  std::vector<SourceComment> TrailA = Trails(A), TrailB;
  addNew(TrailB, Trails(B));
  TrailB.erase(std::remove_if(TrailB.begin(), TrailB.end(),
                              [&](const SourceComment &C) {
                                return std::any_of(
                                    TrailA.begin(), TrailA.end(),
                                    [&](const SourceComment &T) {
                                      return sameComment(T, C);
                                    });
                              }),
               TrailB.end());
  // One line can end in one side's comments, not in two different ones.
  if (!TrailA.empty() && !TrailB.empty()) {
    Above.insert(Above.end(), TrailA.begin(), TrailA.end());
    Above.insert(Above.end(), TrailB.begin(), TrailB.end());
    TrailA.clear();
    TrailB.clear();
  }
  for (const SourceComment &C : Above)
    Text += commentLines(C.Text, Indent);
  const std::vector<SourceComment> &Trail = TrailA.empty() ? TrailB : TrailA;
  if (!Trail.empty()) {
    bool NewLine = !Piece.empty() && Piece.back() == '\n';
    if (NewLine)
      Piece.pop_back();
    for (const SourceComment &C : Trail)
      Piece += " " + C.Text;
    if (NewLine)
      Piece += "\n";
  }
  Text += Piece;
}

void CommentKeeper::sides(
    std::map<const Stmt *, std::vector<SourceComment>> &Of, const Stmt *SideA,
    const Stmt *SideB, llvm::StringRef LabelA, llvm::StringRef LabelB,
    llvm::StringRef Indent, std::string &Text) {
  auto Get = [&](const Stmt *S) {
    auto It = S ? Of.find(S) : Of.end();
    return It == Of.end() ? std::vector<SourceComment>() : untaken(It->second);
  };
  std::vector<SourceComment> CA = Get(SideA), CB = Get(SideB);
  if (CA.size() == CB.size() &&
      std::equal(CA.begin(), CA.end(), CB.begin(), sameComment)) {
    for (const SourceComment &C : CA)
      Text += commentLines(C.Text, Indent);
    return;
  }
  for (const SourceComment &C : CA)
    Text += labelledComment(LabelA, C.Text, Indent);
  for (const SourceComment &C : CB)
    Text += labelledComment(LabelB, C.Text, Indent);
}

void CommentKeeper::headers(const Stmt *SideA, const Stmt *SideB,
                            llvm::StringRef LabelA, llvm::StringRef LabelB,
                            llvm::StringRef Indent, std::string &Text) {
  sides(Header, SideA, SideB, LabelA, LabelB, Indent, Text);
}

void CommentKeeper::closings(const Stmt *SideA, const Stmt *SideB,
                             llvm::StringRef LabelA, llvm::StringRef LabelB,
                             llvm::StringRef Indent, std::string &Text) {
  sides(Closing, SideA, SideB, LabelA, LabelB, Indent, Text);
}

std::vector<SourceComment>
CommentKeeper::leftOver(llvm::StringRef Code, unsigned Begin, unsigned End,
                        const std::string &Written) {
  std::vector<SourceComment> Left;
  for (const SourceComment &C : commentsIn(Code, Begin, End, LO))
    if (take(C))
      Left.push_back(C);
  return missingFrom(Written, Left, LO);
}

} // namespace warpwise
