//===- DivergenceFunction.cpp - Statements, fixed point and verdicts ------===//
//
// FunctionRun's walk over statements: declarations and assignments under
// the control dependences of the branches and loops around them, jumps that
// make a loop's exit non-uniform, and the verdicts collected at the end.
// Expressions are in DivergenceExpr.cpp.
//
//===----------------------------------------------------------------------===//
#include "DivergenceFunction.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <cstring>

namespace warpwise {
namespace divergence {

using namespace clang;

FunctionRun::FunctionRun(DivergenceAnalysis::Impl &P, const FunctionDecl *FD,
                         const std::vector<Val> &Args, const BlockShape &Shape)
    : P(P), FD(FD), Shape(Shape) {
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    Val V = I < Args.size() ? Args[I] : Val();
    if (V.L != Uniformity::Uniform && !V.Why)
      V.Why = P.cause(
          {Cause::Source, "the caller's argument", nullptr, 0, nullptr});
    Vars[FD->getParamDecl(I)] = V;
    ParamIndex[FD->getParamDecl(I)] = I;
  }
  Sum.ParamWrites.resize(FD->getNumParams());
}

Summary FunctionRun::run() {
  const Stmt *Body = FD->getBody();
  HasGoto = containsGoto(Body);
  // Levels only rise (every update is a join), so the walk settles; the 32
  // rounds are a bound, not a guess of how many are needed.
  for (unsigned Iter = 0; Iter < 32; ++Iter) {
    Changed = false;
    Control.clear();
    walk(Body);
    if (!Changed)
      break;
  }
  return Sum;
}

// --- Variables under control dependences ------------------------------------

bool FunctionRun::containsGoto(const Stmt *S) {
  if (!S)
    return false;
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsGoto(C))
      return true;
  return false;
}

bool FunctionRun::encloses(const Stmt *S, const Decl *D) const {
  if (!D || isa<ParmVarDecl>(D))
    return false;
  SourceLocation L = P.SM.getExpansionLoc(D->getLocation());
  SourceLocation B = P.SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation E = P.SM.getExpansionLoc(S->getEndLoc());
  return !P.SM.isBeforeInTranslationUnit(L, B) &&
         !P.SM.isBeforeInTranslationUnit(E, L);
}

Uniformity FunctionRun::controlFor(const VarDecl *Var,
                                   const Cause *&Why) const {
  Uniformity L = Uniformity::Uniform;
  Why = nullptr;
  if (HasGoto && !Control.empty()) {
    // Unstructured control flow: any guarded assignment may reach any join.
    for (const ControlEntry &C : Control)
      if (C.L > L) {
        L = C.L;
        Why = C.Why;
      }
    return L;
  }
  for (const ControlEntry &C : Control) {
    if (!Var || encloses(C.S, Var)) // Invisible after the join.
      continue;
    if (C.L > L) {
      L = C.L;
      Why = C.Why;
    }
  }
  return L;
}

void FunctionRun::assignVar(const VarDecl *Var, Val V) {
  const Cause *CtlWhy;
  Uniformity Ctl = controlFor(Var, CtlWhy);
  if (Ctl > V.L) {
    V.L = Ctl;
    V.Why = P.cause({Cause::Control, CtlWhy ? CtlWhy->Text : "a branch",
                     nullptr, 0, nullptr});
  }
  if (Ctl > Uniformity::BlockUniform || V.L > Uniformity::BlockUniform) {
    if (!(V.Linear && V.Coef != 0 && Ctl <= Uniformity::BlockUniform)) {
      V.Linear = false;
      V.BaseMul32 = false;
    }
  }
  if (Ctl != Uniformity::Uniform)
    V.Const.reset();
  auto It = Vars.find(Var);
  if (It == Vars.end()) {
    Vars[Var] = V;
    Changed = true;
    return;
  }
  Val J = joinVals(It->second, V);
  if (!(J == It->second)) {
    // Keep the cause that explains the new, higher level.
    if (J.L > It->second.L)
      J.Why = V.Why;
    else
      J.Why = It->second.Why;
    It->second = J;
    Changed = true;
  }
}

const VarDecl *FunctionRun::localArray(const Expr *Base) const {
  Base = Base->IgnoreParenImpCasts();
  if (auto *Ref = dyn_cast<DeclRefExpr>(Base))
    if (auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      if (V->getType()->isArrayType() && V->hasLocalStorage())
        return V;
  return nullptr;
}

void FunctionRun::noteParamWrite(const ValueDecl *D, Val Written) {
  auto PI = ParamIndex.find(dyn_cast<VarDecl>(D));
  if (PI == ParamIndex.end())
    return;
  for (const ControlEntry &C : Control)
    Written.L = join(Written.L, C.L);
  auto &Slot = Sum.ParamWrites[PI->second];
  Slot = Slot ? joinVals(*Slot, Written) : Written;
}

// --- Statements
// ---------------------------------------------------------------

void FunctionRun::noteJump(const Stmt *Jump, bool IsReturn, bool IsContinue) {
  // The guards between the jump and each construct it leaves make that
  // construct's exit (or, for continue, its latch) non-uniform.
  Uniformity Guard = Uniformity::Uniform;
  const Cause *Why = nullptr;
  for (size_t I = Control.size(); I-- > 0;) {
    const ControlEntry &C = Control[I];
    if (C.IsLoop || (C.IsSwitch && !IsReturn && !IsContinue)) {
      if (C.IsLoop && Guard != Uniformity::Uniform) {
        auto &Slot = ExitLevels[C.S];
        if (Guard > Slot.first) {
          Slot = {Guard,
                  P.cause({Cause::Control,
                           std::string("a ") + uniformityName(Guard) + " `" +
                               (IsReturn     ? "return"
                                : IsContinue ? "continue"
                                             : "break") +
                               "` at line " +
                               std::to_string(P.line(Jump->getBeginLoc())),
                           nullptr, 0, Why})};
          Changed = true;
        }
      }
      if (!IsReturn)
        return; // break/continue leave only the innermost construct.
    }
    if (C.L > Guard) {
      Guard = C.L;
      Why = C.Why;
    }
  }
}

void FunctionRun::walkLoop(const Stmt *Loop, const Stmt *Init, const Expr *Cond,
                           const Stmt *CondVar, const Expr *Inc,
                           const Stmt *Body, const char *Kind) {
  if (Init)
    walk(Init);
  if (Seen.insert(Loop).second)
    Order.push_back(Loop);
  // The loop's level: its condition, and non-uniform exits found by earlier
  // iterations of the fixed point.
  auto Level = [&]() {
    Val C = CondVals.count(Loop) ? CondVals[Loop] : Val();
    Uniformity L = C.L;
    const Cause *W = C.Why;
    auto It = ExitLevels.find(Loop);
    if (It != ExitLevels.end() && It->second.first > L) {
      L = It->second.first;
      W = It->second.second;
    }
    return std::make_pair(L, W);
  };
  auto [L0, W0] = Level();
  Control.push_back({Loop, L0, W0, true, false});
  if (CondVar)
    walk(CondVar);
  Val C = Cond ? eval(Cond) : Val();
  recordCond(Loop, C);
  auto [L1, W1] = Level();
  Control.back().L = L1;
  Control.back().Why = P.cause({Cause::Control,
                                std::string("the ") + uniformityName(L1) +
                                    " `" + Kind + "` loop at line " +
                                    std::to_string(P.line(Loop->getBeginLoc())),
                                nullptr, 0, W1});
  walk(Body);
  if (Inc)
    eval(Inc);
  Control.pop_back();
}

/// Walks an if's or switch's init and condition, records its verdict, and
/// makes it the innermost control dependence of what the caller walks next
/// (the caller pops it).
void FunctionRun::enterBranch(const Stmt *Branch, const Stmt *Init,
                              const Stmt *CondVar, const Expr *Cond,
                              const char *Kind, bool IsSwitch) {
  if (Init)
    walk(Init);
  if (CondVar)
    walk(CondVar);
  Val C = eval(Cond);
  recordCond(Branch, C);
  if (Seen.insert(Branch).second)
    Order.push_back(Branch);
  const Cause *Why =
      P.cause({Cause::Control,
               std::string("the ") + uniformityName(C.L) + " `" + Kind +
                   "` at line " + std::to_string(P.line(Branch->getBeginLoc())),
               nullptr, 0, C.Why});
  Control.push_back({Branch, C.L, Why, false, IsSwitch});
}

void FunctionRun::walk(const Stmt *S) {
  if (!S)
    return;
  if (auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : CS->body())
      walk(Child);
    return;
  }
  if (auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (auto *Var = dyn_cast<VarDecl>(D)) {
        if (Var->hasAttr<CUDASharedAttr>() || !Var->hasLocalStorage())
          continue;
        Val V = Var->getInit() ? eval(Var->getInit()) : Val();
        if (!Var->getInit() && Var->getType()->isArrayType())
          V = Val(); // Elements are assigned later.
        assignVar(Var, V);
      }
    return;
  }
  if (auto *If = dyn_cast<IfStmt>(S)) {
    enterBranch(If, If->getInit(), If->getConditionVariableDeclStmt(),
                If->getCond(), "if", false);
    walk(If->getThen());
    walk(If->getElse());
    Control.pop_back();
    return;
  }
  if (auto *For = dyn_cast<ForStmt>(S)) {
    walkLoop(For, For->getInit(), For->getCond(),
             For->getConditionVariableDeclStmt(), For->getInc(), For->getBody(),
             "for");
    return;
  }
  if (auto *While = dyn_cast<WhileStmt>(S)) {
    walkLoop(While, nullptr, While->getCond(),
             While->getConditionVariableDeclStmt(), nullptr, While->getBody(),
             "while");
    return;
  }
  if (auto *Do = dyn_cast<DoStmt>(S)) {
    walkLoop(Do, nullptr, Do->getCond(), nullptr, nullptr, Do->getBody(), "do");
    return;
  }
  if (auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
    if (Range->getInit())
      walk(Range->getInit());
    walk(Range->getRangeStmt());
    walkLoop(Range, nullptr, Range->getRangeInit(), Range->getLoopVarStmt(),
             nullptr, Range->getBody(), "for");
    return;
  }
  if (auto *Switch = dyn_cast<SwitchStmt>(S)) {
    enterBranch(Switch, Switch->getInit(),
                Switch->getConditionVariableDeclStmt(), Switch->getCond(),
                "switch", true);
    walk(Switch->getBody());
    Control.pop_back();
    return;
  }
  if (auto *Case = dyn_cast<SwitchCase>(S)) {
    walk(Case->getSubStmt());
    return;
  }
  if (auto *Label = dyn_cast<LabelStmt>(S)) {
    walk(Label->getSubStmt());
    return;
  }
  if (auto *Ret = dyn_cast<ReturnStmt>(S)) {
    Val V = eval(Ret->getRetValue());
    for (const ControlEntry &C : Control)
      if (C.L > V.L) {
        V.L = C.L;
        V.Why = C.Why;
        V.Linear = false;
      }
    Sum.Return = joinVals(Sum.Return, V);
    noteJump(Ret, true, false);
    return;
  }
  if (isa<BreakStmt>(S)) {
    noteJump(S, false, false);
    return;
  }
  if (isa<ContinueStmt>(S)) {
    noteJump(S, false, true);
    return;
  }
  if (auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return;
  }
  for (const Stmt *Child : S->children())
    walk(Child);
}

// --- Verdicts ---------------------------------------------------------------

void FunctionRun::collect(FunctionVerdicts &Out) const {
  std::string Fn = FD->getNameAsString();
  std::vector<std::pair<const VarDecl *, Val>> Locals;
  for (const auto &[Var, V] : Vars)
    if (!isa<ParmVarDecl>(Var))
      Locals.push_back({Var, V});
  std::sort(Locals.begin(), Locals.end(), [&](const auto &A, const auto &B) {
    return P.SM.isBeforeInTranslationUnit(A.first->getLocation(),
                                          B.first->getLocation());
  });
  for (const auto &[Var, V] : Locals) {
    VariableInfo I;
    I.Name = Var->getNameAsString();
    I.Line = P.line(Var->getLocation());
    I.Column = P.column(Var->getLocation());
    I.Level =
        HasGoto && V.L != Uniformity::Uniform ? Uniformity::Divergent : V.L;
    I.Reason = explain(V.Why, V.L);
    // explain() speaks of branch conditions.
    if (llvm::StringRef(I.Reason).starts_with("the condition "))
      I.Reason = "its value " + I.Reason.substr(strlen("the condition "));
    Out.Variables.push_back(std::move(I));
  }
  for (const Stmt *S : Order) {
    auto CIt = CondVals.find(S);
    Val C = CIt == CondVals.end() ? Val() : CIt->second;
    unsigned Line = P.line(S->getBeginLoc()), Col = P.column(S->getBeginLoc());
    if (isa<IfStmt>(S) || isa<ConditionalOperator>(S) || isa<SwitchStmt>(S)) {
      BranchRecord R;
      R.S = S;
      R.Info.Line = Line;
      R.Info.Column = Col;
      R.Info.Function = Fn;
      R.Info.Level = C.L;
      if (HasGoto && C.L != Uniformity::Uniform)
        R.Info.Level = Uniformity::Divergent;
      R.Info.Reason = explain(C.Why, C.L);
      if (auto *If = dyn_cast<IfStmt>(S)) {
        R.Info.Kind = If->getElse() ? "if-else" : "if";
        R.Then = If->getThen();
        R.Else = If->getElse();
      } else if (auto *CO = dyn_cast<ConditionalOperator>(S)) {
        R.Info.Kind = "?:";
        R.Then = CO->getTrueExpr();
        R.Else = CO->getFalseExpr();
      } else {
        R.Info.Kind = "switch";
        R.Then = cast<SwitchStmt>(S)->getBody();
      }
      Out.Branches.push_back(R);
      continue;
    }
    LoopRecord R;
    R.S = S;
    R.Info.Line = Line;
    R.Info.Column = Col;
    R.Info.Function = Fn;
    Uniformity L = C.L;
    std::string Reason = explain(C.Why, C.L);
    auto EIt = ExitLevels.find(S);
    if (EIt != ExitLevels.end() && EIt->second.first > L) {
      L = EIt->second.first;
      const Cause *Jump = EIt->second.second;
      const Cause *Guard = Jump->Next;
      Reason = "the loop has " + Jump->Text;
      if (Guard) {
        Reason += " under " + Guard->Text;
        if (Guard->Next)
          Reason += ", where " + explain(Guard->Next, L);
      }
    }
    R.Info.Level = L;
    R.Info.Reason = Reason;
    if (auto *F = dyn_cast<ForStmt>(S)) {
      R.Info.Kind = "for";
      R.Body = F->getBody();
    } else if (auto *W = dyn_cast<WhileStmt>(S)) {
      R.Info.Kind = "while";
      R.Body = W->getBody();
    } else if (auto *D = dyn_cast<DoStmt>(S)) {
      R.Info.Kind = "do";
      R.Body = D->getBody();
    } else if (auto *RF = dyn_cast<CXXForRangeStmt>(S)) {
      R.Info.Kind = "for";
      R.Body = RF->getBody();
    }
    Out.Loops.push_back(R);
  }
}

} // namespace divergence
} // namespace warpwise
