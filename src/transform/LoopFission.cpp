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
      bool Directives = llvm::any_of(
          Ignored, [](const GapItem &It) { return It.Directive; });
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
    B.Stmts.push_back({CoreBegin[I], CoreEnd[I], indentAt(Buf, CoreBegin[I]),
                       Core[I]});
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
      D.Reason = Where + ": " + Why + "; not split";
      TC.Log.report("WW3002", Severity::Remark, Shown, Line,
                    SM.getExpansionColumnNumber(Loop->getBeginLoc()),
                    std::string(name()) + ": " + D.Reason);
      Decisions.push_back(D);
    };
    Steer Steering = TC.steer(name(), FD, Loop->getBeginLoc());
    if (Steering.disabled()) {
      D.Reason = Where + ": disabled by " + Steering.Source +
                 "; not considered";
      TC.Log.report("WW3002", Severity::Remark, Shown, Line,
                    SM.getExpansionColumnNumber(Loop->getBeginLoc()),
                    std::string(name()) + ": " + D.Reason);
      Decisions.push_back(D);
      continue;
    }
    SteerScope Steered(TC, Steering, name());
    Facts.Used.clear(); // which facts this loop's proof relies on
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Loop->getSourceRange()), SM, LO);
    if (!Range.isValid() || Loop->getBeginLoc().isMacroID()) {
      Decline("the loop is written with a macro");
      continue;
    }
    unsigned Begin = SM.getFileOffset(Range.getBegin());
    unsigned End = SM.getFileOffset(Range.getEnd());
    if (TC.claimed(InFile, Begin, End))
      continue;

    // The header must be re-executable: every copy runs the same iterations
    // and leaves the same state. It may change only the variables its
    // initialiser declares, and may read no memory the body writes.
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
    std::vector<const Stmt *> Stmts(Body->body_begin(), Body->body_end());
    std::vector<Effects> Eff;
    std::string Forbidden = Header.Forbidden;
    for (const Stmt *S : Stmts) {
      Eff.push_back(effectsOf(S, FD, SM));
      if (Forbidden.empty() && !Eff.back().Forbidden.empty())
        Forbidden = Eff.back().Forbidden;
      if (Forbidden.empty() && Eff.back().UnknownWrite)
        Forbidden =
            "a store at line " +
            std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
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
            "a statement at line " +
            std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
            " is only partly inside a macro";
    }
    if (!Forbidden.empty()) {
      Decline(Forbidden);
      continue;
    }
    // Every comment of the body goes into the split loops with the statement
    // it is attached to; a preprocessor line could not stay in place.
    FileID LoopFile = SM.getFileID(Range.getBegin());
    PlacedBlock Inside = placeStatements(
        Stmts,
        SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) + 1,
        SM.getFileOffset(SM.getExpansionLoc(Body->getRBracLoc())), LoopFile,
        SM, LO);
    if (Inside.Stop <= Stmts.size()) {
      llvm::StringRef Buf = SM.getBufferData(LoopFile);
      llvm::StringRef What =
          Buf.slice(Inside.StopAt, endOfLine(Buf, Inside.StopAt)).rtrim();
      Decline("its body has `" +
              (What.size() > 60 ? What.take_front(57).str() + "..."
                                : What.str()) +
              "` at line " +
              std::to_string(SM.getLineNumber(LoopFile, Inside.StopAt)) +
              " between statements, which the split loops could not keep "
              "in place");
      continue;
    }
    // Declarations that only read what the loop never writes can be
    // recomputed in every copy: they do not tie statements together.
    std::set<const VarDecl *> WrittenInBody;
    for (const Effects &E : Eff)
      WrittenInBody.insert(E.Defs.begin(), E.Defs.end());
    std::vector<bool> Replicable(Stmts.size(), false);
    std::map<const VarDecl *, unsigned> DeclaredBy;
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
            !(DeclaredBy.count(U) && Replicable[DeclaredBy[U]]))
          OK = false;
      for (unsigned J = 0; J < Stmts.size(); ++J)
        if (J != I && Eff[J].Defs.count(V))
          OK = false;
      Replicable[I] = OK;
      DeclaredBy[V] = I;
    }
    // Group the other statements: shared variables and possibly aliasing
    // memory (a write against any access) tie statements together.
    UnionFind UF(Stmts.size());
    std::string Tie;
    for (unsigned I = 0; I < Stmts.size(); ++I)
      for (unsigned J = I + 1; J < Stmts.size(); ++J) {
        if (Replicable[I] || Replicable[J])
          continue;
        std::string Why;
        for (const VarDecl *V : Eff[I].Defs)
          if (Eff[J].Uses.count(V) || Eff[J].Defs.count(V))
            Why = "`" + V->getNameAsString() + "`";
        for (const VarDecl *V : Eff[J].Defs)
          if (Why.empty() && (Eff[I].Uses.count(V) || Eff[I].Defs.count(V)))
            Why = "`" + V->getNameAsString() + "`";
        auto MemConflict = [&](const Effects &W, const Effects &O) {
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
        };
        if (Why.empty())
          Why = MemConflict(Eff[I], Eff[J]);
        if (Why.empty())
          Why = MemConflict(Eff[J], Eff[I]);
        if (!Why.empty() && UF.find(I) != UF.find(J)) {
          UF.unite(I, J);
          Tie = "statements at lines " +
                std::to_string(
                    SM.getExpansionLineNumber(Stmts[I]->getBeginLoc())) +
                " and " +
                std::to_string(
                    SM.getExpansionLineNumber(Stmts[J]->getBeginLoc())) +
                " share " + Why;
        }
      }
    // Groups that read the same arrays stay together: splitting them would
    // load the same data twice (the paper splits by input arrays too).
    for (unsigned I = 0; I < Stmts.size(); ++I)
      for (unsigned J = I + 1; J < Stmts.size(); ++J)
        if (!Replicable[I] && !Replicable[J])
          for (const VarDecl *V : Eff[I].MemReads)
            if (Eff[J].MemReads.count(V))
              UF.unite(I, J);
    std::map<unsigned, std::vector<unsigned>> Groups; // root -> members
    std::vector<unsigned> Order;
    for (unsigned I = 0; I < Stmts.size(); ++I) {
      if (Replicable[I])
        continue;
      unsigned R = UF.find(I);
      if (!Groups.count(R))
        Order.push_back(R);
      Groups[R].push_back(I);
    }
    if (Groups.size() < 2) {
      Decline("its body is one dependence group (" +
              (Tie.empty() ? std::string("nothing to separate") : Tie) + ")");
      continue;
    }
    // Statements right after the loop that consume one group's results can
    // move up behind that group's loop, so its values die before the next
    // loop starts; that is what lowers the pressure. A statement moves only if
    // it touches nothing (variables or possibly aliasing memory) that a later
    // group or a statement it would jump over touches.
    std::vector<const Stmt *> After;
    std::vector<Effects> AfterEff;
    PlacedBlock Behind; // After, with the comments from the loop's `}` on.
    if (const auto *Parent =
            dyn_cast_or_null<CompoundStmt>(statementParent(Loop, Ctx))) {
      const Stmt *Self = asWritten(Loop, Ctx);
      unsigned Until = SM.getFileOffset(SM.getExpansionLoc(Parent->getRBracLoc()));
      bool Seen = false;
      for (const Stmt *S : Parent->body()) {
        if (Seen) {
          CharSourceRange SR = Lexer::makeFileCharRange(
              CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
          if (!SR.isValid())
            break;
          // An earlier decision rewrites this statement (a fused if-else):
          // the replaced range must not reach into it.
          unsigned SB = SM.getFileOffset(SR.getBegin()),
                   SE = SM.getFileOffset(SR.getEnd());
          if (TC.claimed(InFile, SB, SE)) {
            Until = SB;
            break;
          }
          After.push_back(S);
        }
        Seen |= S == Self;
      }
      Behind = placeStatements(After, End, Until, LoopFile, SM, LO);
      // Only the statements before a preprocessor line can move.
      if (Behind.Stop <= After.size()) {
        After.resize(Behind.Stop);
        Behind.Stmts.resize(Behind.Stop);
      }
      for (const Stmt *S : After)
        AfterEff.push_back(effectsOf(S, FD, SM));
    }
    auto Conflict = [&](const Effects &X, const Effects &Y) {
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
    };

    // Write one loop per group, with the replicated declarations it needs.
    unsigned Col = SM.getExpansionColumnNumber(Loop->getBeginLoc());
    std::string Indent(Col > 0 ? Col - 1 : 0, ' ');
    std::string Head(SM.getCharacterData(Range.getBegin()),
                     SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) -
                         Begin);
    // `#pragma unroll` lines right above the loop belong to every copy: the
    // replaced range starts at the first of them.
    llvm::StringRef Buffer = SM.getBufferData(LoopFile);
    std::vector<std::string> Pragmas;
    unsigned ReplaceBegin = Begin;
    {
      size_t LineStart = Buffer.rfind('\n', Begin); // Searches before Begin.
      LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
      bool OnlySpace =
          Buffer.substr(LineStart, Begin - LineStart).trim().empty();
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
    }
    auto Lines = [](const std::vector<Placed> &Items) {
      std::string T;
      for (const Placed &P : Items)
        T += P.Indent + P.Text + "\n";
      return T;
    };
    // The decision's comment goes first, filled in once it is applied.
    std::string Out = std::string(DecisionMark) + "\n";
    std::vector<bool> Moved(After.size(), false);
    unsigned LastMoved = 0; // One past the last statement of After moved.
    // Each loop's statements: its group's, with the replicated declarations
    // they use (and those use). A declaration no loop uses stays in the
    // first, with its comments.
    std::vector<std::set<unsigned>> LoopMembers;
    std::set<unsigned> Written;
    for (unsigned R : Order) {
      std::set<unsigned> Members(Groups[R].begin(), Groups[R].end());
      for (bool Grew = true; Grew;) {
        Grew = false;
        for (unsigned I : std::set<unsigned>(Members))
          for (const VarDecl *U : Eff[I].Uses)
            if (DeclaredBy.count(U) && Replicable[DeclaredBy[U]] &&
                Members.insert(DeclaredBy[U]).second)
              Grew = true;
      }
      Written.insert(Members.begin(), Members.end());
      LoopMembers.push_back(Members);
    }
    for (unsigned I = 0; I < Stmts.size(); ++I)
      if (!Written.count(I))
        LoopMembers[0].insert(I);
    for (size_t GI = 0; GI < Order.size(); ++GI) {
      const std::set<unsigned> &Members = LoopMembers[GI];
      for (const std::string &P : Pragmas)
        Out += Indent + P + "\n";
      Out += Indent + Head + "{";
      // The comments of the body that belong to no statement stay in the
      // first loop: those on the `{` line, and those after the last
      // statement.
      if (GI == 0)
        for (const Placed &P : Inside.OnOpenLine)
          Out += " " + P.Text;
      Out += "\n";
      for (unsigned I : Members)
        Out += Inside.Stmts[I].Indent + Inside.Stmts[I].Text + "\n";
      if (GI == 0)
        Out += Lines(Inside.Loose);
      Out += Indent + "}";
      if (GI + 1 == Order.size()) {
        // A comment on the loop's `}` line goes with the last copy's, as
        // when nothing moves (and it stays where it is).
        if (LastMoved > 0)
          for (const Placed &P : Behind.OnOpenLine)
            Out += " " + P.Text;
        Out += "\n";
        break;
      }
      Out += "\n";
      // What this group defines, and what the later groups do.
      Effects Mine, Later;
      for (unsigned I : Members)
        Mine.Defs.insert(Eff[I].Defs.begin(), Eff[I].Defs.end());
      // Every later copy re-runs the header: a statement moved above it
      // must not change what the header reads.
      Later.Uses.insert(Header.Uses.begin(), Header.Uses.end());
      Later.MemReads.insert(Header.MemReads.begin(), Header.MemReads.end());
      Later.UnknownRead |= Header.UnknownRead;
      for (size_t GJ = GI + 1; GJ < Order.size(); ++GJ)
        for (unsigned I : Groups[Order[GJ]]) {
          const Effects &E = Eff[I];
          Later.Defs.insert(E.Defs.begin(), E.Defs.end());
          Later.Uses.insert(E.Uses.begin(), E.Uses.end());
          Later.MemReads.insert(E.MemReads.begin(), E.MemReads.end());
          Later.MemWrites.insert(E.MemWrites.begin(), E.MemWrites.end());
        }
      for (size_t A = 0; A < After.size(); ++A) {
        if (Moved[A])
          continue;
        bool Consumer = false;
        for (const VarDecl *V : AfterEff[A].Uses)
          Consumer |= Mine.Defs.count(V) > 0;
        if (!Consumer || Conflict(AfterEff[A], Later))
          continue;
        bool Blocked = false;
        for (size_t J = 0; J < A; ++J)
          if (!Moved[J] && Conflict(AfterEff[A], AfterEff[J]))
            Blocked = true;
        if (Blocked || isa<DeclStmt>(After[A]))
          continue;
        Moved[A] = true;
        LastMoved = std::max<unsigned>(LastMoved, A + 1);
        Out += Behind.Stmts[A].Indent + Behind.Stmts[A].Text + "\n";
      }
    }
    // The statements jumped over keep their order after the last loop.
    for (unsigned A = 0; A < LastMoved; ++A)
      if (!Moved[A])
        Out += Behind.Stmts[A].Indent + Behind.Stmts[A].Text + "\n";
    Out.pop_back();
    // The replaced range ends with the last statement moved, and the
    // comment on its line.
    if (LastMoved > 0)
      End = Behind.Stmts[LastMoved - 1].End;
    bool FromLineStart = ReplaceBegin != Begin;
    bool Braced = needsBracesWhenReplaced(Loop, Ctx);
    // Under a user's line comment the decision's comment starts in column 0,
    // and the formatting step indents it: clang-format continues a comment
    // section only with comments that start at its column or further right,
    // so it keeps the two comments apart instead of reflowing one into the
    // other.
    std::string MarkIndent = Indent;
    if (!Braced) {
      size_t NL = Buffer.rfind('\n', ReplaceBegin);
      unsigned LineBegin = NL == llvm::StringRef::npos ? 0 : NL + 1;
      llvm::StringRef Above =
          LineBegin ? Buffer.slice(Buffer.rfind('\n', LineBegin - 1) + 1,
                                   LineBegin - 1)
                    : "";
      if (Buffer.slice(LineBegin, ReplaceBegin).trim().empty() &&
          Above.trim().starts_with("//")) {
        ReplaceBegin = LineBegin;
        FromLineStart = true;
        MarkIndent = "";
      }
    }
    std::string Replacement;
    if (Braced) {
      // The loop is the whole body of a loop or branch: the copies must
      // stay in it together.
      const Stmt *Holder = statementParent(Loop, Ctx);
      std::string OuterIndent = indentAt(
          Buffer, SM.getFileOffset(SM.getExpansionLoc(Holder->getBeginLoc())));
      Replacement = (FromLineStart ? OuterIndent : "") +
                    inBraces(Indent + Out, OuterIndent);
    } else {
      Replacement = (FromLineStart ? MarkIndent : "") + Out;
    }
    Begin = ReplaceBegin;
    FissionCandidate C{
        FD, Line, InFile, Begin, End, static_cast<unsigned>(Groups.size()), ""};
    if (Facts.Used.count(FD) && Facts.Why.count(FD))
      C.HostFacts = Facts.Why.at(FD);
    D = planFission(TC, C, Replacement, name());
    D.File = TC.decisionFileOf(Loop->getBeginLoc());
    if (D.Applied) {
      TC.takeDecisionId(D, "WW4002", TC.textOf(Loop->getBeginLoc()));
      fillDecisionMark(Replacement,
                       TC.decisionComment(
                           D, "a loop split into " +
                                  std::to_string(Groups.size()) +
                                  " loops with no dependence between them"));
      Changes.push_back(
          {"fission of the loop at line " + std::to_string(Line) +
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
