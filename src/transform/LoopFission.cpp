//===- LoopFission.cpp - Loop splitting -----------------------------------===//
#include "LoopFission.h"

#include "../plan/FissionPlanner.h"
#include "Candidates.h"
#include "../analysis/MemoryAccess.h"
#include "SourceText.h"

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
    {
      // With `#pragma unroll` the loop sits in an AttributedStmt.
      const Stmt *Self = Loop;
      DynTypedNodeList Parents = Ctx.getParents(*Loop);
      if (!Parents.empty())
        if (const auto *Attributed = Parents[0].get<AttributedStmt>()) {
          Self = Attributed;
          Parents = Ctx.getParents(*Attributed);
        }
      const CompoundStmt *Parent =
          Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
      bool Seen = false;
      if (Parent)
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
            if (TC.claimed(InFile, SB, SE))
              break;
            After.push_back(S);
            AfterEff.push_back(effectsOf(S, FD, SM));
          }
          Seen |= S == Self;
        }
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
    auto Text = [&](const Stmt *S) {
      return Lexer::getSourceText(
                 Lexer::makeFileCharRange(
                     CharSourceRange::getTokenRange(S->getSourceRange()), SM,
                     LO),
                 SM, LO)
          .str();
    };
    unsigned Col = SM.getExpansionColumnNumber(Loop->getBeginLoc());
    std::string Indent(Col > 0 ? Col - 1 : 0, ' ');
    std::string Head(SM.getCharacterData(Range.getBegin()),
                     SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) -
                         Begin);
    // `#pragma unroll` lines right above the loop belong to every copy: the
    // replaced range starts at the first of them.
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(Range.getBegin()));
    std::vector<std::string> Pragmas;
    unsigned ReplaceBegin = Begin;
    {
      size_t LineStart = Buffer.rfind('\n', Begin ? Begin - 1 : 0);
      LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
      bool OnlySpace =
          Buffer.substr(LineStart, Begin - LineStart).trim().empty();
      while (OnlySpace && LineStart > 0) {
        size_t Prev = Buffer.rfind('\n', LineStart - 2);
        Prev = Prev == llvm::StringRef::npos ? 0 : Prev + 1;
        llvm::StringRef L = Buffer.substr(Prev, LineStart - 1 - Prev).trim();
        if (!L.starts_with("#pragma"))
          break;
        Pragmas.insert(Pragmas.begin(), L.str());
        ReplaceBegin = Prev;
        LineStart = Prev;
      }
    }
    // The decision's comment goes first, filled in once it is applied.
    std::string Out =
        (ReplaceBegin != Begin ? Indent : "") + DecisionMark + "\n";
    std::vector<bool> Moved(After.size(), false);
    unsigned LastMoved = 0; // One past the last statement of After moved.
    for (size_t GI = 0; GI < Order.size(); ++GI) {
      unsigned R = Order[GI];
      std::set<unsigned> Members(Groups[R].begin(), Groups[R].end());
      // Replicated declarations used by the group (and by those).
      for (bool Grew = true; Grew;) {
        Grew = false;
        for (unsigned I : std::set<unsigned>(Members))
          for (const VarDecl *U : Eff[I].Uses)
            if (DeclaredBy.count(U) && Replicable[DeclaredBy[U]] &&
                Members.insert(DeclaredBy[U]).second)
              Grew = true;
      }
      for (const std::string &P : Pragmas)
        Out += Indent + P + "\n";
      Out += Indent + Head + "{\n";
      for (unsigned I : Members) {
        std::string T = withSemicolon(Stmts[I], Text(Stmts[I]), SM, LO);
        unsigned SCol = SM.getExpansionColumnNumber(Stmts[I]->getBeginLoc());
        Out += std::string(SCol > 0 ? SCol - 1 : 0, ' ') + T + "\n";
      }
      Out += Indent + "}";
      Out += "\n";
      if (GI + 1 == Order.size())
        break;
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
        unsigned SCol = SM.getExpansionColumnNumber(After[A]->getBeginLoc());
        Out += std::string(SCol > 0 ? SCol - 1 : 0, ' ') +
               withSemicolon(After[A], Text(After[A]), SM, LO) + "\n";
      }
    }
    // The statements jumped over keep their order after the last loop.
    for (unsigned A = 0; A < LastMoved; ++A)
      if (!Moved[A]) {
        unsigned SCol = SM.getExpansionColumnNumber(After[A]->getBeginLoc());
        Out += std::string(SCol > 0 ? SCol - 1 : 0, ' ') +
               withSemicolon(After[A], Text(After[A]), SM, LO) + "\n";
      }
    Out.pop_back();
    if (LastMoved > 0) {
      // The replaced range now ends with the last statement moved.
      const Stmt *LastS = After[LastMoved - 1];
      CharSourceRange LR = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(LastS->getSourceRange()), SM, LO);
      End = SM.getFileOffset(LR.getEnd());
      if (isa<Expr>(LastS)) {
        // Take the statement's semicolon too.
        SourceLocation Semi = Lexer::findLocationAfterToken(
            LR.getEnd().getLocWithOffset(-1), tok::semi, SM, LO, false);
        if (Semi.isValid())
          End = SM.getFileOffset(Semi);
      }
    }
    std::string Replacement = Out;
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
