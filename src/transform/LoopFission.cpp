//===- LoopFission.cpp - Loop splitting -----------------------------------===//
#include "LoopFission.h"

#include "../plan/FissionPlanner.h"
#include "Candidates.h"
#include "../analysis/MemoryAccess.h"
#include "SourceText.h"
#include "StatementSplice.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

/// What one statement of the loop body reads and writes, and why (if at all)
/// the loop cannot be split because of it.
struct Effects : Accesses {
  std::string Forbidden;
};

Effects effectsOf(const Stmt *S, const FunctionDecl *FD,
                  const SourceManager &SM) {
  Effects E;
  static_cast<Accesses &>(E) = collectAccessesAllInstances(S, FD, SM);
  auto Line = [&](const Stmt *At) {
    return std::to_string(SM.getExpansionLineNumber(At->getBeginLoc()));
  };
  if (E.OrderedCall)
    E.Forbidden = "the loop calls `" + E.OrderedName + "` (line " +
                  Line(E.OrderedCall) +
                  "), whose order across threads must not change";
  else if (E.OpaqueCall)
    E.Forbidden = "the call to `" + E.OpaqueName + "` (line " +
                  Line(E.OpaqueCall) + ") has unknown effects: " +
                  E.OpaqueWhy;
  else if (E.Jump)
    E.Forbidden = std::string("the loop contains a `") +
                  E.Jump->getStmtClassName() + "` (line " + Line(E.Jump) + ")";
  return E;
}

/// User text between two statements of a block: a comment, or a
/// preprocessor line.
struct GapItem {
  unsigned Begin, End; ///< File offsets.
  bool Directive;
};

/// The end of the line at \p P of \p Buf (before its `\r\n` or `\n`),
/// following backslash continuations.
unsigned endOfLine(llvm::StringRef Buf, unsigned P) {
  for (;;) {
    size_t NL = Buf.find('\n', P);
    if (NL == llvm::StringRef::npos)
      return Buf.size();
    unsigned E = NL > 0 && Buf[NL - 1] == '\r' ? NL - 1 : NL;
    if (E == 0 || Buf[E - 1] != '\\')
      return E;
    P = NL + 1;
  }
}

/// Collects the comments and preprocessor lines in [From, To) of \p Buf,
/// which should hold nothing else but white space. Returns the offset of the
/// first other character, or To.
unsigned scanGap(llvm::StringRef Buf, unsigned From, unsigned To,
                 std::vector<GapItem> &Items) {
  size_t NL = Buf.rfind('\n', From);
  size_t LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
  bool LineStart = Buf.slice(LineBegin, From).trim().empty();
  for (unsigned P = From; P < To;) {
    char C = Buf[P];
    if (C == '\n' || C == ' ' || C == '\t' || C == '\r' || C == '\f' ||
        C == '\v') {
      LineStart |= C == '\n';
      ++P;
      continue;
    }
    unsigned E;
    bool Directive = false;
    if (Buf.substr(P).starts_with("//")) {
      E = endOfLine(Buf, P);
    } else if (Buf.substr(P).starts_with("/*")) {
      size_t Close = Buf.find("*/", P + 2);
      if (Close == llvm::StringRef::npos)
        return P;
      E = Close + 2;
    } else if (C == '#' && LineStart) {
      E = endOfLine(Buf, P);
      Directive = true;
    } else {
      return P;
    }
    if (E > To)
      return P;
    Items.push_back({P, E, Directive});
    LineStart = false;
    P = E;
  }
  return To;
}

/// The indentation of the line \p Offset of \p Buf starts in: the white
/// space before it, or as many spaces as its column when text precedes it.
std::string indentAt(llvm::StringRef Buf, unsigned Offset) {
  size_t NL = Buf.rfind('\n', Offset); // Searches before Offset.
  size_t LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
  llvm::StringRef Before = Buf.slice(LineBegin, Offset);
  if (Before.find_first_not_of(" \t") == llvm::StringRef::npos)
    return Before.str();
  return std::string(Offset - LineBegin, ' ');
}

/// A statement of a block with the user text that belongs to it: the
/// comments (and `#pragma` lines) on the lines above it, after the statement
/// before, and the comments after it on its last line.
struct Placed {
  unsigned Begin = 0, End = 0; ///< File offsets of it with its comments.
  std::string Indent;          ///< What its first line is indented by.
  std::string Text;            ///< Its text, with its `;`.
};

/// The statements of a block, or of a stretch of one, with their comments.
struct PlacedBlock {
  std::vector<Placed> Stmts;
  /// Comments on the line of the `{` (or of what precedes the first
  /// statement), after it.
  std::vector<Placed> OnOpenLine;
  /// Comments after the last statement, on lines of their own.
  std::vector<Placed> Loose;
  /// The first gap (0: before the first statement) that holds text other
  /// than comments and `#pragma` lines (another preprocessor line, stray
  /// tokens), at file offset StopAt; Stmts.size() + 1 when none does.
  unsigned Stop = 0, StopAt = 0;
};

/// Places \p Stmts, consecutive statements of one block in the file
/// \p FID whose text is valid (not partly in a macro): the first gap starts
/// at \p OpenEnd (after the `{` or the statement before them), the last one
/// ends at \p CloseBegin (the `}` or the statement after them).
PlacedBlock placeStatements(const std::vector<const Stmt *> &Stmts,
                            unsigned OpenEnd, unsigned CloseBegin, FileID FID,
                            const SourceManager &SM, const LangOptions &LO) {
  llvm::StringRef Buf = SM.getBufferData(FID);
  PlacedBlock B;
  B.Stop = Stmts.size() + 1;
  std::vector<unsigned> CoreBegin, CoreEnd;
  std::vector<std::string> Core;
  for (const Stmt *S : Stmts) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
    unsigned Begin = SM.getFileOffset(R.getBegin()),
             End = SM.getFileOffset(R.getEnd());
    // A loop under `#pragma unroll` starts inside the pragma's line (at
    // `unroll`): the pragma line belongs to it.
    size_t NL = Buf.rfind('\n', Begin);
    size_t LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
    llvm::StringRef Line = Buf.slice(LineBegin, Begin);
    if (isa<AttributedStmt>(S) && Line.ltrim().starts_with("#"))
      Begin = LineBegin + (Line.size() - Line.ltrim().size());
    std::string Text = Buf.slice(Begin, End).rtrim(" \t").str();
    // The statement's `;` (after an expression, `return`, `do ... while`),
    // with any comment before it: `x = y /* why */;`.
    if (!Text.empty() && Text.back() != ';' && Text.back() != '}') {
      std::vector<GapItem> Ignored;
      unsigned Next = scanGap(Buf, End, CloseBegin, Ignored);
      bool Directives =
          llvm::any_of(Ignored, [](const GapItem &It) { return It.Directive; });
      if (Next < CloseBegin && Buf[Next] == ';' && !Directives) {
        End = Next + 1;
        Text = Buf.slice(Begin, End).str();
      } else {
        Text = withSemicolon(S, Text, SM, LO);
      }
    }
    CoreBegin.push_back(Begin);
    CoreEnd.push_back(End);
    Core.push_back(Text);
  }
  for (unsigned I = 0; I < Stmts.size(); ++I)
    B.Stmts.push_back(
        {CoreBegin[I], CoreEnd[I], indentAt(Buf, CoreBegin[I]), Core[I]});
  for (unsigned G = 0; G <= Stmts.size(); ++G) {
    unsigned From = G ? CoreEnd[G - 1] : OpenEnd;
    unsigned To = G < Stmts.size() ? CoreBegin[G] : CloseBegin;
    std::vector<GapItem> Items;
    unsigned Stopped = From <= To ? scanGap(Buf, From, To, Items) : From;
    unsigned PrevLine = SM.getLineNumber(FID, From ? From - 1 : 0);
    std::vector<Placed> Leading;
    for (const GapItem &It : Items) {
      Placed P{It.Begin, It.End, indentAt(Buf, It.Begin),
               Buf.slice(It.Begin, It.End).str()};
      bool Trailing = SM.getLineNumber(FID, It.Begin) == PrevLine;
      if (It.Directive && !P.Text.empty() &&
          !llvm::StringRef(P.Text).drop_front().ltrim().starts_with("pragma")) {
        Stopped = It.Begin;
        break;
      }
      if (Trailing && G > 0) {
        Placed &Prev = B.Stmts[G - 1];
        Prev.Text += Buf.slice(Prev.End, It.End).str();
        Prev.End = It.End;
      } else if (Trailing) {
        B.OnOpenLine.push_back(P);
      } else if (G < Stmts.size()) {
        Leading.push_back(P);
      } else {
        B.Loose.push_back(P);
      }
    }
    if (Stopped < To) {
      B.Stop = G;
      B.StopAt = Stopped;
      return B;
    }
    if (!Leading.empty()) {
      Placed &Next = B.Stmts[G];
      Next.Text =
          Buf.slice(Leading.front().Begin, Next.Begin).str() + Next.Text;
      Next.Begin = Leading.front().Begin;
      Next.Indent = Leading.front().Indent;
    }
  }
  return B;
}

struct UnionFind {
  std::vector<unsigned> P;
  explicit UnionFind(unsigned N) : P(N) { std::iota(P.begin(), P.end(), 0); }
  unsigned find(unsigned X) { return P[X] == X ? X : P[X] = find(P[X]); }
  void unite(unsigned A, unsigned B) { P[find(A)] = find(B); }
};

/// The effects of \p Loop's header. Its Forbidden says why the copies would
/// not run the same iterations and leave the same state: the header may
/// change only the variables its initialiser declares or sets, and store
/// nothing.
Effects headerEffects(const ForStmt *Loop, const FunctionDecl *FD,
                      const SourceManager &SM) {
  Effects Header;
  std::set<const VarDecl *> Counters;
  if (auto *Init = dyn_cast_or_null<DeclStmt>(Loop->getInit()))
    for (const Decl *D : Init->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        Counters.insert(V);
  // `int j; for (j = 0; ...)`: a counter declared outside but set by the
  // initialiser starts again in every copy and ends with the same value.
  std::function<void(const Expr *)> Assigned = [&](const Expr *E) {
    auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (!B)
      return;
    if (B->getOpcode() == BO_Comma) {
      Assigned(B->getLHS());
      Assigned(B->getRHS());
    } else if (B->getOpcode() == BO_Assign) {
      if (auto *R = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts()))
        if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
          if (V->hasLocalStorage() && !V->getType()->isReferenceType())
            Counters.insert(V);
    }
  };
  if (auto *Init = dyn_cast_or_null<Expr>(Loop->getInit()))
    Assigned(Init);
  for (const Stmt *H : {static_cast<const Stmt *>(Loop->getInit()),
                        static_cast<const Stmt *>(Loop->getCond()),
                        static_cast<const Stmt *>(Loop->getInc())})
    if (H) {
      Effects E = effectsOf(H, FD, SM);
      Header.merge(E);
      if (!Header.Forbidden.empty())
        continue;
      if (!E.Forbidden.empty() || !E.MemWrites.empty() || E.UnknownWrite)
        Header.Forbidden = "its header has side effects beyond the counter";
      for (const VarDecl *V : E.Defs)
        if (Header.Forbidden.empty() && !Counters.count(V))
          Header.Forbidden = "its header changes `" + V->getNameAsString() +
                             "`, declared outside the loop: every copy "
                             "would change it again";
    }
  return Header;
}

/// The effects of each of \p Stmts, the loop body, into \p Eff; returns why
/// one of them forbids the split (against the \p Header too), or "".
std::string bodyEffects(const std::vector<const Stmt *> &Stmts,
                        const Effects &Header, const FunctionDecl *FD,
                        AliasFacts &Facts, const SourceManager &SM,
                        const LangOptions &LO, std::vector<Effects> &Eff) {
  std::string Forbidden = Header.Forbidden;
  for (const Stmt *S : Stmts) {
    Eff.push_back(effectsOf(S, FD, SM));
    std::string At =
        std::to_string(SM.getExpansionLineNumber(S->getBeginLoc()));
    if (Forbidden.empty() && !Eff.back().Forbidden.empty())
      Forbidden = Eff.back().Forbidden;
    if (Forbidden.empty() && Eff.back().UnknownWrite)
      Forbidden = "a store at line " + At +
                  " writes through an expression warpwise cannot name";
    for (const VarDecl *V : Eff.back().Defs)
      if (Forbidden.empty() && Header.Uses.count(V))
        Forbidden = "the body changes `" + V->getNameAsString() +
                    "`, which the loop header reads";
    for (const VarDecl *W : Eff.back().MemWrites)
      for (const VarDecl *R : Header.MemReads)
        if (Forbidden.empty() && mayAlias(W, R, &Facts))
          Forbidden = "the body writes memory through `" +
                      W->getNameAsString() +
                      "` that the loop header may read through `" +
                      R->getNameAsString() + "`";
    if (Forbidden.empty() && Header.UnknownRead &&
        !Eff.back().MemWrites.empty())
      Forbidden = "the loop header reads memory warpwise cannot name, and "
                  "the body writes memory";
    if (Forbidden.empty() &&
        !Lexer::makeFileCharRange(
             CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO)
             .isValid())
      Forbidden =
          "a statement at line " + At + " is only partly inside a macro";
  }
  return Forbidden;
}

/// The loop body's statements in dependence groups.
struct Grouping {
  /// Declarations that only read what the loop never writes: recomputed in
  /// every copy that needs them, they tie no statements together.
  std::vector<bool> Replicable;
  std::map<const VarDecl *, unsigned> DeclaredBy;
  std::map<unsigned, std::vector<unsigned>> Groups; ///< root -> members
  std::vector<unsigned> Order;                      ///< Roots, in order.
  std::string Tie; ///< Why the last two groups united were.
  /// Each union of two groups: the statements and what ties them.
  struct Edge {
    unsigned A, B;
    std::string Why;
  };
  std::vector<Edge> Edges;
};

/// What \p W writes that \p O reads or writes through possibly aliasing
/// memory, in words; "" if nothing.
std::string memoryConflict(const Effects &W, const Effects &O,
                           AliasFacts &Facts) {
  for (const VarDecl *A : W.MemWrites) {
    for (const VarDecl *B : O.MemReads)
      if (mayAlias(A, B, &Facts))
        return "memory through `" + A->getNameAsString() + "` and `" +
               B->getNameAsString() + "`";
    for (const VarDecl *B : O.MemWrites)
      if (mayAlias(A, B, &Facts))
        return "memory through `" + A->getNameAsString() + "` and `" +
               B->getNameAsString() + "`";
    if (O.UnknownRead)
      return "memory through `" + A->getNameAsString() +
             "` and a load warpwise cannot name";
  }
  return std::string();
}

Grouping groupStatements(const std::vector<const Stmt *> &Stmts,
                         const std::vector<Effects> &Eff, AliasFacts &Facts,
                         const SourceManager &SM) {
  Grouping G;
  std::set<const VarDecl *> WrittenInBody;
  for (const Effects &E : Eff)
    WrittenInBody.insert(E.Defs.begin(), E.Defs.end());
  G.Replicable.assign(Stmts.size(), false);
  for (unsigned I = 0; I < Stmts.size(); ++I) {
    auto *DS = dyn_cast<DeclStmt>(Stmts[I]);
    if (!DS || !DS->isSingleDecl())
      continue;
    auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit() || V->getType()->isArrayType())
      continue;
    bool OK = Eff[I].MemReads.empty() && !Eff[I].UnknownRead;
    for (const VarDecl *U : Eff[I].Uses)
      if (U != V && WrittenInBody.count(U) &&
          !(G.DeclaredBy.count(U) && G.Replicable[G.DeclaredBy[U]]))
        OK = false;
    for (unsigned J = 0; J < Stmts.size(); ++J)
      if (J != I && Eff[J].Defs.count(V))
        OK = false;
    G.Replicable[I] = OK;
    G.DeclaredBy[V] = I;
  }
  // Group the other statements: shared variables and possibly aliasing
  // memory (a write against any access) tie statements together.
  UnionFind UF(Stmts.size());
  for (unsigned I = 0; I < Stmts.size(); ++I)
    for (unsigned J = I + 1; J < Stmts.size(); ++J) {
      if (G.Replicable[I] || G.Replicable[J])
        continue;
      std::string Why;
      for (const VarDecl *V : Eff[I].Defs)
        if (Eff[J].Uses.count(V) || Eff[J].Defs.count(V))
          Why = "`" + V->getNameAsString() + "`";
      for (const VarDecl *V : Eff[J].Defs)
        if (Why.empty() && (Eff[I].Uses.count(V) || Eff[I].Defs.count(V)))
          Why = "`" + V->getNameAsString() + "`";
      if (Why.empty())
        Why = memoryConflict(Eff[I], Eff[J], Facts);
      if (Why.empty())
        Why = memoryConflict(Eff[J], Eff[I], Facts);
      if (!Why.empty() && UF.find(I) != UF.find(J)) {
        UF.unite(I, J);
        G.Edges.push_back({I, J, "share " + Why});
        G.Tie =
            "statements at lines " +
            std::to_string(SM.getExpansionLineNumber(Stmts[I]->getBeginLoc())) +
            " and " +
            std::to_string(SM.getExpansionLineNumber(Stmts[J]->getBeginLoc())) +
            " share " + Why;
      }
    }
  // Groups that read the same arrays stay together: splitting them would
  // load the same data twice (the paper splits by input arrays too).
  for (unsigned I = 0; I < Stmts.size(); ++I)
    for (unsigned J = I + 1; J < Stmts.size(); ++J)
      if (!G.Replicable[I] && !G.Replicable[J])
        for (const VarDecl *V : Eff[I].MemReads)
          if (Eff[J].MemReads.count(V) && UF.find(I) != UF.find(J)) {
            UF.unite(I, J);
            G.Edges.push_back({I, J,
                               "both read `" + V->getNameAsString() +
                                   "` (kept together to load it once)"});
          }
  for (unsigned I = 0; I < Stmts.size(); ++I) {
    if (G.Replicable[I])
      continue;
    unsigned R = UF.find(I);
    if (!G.Groups.count(R))
      G.Order.push_back(R);
    G.Groups[R].push_back(I);
  }
  return G;
}

/// True when \p X and \p Y touch a variable or possibly aliasing memory
/// that one of them writes, or cannot say what they touch.
bool conflict(const Effects &X, const Effects &Y, AliasFacts &Facts) {
  for (const VarDecl *V : X.Defs)
    if (Y.Uses.count(V) || Y.Defs.count(V))
      return true;
  for (const VarDecl *V : Y.Defs)
    if (X.Uses.count(V))
      return true;
  for (const VarDecl *A : X.MemWrites) {
    for (const VarDecl *B : Y.MemReads)
      if (mayAlias(A, B, &Facts))
        return true;
    for (const VarDecl *B : Y.MemWrites)
      if (mayAlias(A, B, &Facts))
        return true;
  }
  for (const VarDecl *A : Y.MemWrites)
    for (const VarDecl *B : X.MemReads)
      if (mayAlias(A, B, &Facts))
        return true;
  if ((X.UnknownRead && !Y.MemWrites.empty()) ||
      (Y.UnknownRead && !X.MemWrites.empty()))
    return true;
  return X.UnknownWrite || Y.UnknownWrite || !X.Forbidden.empty() ||
         !Y.Forbidden.empty() || X.Jump || Y.Jump;
}

/// One loop fission may split, and what it found out about it.
struct Candidate {
  const ForStmt *Loop = nullptr;
  const FunctionDecl *FD = nullptr;
  std::string InFile; ///< The loop's file, normalised.
  FileID File;
  unsigned Begin = 0, End = 0; ///< The loop's bytes in File.
  std::vector<const Stmt *> Stmts;
  std::vector<Effects> Eff;
  Effects Header;
  PlacedBlock Inside; ///< Stmts with their comments.
  Grouping G;
  /// The statements right after the loop in its block that may move up,
  /// with their effects and comments (from the loop's `}` on).
  std::vector<const Stmt *> After;
  std::vector<Effects> AfterEff;
  PlacedBlock Behind;
};

/// Finds the statements after the loop that fission may move up: up to the
/// first one an earlier decision rewrites (the replaced range must not reach
/// into it), written partly in a macro, or after a preprocessor line.
void statementsAfter(Candidate &C, TransformContext &TC) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const auto *Parent =
      dyn_cast_or_null<CompoundStmt>(statementParent(C.Loop, Ctx));
  if (!Parent)
    return;
  const Stmt *Self = asWritten(C.Loop, Ctx);
  unsigned Until = SM.getFileOffset(SM.getExpansionLoc(Parent->getRBracLoc()));
  bool Seen = false;
  for (const Stmt *S : Parent->body()) {
    if (Seen) {
      CharSourceRange SR = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
      if (!SR.isValid())
        break;
      unsigned SB = SM.getFileOffset(SR.getBegin()),
               SE = SM.getFileOffset(SR.getEnd());
      if (TC.claimed(C.InFile, SB, SE)) {
        Until = SB;
        break;
      }
      C.After.push_back(S);
    }
    Seen |= S == Self;
  }
  C.Behind = placeStatements(C.After, C.End, Until, C.File, SM, LO);
  if (C.Behind.Stop <= C.After.size()) {
    C.After.resize(C.Behind.Stop);
    C.Behind.Stmts.resize(C.Behind.Stop);
  }
  for (const Stmt *S : C.After)
    C.AfterEff.push_back(effectsOf(S, C.FD, SM));
}

/// The `#pragma` lines right above the loop at \p Begin of \p Buffer (they
/// belong to every copy), trimmed; \p ReplaceBegin becomes the start of the
/// first one's line.
std::vector<std::string> pragmasAbove(llvm::StringRef Buffer, unsigned Begin,
                                      unsigned &ReplaceBegin) {
  std::vector<std::string> Pragmas;
  ReplaceBegin = Begin;
  size_t LineStart = Buffer.rfind('\n', Begin); // Searches before Begin.
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  bool OnlySpace = Buffer.substr(LineStart, Begin - LineStart).trim().empty();
  while (OnlySpace && LineStart > 0) {
    size_t Prev = Buffer.rfind('\n', LineStart - 1);
    Prev = Prev == llvm::StringRef::npos ? 0 : Prev + 1;
    llvm::StringRef L = Buffer.substr(Prev, LineStart - 1 - Prev).trim();
    if (!L.starts_with("#pragma"))
      break;
    Pragmas.insert(Pragmas.begin(), L.str());
    ReplaceBegin = Prev;
    LineStart = Prev;
  }
  return Pragmas;
}

/// True when \p Text names \p Name as an identifier.
bool namesIdentifier(llvm::StringRef Text, llvm::StringRef Name) {
  auto IsIdent = [](char Ch) { return isAlphanumeric(Ch) || Ch == '_'; };
  for (size_t P = Text.find(Name); P != llvm::StringRef::npos;
       P = Text.find(Name, P + 1)) {
    size_t E = P + Name.size();
    if ((P == 0 || !IsIdent(Text[P - 1])) &&
        (E == Text.size() || !IsIdent(Text[E])))
      return true;
  }
  return false;
}

/// True when moving the declaration \p S up, above \p Texts and the
/// statements of \p Eff, could change what one of their names means: one
/// of its variables' names is written in them or names another variable
/// there (an outer declaration the moved one would hide, spelled through a
/// macro included).
bool wouldHide(const Stmt *S, const std::vector<llvm::StringRef> &Texts,
               const std::vector<const Effects *> &Eff) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS)
    return false;
  for (const Decl *D : DS->decls()) {
    const auto *ND = dyn_cast<NamedDecl>(D);
    if (!ND || !ND->getIdentifier())
      return true;
    llvm::StringRef Name = ND->getName();
    for (llvm::StringRef T : Texts)
      if (namesIdentifier(T, Name))
        return true;
    for (const Effects *E : Eff)
      for (const auto *Set : {&E->Uses, &E->Defs})
        for (const VarDecl *V : *Set)
          if (V != ND && V->getName() == Name)
            return true;
  }
  return false;
}

/// Whether the statement \p A after the loop may move up, above the later
/// copies (\p Later, their texts \p LaterTexts and effects \p LaterEff)
/// and above the statements after the loop it would jump over. A statement
/// before it that it depends on blocks it, unless that one is a declaration
/// that may move up with it (\p Carried, in order): `float ra = 0, rb = 0;`
/// above the loop over `ra`'s terms.
bool movesUp(const Candidate &C, size_t A, const std::vector<bool> &Moved,
             const Effects &Later, AliasFacts &Facts,
             const std::vector<llvm::StringRef> &LaterTexts,
             const std::vector<const Effects *> &LaterEff,
             std::vector<size_t> &Carried) {
  // The texts and effects of the statements a moved one jumps over (the
  // unmoved ones before it), which then follow it.
  auto Hides = [&](size_t M) {
    std::vector<llvm::StringRef> Texts = LaterTexts;
    std::vector<const Effects *> Eff = LaterEff;
    for (size_t K = 0; K < M; ++K)
      if (!Moved[K] && !llvm::is_contained(Carried, K)) {
        Texts.push_back(C.Behind.Stmts[K].Text);
        Eff.push_back(&C.AfterEff[K]);
      }
    return wouldHide(C.After[M], Texts, Eff);
  };
  for (size_t J = 0; J < A; ++J) {
    if (Moved[J] || !conflict(C.AfterEff[A], C.AfterEff[J], Facts))
      continue;
    if (!isa<DeclStmt>(C.After[J]) || conflict(C.AfterEff[J], Later, Facts))
      return false;
    for (size_t K = 0; K < J; ++K)
      if (!Moved[K] && !llvm::is_contained(Carried, K) &&
          conflict(C.AfterEff[J], C.AfterEff[K], Facts))
        return false;
    if (Hides(J))
      return false;
    Carried.push_back(J);
  }
  return !Hides(A);
}

/// Each copy's statements (indices into C.Stmts): its group's, with the
/// replicated declarations they use (and those use). A declaration no copy
/// uses stays in the first, with its comments.
std::vector<std::set<unsigned>> loopMembers(const Candidate &C) {
  const Grouping &G = C.G;
  std::vector<std::set<unsigned>> LoopMembers;
  std::set<unsigned> Written;
  for (unsigned R : G.Order) {
    std::set<unsigned> Members(G.Groups.at(R).begin(), G.Groups.at(R).end());
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (unsigned I : std::set<unsigned>(Members))
        for (const VarDecl *U : C.Eff[I].Uses)
          if (G.DeclaredBy.count(U) && G.Replicable[G.DeclaredBy.at(U)] &&
              Members.insert(G.DeclaredBy.at(U)).second)
            Grew = true;
    }
    Written.insert(Members.begin(), Members.end());
    LoopMembers.push_back(Members);
  }
  for (unsigned I = 0; I < C.Stmts.size(); ++I)
    if (!Written.count(I))
      LoopMembers[0].insert(I);
  return LoopMembers;
}

/// The split loops' text: the decision's mark, then one copy of the loop
/// per group (\p Head its text up to the `{`, \p Indent its indentation)
/// with the statements of the group and the replicated declarations they
/// use, each copy followed by the statements after the loop that consume
/// only its group's results and touch nothing (variables or possibly
/// aliasing memory) that a later copy or a statement they jump over
/// touches (declarations included, see movesUp): its values die before the
/// next copy starts, which is what lowers the pressure. \p LastMoved becomes
/// one past the last of C.After moved; those jumped over follow the last copy.
std::string writeLoops(const Candidate &C, AliasFacts &Facts,
                       const std::vector<std::string> &Pragmas,
                       const std::string &Indent, const std::string &Head,
                       unsigned &LastMoved) {
  const Grouping &G = C.G;
  std::vector<std::set<unsigned>> LoopMembers = loopMembers(C);
  // The decision's comment goes first, filled in once it is applied.
  std::string Out = std::string(DecisionMark) + "\n";
  std::vector<bool> Moved(C.After.size(), false);
  LastMoved = 0;
  for (size_t GI = 0; GI < G.Order.size(); ++GI) {
    for (const std::string &P : Pragmas)
      Out += Indent + P + "\n";
    Out += Indent + Head + "{";
    // The comments of the body that belong to no statement stay in the
    // first loop: those on the `{` line, and those after the last
    // statement.
    if (GI == 0)
      for (const Placed &P : C.Inside.OnOpenLine)
        Out += " " + P.Text;
    Out += "\n";
    for (unsigned I : LoopMembers[GI])
      Out += C.Inside.Stmts[I].Indent + C.Inside.Stmts[I].Text + "\n";
    if (GI == 0)
      for (const Placed &P : C.Inside.Loose)
        Out += P.Indent + P.Text + "\n";
    Out += Indent + "}";
    if (GI + 1 == G.Order.size()) {
      // A comment on the loop's `}` line goes with the last copy's, as when
      // nothing moves (and it stays where it is).
      if (LastMoved > 0)
        for (const Placed &P : C.Behind.OnOpenLine)
          Out += " " + P.Text;
      Out += "\n";
      break;
    }
    Out += "\n";
    // What this group defines, and what the later groups do.
    Effects Mine, Later;
    for (unsigned I : LoopMembers[GI])
      Mine.Defs.insert(C.Eff[I].Defs.begin(), C.Eff[I].Defs.end());
    // Every later copy re-runs the header: a statement moved above it must
    // not change what the header reads.
    Later.Uses.insert(C.Header.Uses.begin(), C.Header.Uses.end());
    Later.MemReads.insert(C.Header.MemReads.begin(), C.Header.MemReads.end());
    Later.UnknownRead |= C.Header.UnknownRead;
    for (size_t GJ = GI + 1; GJ < G.Order.size(); ++GJ)
      for (unsigned I : G.Groups.at(G.Order[GJ])) {
        const Effects &E = C.Eff[I];
        Later.Defs.insert(E.Defs.begin(), E.Defs.end());
        Later.Uses.insert(E.Uses.begin(), E.Uses.end());
        Later.MemReads.insert(E.MemReads.begin(), E.MemReads.end());
        Later.MemWrites.insert(E.MemWrites.begin(), E.MemWrites.end());
      }
    // What the later copies name: a declaration moved above them must not
    // hide a variable of the same name they mean.
    std::vector<llvm::StringRef> LaterTexts = {Head};
    std::vector<const Effects *> LaterEff = {&C.Header};
    for (size_t GJ = GI + 1; GJ < G.Order.size(); ++GJ)
      for (unsigned I : LoopMembers[GJ]) {
        LaterTexts.push_back(C.Inside.Stmts[I].Text);
        LaterEff.push_back(&C.Eff[I]);
      }
    for (size_t A = 0; A < C.After.size(); ++A) {
      if (Moved[A])
        continue;
      bool Consumer = false;
      for (const VarDecl *V : C.AfterEff[A].Uses)
        Consumer |= Mine.Defs.count(V) > 0;
      if (!Consumer || conflict(C.AfterEff[A], Later, Facts))
        continue;
      std::vector<size_t> Carried;
      if (!movesUp(C, A, Moved, Later, Facts, LaterTexts, LaterEff, Carried))
        continue;
      Carried.push_back(A);
      for (size_t M : Carried) {
        Moved[M] = true;
        LastMoved = std::max<unsigned>(LastMoved, M + 1);
        Out += C.Behind.Stmts[M].Indent + C.Behind.Stmts[M].Text + "\n";
        // What a moved statement defines dies early too if its own
        // consumers follow it (`float r = s0 + s1; out[t] = r;`).
        Mine.Defs.insert(C.AfterEff[M].Defs.begin(), C.AfterEff[M].Defs.end());
      }
    }
  }
  // The statements jumped over keep their order after the last loop.
  for (unsigned A = 0; A < LastMoved; ++A)
    if (!Moved[A])
      Out += C.Behind.Stmts[A].Indent + C.Behind.Stmts[A].Text + "\n";
  Out.pop_back();
  return Out;
}

/// The replacement of the bytes from \p ReplaceBegin (moved to the start of
/// its line where the decision's comment must start in column 0): \p Loops
/// in braces where the loop is the whole body of a loop, branch, label or
/// case (they must stay in it together), else as they are.
std::string placeLoops(const Candidate &C, ASTContext &Ctx,
                       const std::string &Loops, const std::string &Indent,
                       unsigned Begin, unsigned &ReplaceBegin) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::StringRef Buffer = SM.getBufferData(C.File);
  bool FromLineStart = ReplaceBegin != Begin;
  if (needsBracesWhenReplaced(C.Loop, Ctx)) {
    const Stmt *Holder = statementParent(C.Loop, Ctx);
    std::string OuterIndent = indentAt(
        Buffer, SM.getFileOffset(SM.getExpansionLoc(Holder->getBeginLoc())));
    return (FromLineStart ? OuterIndent : "") +
           inBraces(Indent + Loops, OuterIndent);
  }
  // Under a user's line comment the decision's comment starts in column 0,
  // and the formatting step indents it: clang-format continues a comment
  // section only with comments that start at its column or further right,
  // so it keeps the two comments apart instead of reflowing one into the
  // other.
  size_t NL = Buffer.rfind('\n', ReplaceBegin);
  unsigned LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
  llvm::StringRef Above =
      LineBegin
          ? Buffer.slice(Buffer.rfind('\n', LineBegin - 1) + 1, LineBegin - 1)
          : "";
  if (Buffer.slice(LineBegin, ReplaceBegin).trim().empty() &&
      Above.trim().starts_with("//")) {
    ReplaceBegin = LineBegin;
    return Loops;
  }
  return (FromLineStart ? Indent : "") + Loops;
}

/// Why the body's text cannot be split at \p Inside's stop, in words.
std::string misplaced(const PlacedBlock &Inside, FileID File,
                      const SourceManager &SM) {
  llvm::StringRef Buf = SM.getBufferData(File);
  llvm::StringRef What =
      Buf.slice(Inside.StopAt, endOfLine(Buf, Inside.StopAt)).rtrim();
  return "its body has `" +
         (What.size() > 60 ? What.take_front(57).str() + "..." : What.str()) +
         "` at line " + std::to_string(SM.getLineNumber(File, Inside.StopAt)) +
         " between statements, which the split loops could not keep in place";
}

/// An inner loop of a nest that fission splits together with the outer
/// loop: a candidate of its own (statements, effects, groups; nothing after
/// it moves, the outer split places what follows it), and the outer body's
/// statement it is (the loop, or its `#pragma`).
struct InnerSplit {
  Candidate C;
  const Stmt *AsWritten = nullptr;
  unsigned Line = 0;
};

/// Whether \p S, a statement of an outer loop's body, is a loop that fission
/// may split on its own, checked as run() checks a loop: into \p In.
bool innerSplit(const Stmt *S, const FunctionDecl *FD, AliasFacts &Facts,
                const SourceManager &SM, const LangOptions &LO,
                InnerSplit &In) {
  const Stmt *Inner = S;
  if (auto *A = dyn_cast<AttributedStmt>(Inner))
    Inner = A->getSubStmt();
  auto *Loop = dyn_cast<ForStmt>(Inner);
  auto *Body = Loop ? dyn_cast<CompoundStmt>(Loop->getBody()) : nullptr;
  if (!Body || Body->size() < 2 || Loop->getBeginLoc().isMacroID())
    return false;
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Loop->getSourceRange()), SM, LO);
  if (!Range.isValid())
    return false;
  Candidate &C = In.C;
  C.Loop = Loop;
  C.FD = FD;
  C.File = SM.getFileID(Range.getBegin());
  C.Begin = SM.getFileOffset(Range.getBegin());
  C.End = SM.getFileOffset(Range.getEnd());
  C.Header = headerEffects(Loop, FD, SM);
  C.Stmts.assign(Body->body_begin(), Body->body_end());
  if (!bodyEffects(C.Stmts, C.Header, FD, Facts, SM, LO, C.Eff).empty())
    return false;
  C.Inside = placeStatements(
      C.Stmts, SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) + 1,
      SM.getFileOffset(SM.getExpansionLoc(Body->getRBracLoc())), C.File, SM,
      LO);
  if (C.Inside.Stop <= C.Stmts.size())
    return false;
  C.G = groupStatements(C.Stmts, C.Eff, Facts, SM);
  In.AsWritten = S;
  In.Line = SM.getExpansionLineNumber(Loop->getBeginLoc());
  return C.G.Groups.size() >= 2;
}

/// The text of copy \p GI of the inner loop \p In (its statements
/// \p Members), placed in the outer copy as the loop was (\p P: with its
/// comments and `#pragma` lines). The first copy keeps the comments around
/// the loop and those of its body that belong to no statement; every copy
/// keeps the `#pragma` lines above the loop.
Placed innerCopy(const InnerSplit &In, const Placed &P,
                 const std::set<unsigned> &Members, bool First,
                 const SourceManager &SM) {
  const Candidate &C = In.C;
  llvm::StringRef Buf = SM.getBufferData(C.File);
  unsigned LBrace = SM.getFileOffset(
      SM.getExpansionLoc(cast<CompoundStmt>(C.Loop->getBody())->getLBracLoc()));
  std::string Indent = indentAt(Buf, C.Begin);
  std::string Head = Buf.slice(C.Begin, LBrace).str();
  std::string Body = "{";
  if (First)
    for (const Placed &Q : C.Inside.OnOpenLine)
      Body += " " + Q.Text;
  Body += "\n";
  for (unsigned I : Members)
    Body += C.Inside.Stmts[I].Indent + C.Inside.Stmts[I].Text + "\n";
  if (First)
    for (const Placed &Q : C.Inside.Loose)
      Body += Q.Indent + Q.Text + "\n";
  Body += Indent + "}";
  Placed Copy = P;
  if (First) {
    Copy.Text = Buf.slice(P.Begin, C.Begin).str() + Head + Body +
                Buf.slice(C.End, P.End).str();
    return Copy;
  }
  unsigned Ignored;
  Copy.Indent = Indent;
  Copy.Text.clear();
  for (const std::string &Pragma : pragmasAbove(Buf, C.Begin, Ignored))
    Copy.Text += Pragma + "\n" + Indent;
  Copy.Text += Head + Body;
  return Copy;
}

/// Replaces each inner loop of \p Inner in the outer loop \p C's body by
/// its copies, as statements of their own, and groups the body again. A
/// copy's effects are the inner header's and its statements', less the
/// variables declared inside the inner loop (every copy declares its own):
/// what fission of the outer loop would find in the text the inner split
/// writes.
void expandNest(Candidate &C, const std::vector<InnerSplit> &Inner,
                AliasFacts &Facts, const SourceManager &SM,
                std::vector<std::string> &Names) {
  std::vector<const Stmt *> Stmts;
  std::vector<Effects> Eff;
  std::vector<Placed> Texts;
  for (unsigned I = 0; I < C.Stmts.size(); ++I) {
    const InnerSplit *In = nullptr;
    for (const InnerSplit &S : Inner)
      if (S.AsWritten == C.Stmts[I])
        In = &S;
    if (!In) {
      Names.push_back(
          "the statement at line " +
          std::to_string(SM.getExpansionLineNumber(C.Stmts[I]->getBeginLoc())));
      Stmts.push_back(C.Stmts[I]);
      Eff.push_back(C.Eff[I]);
      Texts.push_back(C.Inside.Stmts[I]);
      continue;
    }
    auto Local = [&](const VarDecl *V) {
      SourceLocation L = SM.getExpansionLoc(V->getLocation());
      unsigned Off = SM.getFileOffset(L);
      return SM.getFileID(L) == In->C.File && Off >= In->C.Begin &&
             Off < In->C.End;
    };
    std::vector<std::set<unsigned>> Members = loopMembers(In->C);
    for (unsigned GI = 0; GI < Members.size(); ++GI) {
      Effects E = In->C.Header;
      for (unsigned M : Members[GI])
        E.merge(In->C.Eff[M]);
      for (auto *Set : {&E.Defs, &E.Uses})
        for (auto It = Set->begin(); It != Set->end();)
          It = Local(*It) ? Set->erase(It) : std::next(It);
      Names.push_back("copy " + std::to_string(GI + 1) +
                      " of the inner loop at line " + std::to_string(In->Line));
      Stmts.push_back(C.Stmts[I]);
      Eff.push_back(E);
      Texts.push_back(
          innerCopy(*In, C.Inside.Stmts[I], Members[GI], GI == 0, SM));
    }
  }
  C.Stmts = Stmts;
  C.Eff = Eff;
  C.Inside.Stmts = Texts;
  C.G = groupStatements(C.Stmts, C.Eff, Facts, SM);
}

/// Why two copies of an inner loop, statements \p From and \p To of the
/// expanded body grouped as \p G (named \p Names), are in one group: the
/// ties on the path between them, in words.
std::string tiePath(const Grouping &G, const std::vector<std::string> &Names,
                    unsigned From, unsigned To) {
  // The edges form a forest: search it breadth first from From.
  std::map<unsigned, const Grouping::Edge *> Via;
  std::vector<unsigned> Queue = {From};
  Via[From] = nullptr;
  for (size_t Q = 0; Q < Queue.size() && !Via.count(To); ++Q)
    for (const Grouping::Edge &E : G.Edges)
      for (auto [X, Y] : {std::pair(E.A, E.B), std::pair(E.B, E.A)})
        if (X == Queue[Q] && !Via.count(Y)) {
          Via[Y] = &E;
          Queue.push_back(Y);
        }
  std::string Path;
  for (unsigned At = To; Via.count(At) && Via.at(At);) {
    const Grouping::Edge *E = Via.at(At);
    Path = Names[E->A] + " and " + Names[E->B] + " " + E->Why +
           (Path.empty() ? "" : "; " + Path);
    At = E->A == At ? E->B : E->A;
  }
  return Path;
}

/// The inner loops of \p Inner by line, in words.
std::string innerLines(const std::vector<InnerSplit> &Inner) {
  std::string Lines;
  for (size_t I = 0; I < Inner.size(); ++I)
    Lines += (I == 0                  ? ""
              : I + 1 == Inner.size() ? " and "
                                      : ", ") +
             std::to_string(Inner[I].Line);
  return (Inner.size() > 1 ? "inner loops at lines " : "inner loop at line ") +
         Lines;
}

/// The outer loop \p C, whose body is one dependence group, as a nest:
/// when inner loops of its body split on their own and, with them split,
/// the outer body falls into groups with no dependence between them, \p C
/// becomes the nest's candidate (its body's statements the inner copies)
/// and \p Inner those loops. Returns why the nest does not split, after
/// "; " ("" when no inner loop splits or the nest does).
std::string nestCandidate(Candidate &C, const TransformContext &TC,
                          AliasFacts &Facts, std::vector<InnerSplit> &Inner) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  for (const Stmt *S : C.Stmts) {
    InnerSplit In;
    // An inner loop whose fission is disabled (a pragma, the configuration)
    // stays whole.
    if (innerSplit(S, C.FD, Facts, SM, TC.Ctx.getLangOpts(), In) &&
        !TC.steer("fission", C.FD, In.C.Loop->getBeginLoc()).disabled())
      Inner.push_back(std::move(In));
  }
  if (Inner.empty())
    return "";
  Candidate Nest = C;
  std::vector<std::string> Names;
  expandNest(Nest, Inner, Facts, SM, Names);
  if (Nest.G.Groups.size() < 2) {
    // Two copies of an inner loop, tied through the outer body.
    unsigned First = 0, Second = 0;
    while (!llvm::StringRef(Names[First]).starts_with("copy"))
      ++First;
    for (Second = First + 1;
         !llvm::StringRef(Names[Second]).starts_with("copy");)
      ++Second;
    std::string Why = "; with its " + innerLines(Inner) +
                      " split too, it is still one dependence group (" +
                      tiePath(Nest.G, Names, First, Second) +
                      "), so the nest does not split either";
    Inner.clear();
    return Why;
  }
  C = std::move(Nest);
  return "";
}

} // namespace

void LoopFission::run(TransformContext &TC, std::vector<Decision> &Decisions,
                      std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  std::vector<std::pair<const ForStmt *, const FunctionDecl *>> Found;
  for (const FunctionDecl *FD : deviceCodeDefinitions(Ctx, false, TC.Scope))
    for (const ForStmt *Loop : statementsIn<ForStmt>(FD->getBody()))
      Found.push_back({Loop, FD});
  AliasFacts Facts = collectAliasFacts(Ctx);
  for (auto [Loop, FD] : Found) {
    auto *Body = dyn_cast<CompoundStmt>(Loop->getBody());
    if (!Body || Body->size() < 2)
      continue; // Nothing to split.
    unsigned Line = SM.getExpansionLineNumber(Loop->getBeginLoc());
    unsigned Col = SM.getExpansionColumnNumber(Loop->getBeginLoc());
    Decision D;
    D.Transform = name();
    D.Kernel = FD->getNameAsString();
    D.Line = Line;
    // The loop's file: the main file or a project header. Its offsets,
    // edits and messages are that file's.
    const std::string InFile = TC.fileOf(Loop->getBeginLoc());
    const std::string Shown = TC.displayOf(Loop->getBeginLoc());
    D.File = TC.decisionFileOf(Loop->getBeginLoc());
    TC.CurrentKernel = D.Kernel;
    TC.CurrentLine = Line;
    std::string Where = "loop at line " + std::to_string(Line);
    auto Decline = [&](const std::string &Why) {
      D.Reason = Where + ": " + Why;
      TC.Log.report("WW3002", Severity::Remark, Shown, Line, Col,
                    std::string(name()) + ": " + D.Reason);
      Decisions.push_back(D);
    };
    Steer Steering = TC.steer(name(), FD, Loop->getBeginLoc());
    if (Steering.disabled()) {
      Decline("disabled by " + Steering.Source + "; not considered");
      continue;
    }
    SteerScope Steered(TC, Steering, name());
    Facts.Used.clear(); // which facts this loop's proof relies on
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Loop->getSourceRange()), SM, LO);
    if (!Range.isValid() || Loop->getBeginLoc().isMacroID()) {
      Decline("the loop is written with a macro; not split");
      continue;
    }
    Candidate C;
    C.Loop = Loop;
    C.FD = FD;
    C.InFile = InFile;
    C.File = SM.getFileID(Range.getBegin());
    C.Begin = SM.getFileOffset(Range.getBegin());
    C.End = SM.getFileOffset(Range.getEnd());
    if (TC.claimed(InFile, C.Begin, C.End))
      continue;
    C.Header = headerEffects(Loop, FD, SM);
    C.Stmts.assign(Body->body_begin(), Body->body_end());
    std::string Forbidden =
        bodyEffects(C.Stmts, C.Header, FD, Facts, SM, LO, C.Eff);
    if (!Forbidden.empty()) {
      Decline(Forbidden + "; not split");
      continue;
    }
    // Every comment of the body goes into the split loops with the statement
    // it is attached to; a preprocessor line could not stay in place.
    C.Inside = placeStatements(
        C.Stmts, SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) + 1,
        SM.getFileOffset(SM.getExpansionLoc(Body->getRBracLoc())), C.File, SM,
        LO);
    if (C.Inside.Stop <= C.Stmts.size()) {
      Decline(misplaced(C.Inside, C.File, SM) + "; not split");
      continue;
    }
    C.G = groupStatements(C.Stmts, C.Eff, Facts, SM);
    // A body that is one group may still split as a nest, its inner loops
    // split too, in one decision measured as a whole: the inner split alone
    // may save no register where the whole nest's does. Forced, the inner
    // loop splits in one pass and the outer one in the next.
    std::vector<InnerSplit> Inner;
    if (C.G.Groups.size() < 2) {
      std::string Tie =
          C.G.Tie.empty() ? std::string("nothing to separate") : C.G.Tie;
      std::string NestWhy = TC.Force ? "" : nestCandidate(C, TC, Facts, Inner);
      if (Inner.empty()) {
        Decline("its body is one dependence group (" + Tie + ")" + NestWhy +
                "; not split");
        continue;
      }
    }
    statementsAfter(C, TC);
    std::string Indent(Col > 0 ? Col - 1 : 0, ' ');
    std::string Head(SM.getCharacterData(Range.getBegin()),
                     SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) -
                         C.Begin);
    unsigned ReplaceBegin;
    std::vector<std::string> Pragmas =
        pragmasAbove(SM.getBufferData(C.File), C.Begin, ReplaceBegin);
    unsigned LastMoved;
    std::string Loops = writeLoops(C, Facts, Pragmas, Indent, Head, LastMoved);
    std::string Replacement =
        placeLoops(C, Ctx, Loops, Indent, C.Begin, ReplaceBegin);
    // The replaced range ends with the last statement moved, and the
    // comment on its line.
    unsigned Begin = ReplaceBegin,
             End = LastMoved > 0 ? C.Behind.Stmts[LastMoved - 1].End : C.End;
    unsigned Groups = C.G.Groups.size();
    FissionCandidate FC{FD, Line, InFile, Begin, End, Groups, "", ""};
    if (!Inner.empty())
      FC.Nest = innerLines(Inner);
    if (Facts.Used.count(FD) && Facts.Why.count(FD))
      FC.HostFacts = Facts.Why.at(FD);
    D = planFission(TC, FC, Replacement, name());
    D.File = TC.decisionFileOf(Loop->getBeginLoc());
    if (D.Applied) {
      TC.takeDecisionId(D, "WW4002", TC.textOf(Loop->getBeginLoc()));
      fillDecisionMark(
          Replacement,
          TC.decisionComment(
              D,
              (Inner.empty() ? "a loop" : "a loop nest") +
                  std::string(" split into ") + std::to_string(Groups) +
                  " loops with no dependence between them" +
                  (Inner.empty() ? ""
                                 : ", each with its part of the " + FC.Nest)));
      Changes.push_back(
          {"fission of the loop " + std::string(Inner.empty() ? "" : "nest ") +
               "at line " + std::to_string(Line) +
               (D.File.empty() ? "" : " of " + D.File),
           {tooling::Replacement(InFile, Begin, End - Begin, Replacement)}});
      TC.Claimed.push_back({InFile, Begin, End});
    }
    TC.Log.report(D.Applied ? "WW4002" : "WW3002", Severity::Remark, Shown,
                  Line, Col, std::string(name()) + ": " + D.Reason);
    Decisions.push_back(D);
  }
}

} // namespace warpwise
