//===- ExecutionModel.cpp - Warp issue slots along executed paths ---------===//
#include "warpwise/ExecutionModel.h"
#include "warpwise/AstQueries.h"

#include "LaneEval.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <cmath>
#include <functional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

unsigned lineOf(ASTContext &Ctx, const Stmt *S) {
  return Ctx.getSourceManager().getExpansionLineNumber(S->getBeginLoc());
}

/// A `for` loop of the form `for (v = a; v OP b; v STEP c)`.
struct LoopShape {
  const VarDecl *Var = nullptr;
  const Expr *Init = nullptr, *Bound = nullptr;
  BinaryOperatorKind Cmp = BO_LT;
  bool VarOnLeft = true;
  BinaryOperatorKind Step = BO_AddAssign;
  const Expr *StepBy = nullptr; ///< Null: 1.
};

std::optional<LoopShape> loopShape(const ForStmt *F) {
  LoopShape L;
  if (auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (!DS->isSingleDecl())
      return std::nullopt;
    auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit())
      return std::nullopt;
    L.Var = V;
    L.Init = V->getInit();
  } else if (auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (BO->getOpcode() != BO_Assign || !referencedVar(BO->getLHS()))
      return std::nullopt;
    L.Var = referencedVar(BO->getLHS());
    L.Init = BO->getRHS();
  } else {
    return std::nullopt;
  }
  auto *C = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ)
    return std::nullopt;
  L.Cmp = C->getOpcode();
  if (referencedVar(C->getLHS()) == L.Var) {
    L.Bound = C->getRHS();
  } else if (referencedVar(C->getRHS()) == L.Var) {
    L.Bound = C->getLHS();
    L.VarOnLeft = false;
  } else {
    return std::nullopt;
  }
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (referencedVar(U->getSubExpr()) != L.Var || !U->isIncrementDecrementOp())
      return std::nullopt;
    L.Step = U->isIncrementOp() ? BO_AddAssign : BO_SubAssign;
  } else if (auto *B = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if (referencedVar(B->getLHS()) != L.Var)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_AddAssign:
    case BO_SubAssign:
    case BO_MulAssign:
    case BO_DivAssign:
    case BO_ShlAssign:
    case BO_ShrAssign:
      L.Step = B->getOpcode();
      L.StepBy = B->getRHS();
      break;
    case BO_Assign: {
      // v = v + c and the like.
      auto *R = dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParenImpCasts());
      if (!R || referencedVar(R->getLHS()) != L.Var)
        return std::nullopt;
      switch (R->getOpcode()) {
      case BO_Add:
        L.Step = BO_AddAssign;
        break;
      case BO_Sub:
        L.Step = BO_SubAssign;
        break;
      case BO_Mul:
        L.Step = BO_MulAssign;
        break;
      case BO_Div:
        L.Step = BO_DivAssign;
        break;
      case BO_Shl:
        L.Step = BO_ShlAssign;
        break;
      case BO_Shr:
        L.Step = BO_ShrAssign;
        break;
      default:
        return std::nullopt;
      }
      L.StepBy = R->getRHS();
      break;
    }
    default:
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return L;
}

bool holds(BinaryOperatorKind Op, int64_t A, int64_t B) {
  switch (Op) {
  case BO_LT:
    return A < B;
  case BO_LE:
    return A <= B;
  case BO_GT:
    return A > B;
  case BO_GE:
    return A >= B;
  case BO_NE:
    return A != B;
  default:
    return false;
  }
}

std::optional<int64_t> stepped(BinaryOperatorKind Step, int64_t V, int64_t By) {
  switch (Step) {
  case BO_AddAssign:
    return V + By;
  case BO_SubAssign:
    return V - By;
  case BO_MulAssign:
    return V * By;
  case BO_DivAssign:
    return By ? std::optional<int64_t>(V / By) : std::nullopt;
  case BO_ShlAssign:
    return By >= 0 && By < 62 ? std::optional<int64_t>(V << By) : std::nullopt;
  case BO_ShrAssign:
    return By >= 0 && By < 62 ? std::optional<int64_t>(V >> By) : std::nullopt;
  default:
    return std::nullopt;
  }
}

/// The values a loop variable takes, or nothing when there are more than
/// \p Limit or the loop does not end.
std::optional<std::vector<int64_t>> iterate(const LoopShape &L, int64_t Init,
                                            int64_t Bound, int64_t By,
                                            size_t Limit) {
  std::vector<int64_t> Out;
  int64_t V = Init;
  while (L.VarOnLeft ? holds(L.Cmp, V, Bound) : holds(L.Cmp, Bound, V)) {
    if (Out.size() >= Limit)
      return std::nullopt;
    Out.push_back(V);
    auto Next = stepped(L.Step, V, By);
    if (!Next || *Next == V)
      return std::nullopt;
    V = *Next;
  }
  return Out;
}

} // namespace

// --- Issue slots ------------------------------------------------------------

TripCount IssueCounter::trips(const ForStmt *F) {
  TripCount T;
  auto Assume = [&](const std::string &Why) {
    T.Trips = C.AssumedTrips;
    T.Constant = false;
    T.Assumption = "the loop at line " + std::to_string(lineOf(Ctx, F)) +
                   " is assumed to run " + formatTrips(C.AssumedTrips) +
                   " times (" + Why + ")";
    return T;
  };
  std::optional<LoopShape> L = loopShape(F);
  if (!L)
    return Assume("its shape is not `for (v = a; v < b; v += c)`");
  bool Constant = true;
  auto Value = [&](const Expr *E) -> std::optional<double> {
    if (auto K = integerConstantValue(Ctx, E))
      return double(*K);
    if (const VarDecl *V = referencedVar(E)) {
      auto It = MeanOf.find(V);
      if (It != MeanOf.end()) {
        if (!ConstantVars.count(V))
          Constant = false;
        return It->second;
      }
    }
    return std::nullopt;
  };
  auto Init = Value(L->Init), Bound = Value(L->Bound);
  std::optional<double> By = L->StepBy ? Value(L->StepBy) : 1.0;
  if (!Init || !Bound || !By)
    return Assume("its bounds are not constants");
  auto Values =
      iterate(*L, int64_t(std::llround(*Init)), int64_t(std::llround(*Bound)),
              int64_t(std::llround(*By)), 1 << 20);
  if (!Values)
    return Assume("it does not end within 2^20 iterations");
  T.Trips = double(Values->size());
  T.Constant = Constant;
  double Sum = 0;
  for (int64_t V : *Values)
    Sum += double(V);
  MeanOf[L->Var] = Values->empty() ? *Init : Sum / double(Values->size());
  if (Constant)
    ConstantVars.insert(L->Var);
  return T;
}

std::string formatTrips(double T) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%g", T);
  return Buf;
}

double IssueCounter::slots(const Stmt *S) {
  if (!S)
    return 0;
  if (auto *F = dyn_cast<ForStmt>(S)) {
    double Init = slots(F->getInit());
    TripCount T = trips(F);
    if (!T.Assumption.empty())
      Assumed.push_back(T.Assumption);
    double Saved = Enclosing;
    bool Unrolled = T.Constant && Enclosing * T.Trips <= C.UnrollMaxTrips;
    Enclosing *= std::max(T.Trips, 1.0);
    double Body = slots(F->getBody()) + exprSlots(F->getCond()) +
                  exprSlots(F->getInc()) + (Unrolled ? 0 : C.LoopIteration);
    Enclosing = Saved;
    return Init + T.Trips * Body;
  }
  if (auto *W = dyn_cast<WhileStmt>(S)) {
    Assumed.push_back("the loop at line " + std::to_string(lineOf(Ctx, W)) +
                      " is assumed to run " + formatTrips(C.AssumedTrips) +
                      " times (a `while` loop)");
    return C.AssumedTrips *
           (slots(W->getBody()) + exprSlots(W->getCond()) + C.LoopIteration);
  }
  if (auto *D = dyn_cast<DoStmt>(S)) {
    Assumed.push_back("the loop at line " + std::to_string(lineOf(Ctx, D)) +
                      " is assumed to run " + formatTrips(C.AssumedTrips) +
                      " times (a `do` loop)");
    return C.AssumedTrips *
           (slots(D->getBody()) + exprSlots(D->getCond()) + C.LoopIteration);
  }
  if (auto *I = dyn_cast<IfStmt>(S)) {
    // A branch inside a side: a warp whose lanes disagree runs both sides,
    // predicated when they are short straight-line code.
    bool Pred = innerPredicated(I->getThen()) && innerPredicated(I->getElse());
    return exprSlots(I->getCond()) +
           (Pred ? 0 : C.IssueSlots.Branch + C.DivergedBranch) +
           slots(I->getThen()) + slots(I->getElse());
  }
  if (auto *DS = dyn_cast<DeclStmt>(S)) {
    double Sum = 0;
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        if (V->getInit())
          Sum += exprSlots(V->getInit());
    return Sum;
  }
  if (isa<Expr>(S))
    return exprSlots(S);
  double Sum = 0;
  for (const Stmt *Child : S->children())
    Sum += slots(Child);
  return Sum;
}

bool IssueCounter::predicated(const Stmt *S) {
  return isStraightLine(S) && slots(S) <= C.PredicateMaxSlots;
}

bool IssueCounter::innerPredicated(const Stmt *S) {
  return isStraightLine(S) && slots(S) <= C.InnerPredicateMaxSlots;
}

double IssueCounter::exprSlots(const Stmt *S) {
  if (!S)
    return 0;
  const CostTable::IssueWeights &W = C.IssueSlots;
  auto Children = [&](const Stmt *N) {
    double Sum = 0;
    for (const Stmt *Child : N->children())
      Sum += exprSlots(Child);
    return Sum;
  };
  auto IsMemory = [](const Expr *E) {
    E = E->IgnoreParens();
    if (isa<ArraySubscriptExpr>(E))
      return true;
    if (auto *U = dyn_cast<UnaryOperator>(E))
      return U->getOpcode() == UO_Deref;
    if (auto *M = dyn_cast<MemberExpr>(E))
      return M->isArrow();
    if (const VarDecl *V = referencedVar(E))
      return V->getType()->isReferenceType() || V->hasGlobalStorage();
    return false;
  };
  // The address of a memory operand, without the load itself.
  auto Address = [&](const Expr *E) {
    E = E->IgnoreParens();
    if (auto *A = dyn_cast<ArraySubscriptExpr>(E))
      return exprSlots(A->getBase()) + exprSlots(A->getIdx()) + W.Alu;
    if (auto *U = dyn_cast<UnaryOperator>(E))
      return exprSlots(U->getSubExpr());
    if (auto *M = dyn_cast<MemberExpr>(E))
      return exprSlots(M->getBase());
    return 0.0;
  };
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    const Expr *L = B->getLHS();
    if (B->getOpcode() == BO_Assign) {
      if (IsMemory(L))
        return W.Store + Address(L) + exprSlots(B->getRHS());
      return exprSlots(B->getRHS());
    }
    double Op = W.Alu;
    switch (B->getOpcode()) {
    case BO_Mul:
    case BO_MulAssign:
      Op = W.Mul;
      break;
    case BO_Div:
    case BO_Rem:
    case BO_DivAssign:
    case BO_RemAssign:
      Op = W.Div;
      break;
    case BO_LT:
    case BO_GT:
    case BO_LE:
    case BO_GE:
    case BO_EQ:
    case BO_NE:
    case BO_LAnd:
    case BO_LOr:
      Op = W.Compare;
      break;
    case BO_Comma:
      Op = 0;
      break;
    default:
      break;
    }
    if (B->isCompoundAssignmentOp()) {
      if (IsMemory(L))
        return W.Load + Op + W.Store + Address(L) + exprSlots(B->getRHS());
      return Op + exprSlots(B->getRHS());
    }
    return Op + exprSlots(L) + exprSlots(B->getRHS());
  }
  if (auto *U = dyn_cast<UnaryOperator>(S)) {
    if (U->isIncrementDecrementOp()) {
      if (IsMemory(U->getSubExpr()))
        return W.Load + W.Alu + W.Store + Address(U->getSubExpr());
      return W.Alu;
    }
    if (U->getOpcode() == UO_Deref)
      return exprSlots(U->getSubExpr()); // The load is the rvalue cast's.
    if (U->getOpcode() == UO_AddrOf)
      return Address(U->getSubExpr());
    return W.Alu + exprSlots(U->getSubExpr());
  }
  if (auto *Cast = dyn_cast<ImplicitCastExpr>(S)) {
    if (Cast->getCastKind() == CK_LValueToRValue &&
        IsMemory(Cast->getSubExpr()))
      return W.Load + Address(Cast->getSubExpr());
  }
  if (auto *Cast = dyn_cast<CastExpr>(S)) {
    CastKind K = Cast->getCastKind();
    double Own = (K == CK_IntegralToFloating || K == CK_FloatingToIntegral ||
                  K == CK_FloatingCast)
                     ? W.Convert
                     : 0;
    return Own + exprSlots(Cast->getSubExpr());
  }
  if (auto *A = dyn_cast<ArraySubscriptExpr>(S))
    return Address(A); // An lvalue not read here (a reference argument).
  if (isa<ConditionalOperator>(S))
    return W.Select + Children(S);
  if (auto *Call = dyn_cast<CallExpr>(S)) {
    double Args = 0;
    for (const Expr *Arg : Call->arguments())
      Args += exprSlots(Arg);
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->hasBody() && CallDepth < 3 &&
        !Callee->getBuiltinID()) {
      // A __device__ function: what its body issues (nvcc inlines it).
      ++CallDepth;
      double Body = slots(Callee->getBody());
      --CallDepth;
      return Args + Body;
    }
    return Args + W.Call;
  }
  std::string Obj, Comp;
  if (auto *E = dyn_cast<Expr>(S))
    if (builtinVariable(E, Obj, Comp))
      return 0;
  return Children(S);
}

// --- Warps whose lanes disagree ----------------------------------------------

namespace {

/// What evaluating a branch's condition lane by lane found.
struct ReachWalk {
  bool Failed = false;
  bool IgnoredGuard = false;
  std::string Missing;
};

/// \p Values: -1 where a thread of the block does not reach \p If under
/// \p Guards (an if around it and the side \p If is on), else its
/// condition's truth; every expression evaluated for all threads at once.
/// False where some thread's evaluation fails: the caller then goes thread
/// by thread, which ignores a guard a thread cannot evaluate and says what
/// stopped it.
bool reachInEveryLane(
    LaneEval &Eval, const std::vector<std::pair<const IfStmt *, bool>> &Guards,
    const IfStmt *If, std::vector<int> &Values) {
  std::vector<char> Active(Values.size(), 1);
  for (auto [G, Side] : Guards) {
    std::optional<LaneValues> V = Eval.evalLanes(G->getCond());
    if (!V)
      return false;
    for (size_t T = 0; T < Values.size(); ++T)
      if ((V->at(T) != 0) != Side)
        Active[T] = 0;
  }
  std::optional<LaneValues> Taken = Eval.evalLanes(If->getCond());
  if (!Taken)
    return false;
  for (size_t T = 0; T < Values.size(); ++T)
    Values[T] = Active[T] ? Taken->at(T) != 0 : -1;
  return true;
}

/// Evaluates \p If's condition for every thread of the first few blocks of
/// \p Threads threads, over the iteration space of the loops around it and
/// under the conditions of the ifs around it; calls \p OnReach once per
/// block and iteration with the value per thread: -1 where the thread does
/// not reach the branch, else the condition's truth.
ReachWalk
forEachReach(ASTContext &Ctx, const FunctionDecl *FD,
             const FunctionDecl *Instance, const IfStmt *If, unsigned Threads,
             const std::function<void(const std::vector<int> &)> &OnReach) {
  ReachWalk Out;
  std::vector<const Stmt *> Path = pathTo(FD->getBody(), If);
  if (Path.empty() || !Threads) {
    Out.Failed = true;
    Out.Missing = "the branch was not found";
    return Out;
  }
  LaneEval Eval(Ctx, FD, Instance, Threads);
  // A few blocks: conditions on the global index depend on blockIdx.x.
  const unsigned Blocks = 4;
  size_t Budget = 1u << 22; // Lane evaluations.
  bool Failed = false;
  // Conditions of the ifs around the branch: (if, the side it is on).
  std::vector<std::pair<const IfStmt *, bool>> Guards;
  std::vector<int> Values(Threads);
  std::function<void(size_t)> Walk = [&](size_t I) {
    if (Failed)
      return;
    const Stmt *S = Path[I];
    if (S == If) {
      for (unsigned B = 0; B < Blocks && !Failed; ++B) {
        Eval.Block = B;
        if (Budget >= Threads && reachInEveryLane(Eval, Guards, If, Values)) {
          Budget -= Threads;
          OnReach(Values);
          continue;
        }
        for (unsigned Tid = 0; Tid < Threads; ++Tid) {
          if (Budget-- == 0) {
            Failed = true;
            Eval.Missing = "too many iterations to evaluate";
            return;
          }
          Eval.Lane = Tid;
          bool Active = true;
          for (auto [G, Side] : Guards) {
            auto V = Eval.eval(G->getCond());
            if (!V) {
              Out.IgnoredGuard = true;
              Eval.Missing.clear();
              continue;
            }
            if ((*V != 0) != Side) {
              Active = false;
              break;
            }
          }
          Values[Tid] = -1;
          if (!Active)
            continue;
          auto V = Eval.eval(If->getCond());
          if (!V) {
            Failed = true;
            return;
          }
          Values[Tid] = *V != 0;
        }
        Eval.Lane = -1;
        OnReach(Values);
      }
      return;
    }
    const Stmt *Next = Path[I + 1];
    if (auto *F = dyn_cast<ForStmt>(S)) {
      if (Next != F->getBody())
        return Walk(I + 1); // Inside the header: not reached per iteration.
      // A loop whose iterations cannot be listed leaves its variable
      // unknown: a condition that reads it is then not evaluated.
      std::optional<LoopShape> L = loopShape(F);
      std::optional<int64_t> Init, Bound, By;
      if (L) {
        std::string Saved = Eval.Missing;
        Init = Eval.eval(L->Init);
        Bound = Eval.eval(L->Bound);
        By = L->StepBy ? Eval.eval(L->StepBy) : 1;
        Eval.Missing = Saved;
      }
      std::optional<std::vector<int64_t>> Values;
      if (L && Init && Bound && By)
        Values = iterate(*L, *Init, *Bound, *By, 1 << 16);
      if (!Values) {
        if (L)
          Eval.Env.erase(L->Var);
        return Walk(I + 1);
      }
      for (int64_t V : *Values) {
        Eval.Env[L->Var] = V;
        Walk(I + 1);
        if (Failed)
          return;
      }
      Eval.Env.erase(L->Var);
      return;
    }
    if (isa<WhileStmt>(S) || isa<DoStmt>(S)) {
      Failed = true;
      Eval.Missing = "a `while` loop around it";
      return;
    }
    if (auto *G = dyn_cast<IfStmt>(S)) {
      if (Next == G->getThen() || Next == G->getElse()) {
        Guards.push_back({G, Next == G->getThen()});
        Walk(I + 1);
        Guards.pop_back();
        return;
      }
    }
    Walk(I + 1);
  };
  Walk(0);
  Out.Failed = Failed;
  Out.Missing = Eval.Missing;
  return Out;
}

} // namespace

WarpMix warpMixing(ASTContext &Ctx, const FunctionDecl *FD,
                   const FunctionDecl *Instance, const IfStmt *If,
                   unsigned Threads) {
  WarpMix Out;
  double Mixed = 0, Total = 0;
  ReachWalk R = forEachReach(
      Ctx, FD, Instance, If, Threads, [&](const std::vector<int> &Values) {
        for (size_t W = 0; W < Values.size(); W += 32) {
          bool Seen[2] = {false, false};
          for (size_t T = W; T < std::min(W + 32, Values.size()); ++T)
            if (Values[T] >= 0)
              Seen[Values[T]] = true;
          if (Seen[0] || Seen[1]) {
            Total += 1;
            if (Seen[0] && Seen[1])
              Mixed += 1;
          }
        }
      });
  if (R.Failed || Total == 0) {
    Out.Basis = R.Missing.empty() ? "no warp reaches it" : R.Missing;
    return Out;
  }
  Out.Known = true;
  Out.Fraction = Mixed / Total;
  Out.Basis =
      "evaluated lane by lane at " + std::to_string(Threads) +
      " threads per block" +
      (R.IgnoredGuard ? " (a data-dependent guard around it ignored)" : "");
  return Out;
}

GuardPacking guardPacking(ASTContext &Ctx, const FunctionDecl *FD,
                          const FunctionDecl *Instance, const IfStmt *If,
                          unsigned Threads) {
  GuardPacking Out;
  ReachWalk R = forEachReach(
      Ctx, FD, Instance, If, Threads, [&](const std::vector<int> &Values) {
        unsigned True = 0;
        for (size_t W = 0; W < Values.size(); W += 32) {
          bool Reached = false, Any = false, Seen[2] = {false, false};
          for (size_t T = W; T < std::min(W + 32, Values.size()); ++T) {
            if (Values[T] < 0)
              continue;
            Reached = true;
            Seen[Values[T]] = true;
            if (Values[T] == 1) {
              Any = true;
              ++True;
            }
          }
          Out.Reached += Reached;
          Out.Active += Any;
          Out.Mixed += Seen[0] && Seen[1];
        }
        Out.Packed += (True + 31) / 32;
      });
  if (R.Failed || Out.Reached == 0) {
    Out.Basis = R.Missing.empty() ? "no warp reaches it" : R.Missing;
    return Out;
  }
  Out.Known = !R.IgnoredGuard;
  if (R.IgnoredGuard)
    Out.Basis = "a data-dependent guard around it";
  else
    Out.Basis = "evaluated lane by lane at " + std::to_string(Threads) +
                " threads per block";
  return Out;
}

// --- Traffic ----------------------------------------------------------------

namespace {

struct TrafficWalker {
  ASTContext &Ctx;
  const CostTable &C;
  double Memory = 0;
  unsigned Global = 0, Constant = 0;
  bool InLoop = false;

  static bool isConstantMemory(const Expr *Base) {
    const VarDecl *V = referencedVar(Base);
    return V && V->hasAttr<CUDAConstantAttr>();
  }
  void walk(const Stmt *S) {
    if (!S)
      return;
    if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)) {
      bool Saved = InLoop;
      InLoop = true;
      for (const Stmt *Child : S->children())
        walk(Child);
      InLoop = Saved;
      return;
    }
    if (auto *A = dyn_cast<ArraySubscriptExpr>(S)) {
      const Expr *Base = A->getBase()->IgnoreParenImpCasts();
      QualType T = A->getType();
      double Bytes = T->isIncompleteType() || T->isDependentType() ||
                             !T->isConstantSizeType()
                         ? 4.0
                         : double(Ctx.getTypeSize(T) / 8);
      if (isConstantMemory(Base)) {
        // Indexed __constant__ loads serialise per distinct address; the
        // index is assumed to differ per lane unless it is a constant.
        if (!integerConstantValue(Ctx, A->getIdx())) {
          Memory += C.ConstantReplaySlots * 32;
          ++Constant;
        }
      } else if (!InLoop && Base->getType()->isPointerType()) {
        const VarDecl *V = referencedVar(Base);
        bool Shared = V && V->hasAttr<CUDASharedAttr>();
        if (!Shared) {
          // One coalesced access per warp: 32 lanes of Bytes each.
          Memory += C.SectorSlots * (32 * Bytes / 32);
          ++Global;
        }
      }
    }
    for (const Stmt *Child : S->children())
      walk(Child);
  }
};

} // namespace

TrafficEstimate kernelTraffic(ASTContext &Ctx, const FunctionDecl *FD,
                              const CostTable &C) {
  TrafficEstimate Out;
  IssueCounter Counter(Ctx, C);
  Out.Issue = Counter.slots(FD->getBody());
  TrafficWalker W{Ctx, C};
  W.walk(FD->getBody());
  Out.Memory = W.Memory;
  Out.Basis = std::to_string(W.Global) + " global access" +
              (W.Global == 1 ? "" : "es") + " outside loops" +
              (W.Constant ? ", " + std::to_string(W.Constant) +
                                " indexed __constant__ load" +
                                (W.Constant == 1 ? "" : "s")
                          : "");
  return Out;
}

const Stmt *enclosingLoopBody(const FunctionDecl *FD, const Stmt *S) {
  std::vector<const Stmt *> Path = pathTo(FD->getBody(), S);
  if (Path.empty())
    return FD->getBody();
  for (size_t I = Path.size(); I-- > 1;) {
    const Stmt *P = Path[I - 1];
    if (auto *F = dyn_cast<ForStmt>(P))
      if (F->getBody() == Path[I])
        return Path[I];
    if (auto *W = dyn_cast<WhileStmt>(P))
      if (W->getBody() == Path[I])
        return Path[I];
    if (auto *D = dyn_cast<DoStmt>(P))
      if (D->getBody() == Path[I])
        return Path[I];
  }
  return FD->getBody();
}

} // namespace warpwise
