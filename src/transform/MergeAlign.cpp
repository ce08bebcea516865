//===- MergeAlign.cpp - Matching and aligning two sides -------------------===//
//
// What matching two statements saves (CFM's latency weights), which of
// their operands must be selected, and the Needleman-Wunsch alignment of
// two statement lists.
//
//===----------------------------------------------------------------------===//
#include "MergeEngine.h"
#include "SideEffects.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/ExprCXX.h"

#include <algorithm>

namespace warpwise {
namespace merge {

bool floatProduct(const Expr *E) {
  auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  return BO && BO->getOpcode() == BO_Mul && BO->getType()->isRealFloatingType();
}

// --- Costs -------------------------------------------------------------------

double Merger::cost(const Stmt *S) const {
  if (!S)
    return 0;
  double Own = 0;
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    switch (B->getOpcode()) {
    case BO_Add:
    case BO_Sub:
    case BO_AddAssign:
    case BO_SubAssign:
      Own = C.Add;
      break;
    case BO_Mul:
    case BO_MulAssign:
      Own = C.Mul;
      break;
    case BO_Div:
    case BO_Rem:
    case BO_DivAssign:
    case BO_RemAssign:
      Own = C.Div;
      break;
    case BO_Assign: {
      const Expr *L = B->getLHS()->IgnoreParenImpCasts();
      Own = isa<DeclRefExpr>(L) ? 0 : C.Store;
      break;
    }
    case BO_Comma:
      Own = 0;
      break;
    default:
      Own = C.Other;
    }
    // A store's address is not a load.
    if (B->getOpcode() == BO_Assign &&
        !isa<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts())) {
      double Sub = 0;
      for (const Stmt *Child : B->getLHS()->children())
        Sub += cost(Child);
      return Own + Sub + cost(B->getRHS());
    }
  } else if (isa<ArraySubscriptExpr>(S)) {
    Own = C.Load;
  } else if (auto *U = dyn_cast<UnaryOperator>(S)) {
    Own = U->getOpcode() == UO_Deref ? C.Load : C.Other;
  } else if (isa<CallExpr>(S)) {
    Own = C.Call;
  } else if (isa<ConditionalOperator>(S)) {
    Own = C.Select;
  } else if (auto *Cast = dyn_cast<CastExpr>(S)) {
    CastKind K = Cast->getCastKind();
    Own = (K == CK_IntegralToFloating || K == CK_FloatingToIntegral ||
           K == CK_FloatingCast)
              ? C.Other
              : 0;
  } else if (isa<IfStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S)) {
    Own = C.Branch;
  }
  double Sum = Own;
  for (const Stmt *Child : S->children())
    Sum += cost(Child);
  return Sum;
}

// --- Matching ----------------------------------------------------------------

bool Merger::sameVar(const Expr *A, const Expr *B) const {
  auto *RA = dyn_cast<DeclRefExpr>(A);
  auto *RB = dyn_cast<DeclRefExpr>(B);
  if (!RA || !RB)
    return false;
  if (RA->getDecl() == RB->getDecl())
    return true;
  auto *VA = dyn_cast<VarDecl>(RA->getDecl());
  auto *VB = dyn_cast<VarDecl>(RB->getDecl());
  if (!VA || !VB)
    return false;
  auto It = Partner.find(VA);
  return It != Partner.end() && It->second == VB;
}

bool Merger::selectable(const Expr *A, const Expr *B) const {
  // `c ? a : b` must have the type each operand had, and evaluate nothing
  // that could change another thread's view of memory.
  QualType TA = A->getType().getCanonicalType().getUnqualifiedType();
  QualType TB = B->getType().getCanonicalType().getUnqualifiedType();
  if (TA != TB || TA->isArrayType() || TA->isRecordType())
    return false;
  if (A->isLValue() != B->isLValue())
    return false;
  if (hasEffects(A) || hasEffects(B))
    return false;
  // nvcc contracts a floating-point product with the add that consumes it
  // into one fma (-fmad=true, its default), even across statements. A
  // select between a product and its consumer blocks that, so the program
  // would round differently: a product is selected only as part of the
  // whole expression that consumes it, unless the build uses -fmad=false.
  if (KeepContraction && TA->isRealFloatingType() &&
      (floatProduct(A) || floatProduct(B)))
    return false;
  // The operands are printed from the source: each must be a whole file
  // range (a macro argument or a complete macro invocation).
  return fileRange(B->getSourceRange()).isValid() && replaceable(A);
}

bool Merger::replaceable(const Expr *A) const {
  if (!fileRange(A->getSourceRange()).isValid())
    return false;
  // Side A's operand is replaced where it is written. A macro argument may
  // be expanded more than once (`#define TWICE(x) x + x`), and replacing
  // its text would change every use; only file text and whole macro
  // invocations are replaced.
  return SM.getExpansionLoc(A->getBeginLoc()).isValid() &&
         !SM.isMacroArgExpansion(A->getBeginLoc()) &&
         !SM.isMacroArgExpansion(A->getEndLoc());
}

bool Merger::matchExpr(const Expr *A, const Expr *B, Selects &Sel,
                       bool Optimistic, bool AllowRootSelect) const {
  if (auto *PA = dyn_cast<ParenExpr>(A))
    if (auto *PB = dyn_cast<ParenExpr>(B))
      return matchExpr(PA->getSubExpr(), PB->getSubExpr(), Sel, Optimistic,
                       AllowRootSelect);
  auto SelectHere = [&]() {
    if (!AllowRootSelect || !selectable(A, B))
      return false;
    Sel.Points.push_back({A, B});
    return true;
  };
  if (A->getStmtClass() != B->getStmtClass())
    return SelectHere();
  if (A->getType().getCanonicalType() != B->getType().getCanonicalType())
    return SelectHere();
  if (isa<DeclRefExpr>(A)) {
    if (sameVar(A, B))
      return true;
    if (Optimistic) {
      const VarDecl *VA = referencedVar(A), *VB = referencedVar(B);
      if (VA && VB && Local[SideA].count(VA) && Local[SideB].count(VB) &&
          !Partner.count(VA) && !Partner.count(VB))
        return true; // They may still be paired.
    }
    return SelectHere();
  }
  if (auto *IA = dyn_cast<IntegerLiteral>(A))
    return IA->getValue() == cast<IntegerLiteral>(B)->getValue() ||
           SelectHere();
  if (auto *FA = dyn_cast<FloatingLiteral>(A))
    return FA->getValue().bitwiseIsEqual(
               cast<FloatingLiteral>(B)->getValue()) ||
           SelectHere();
  if (auto *CA = dyn_cast<CharacterLiteral>(A))
    return CA->getValue() == cast<CharacterLiteral>(B)->getValue() ||
           SelectHere();
  if (auto *BA = dyn_cast<CXXBoolLiteralExpr>(A))
    return BA->getValue() == cast<CXXBoolLiteralExpr>(B)->getValue() ||
           SelectHere();
  if (auto *OA = dyn_cast<BinaryOperator>(A)) {
    auto *OB = cast<BinaryOperator>(B);
    if (OA->getOpcode() != OB->getOpcode())
      return SelectHere();
    // A store's target must be the same memory on both sides (each thread
    // then stores its own value there); a local variable may be selected.
    bool LocalTarget = isa<DeclRefExpr>(OA->getLHS()->IgnoreParenImpCasts()) &&
                       isa<DeclRefExpr>(OB->getLHS()->IgnoreParenImpCasts());
    if (OA->isAssignmentOp() && !LocalTarget) {
      Selects Target;
      if (!matchExpr(OA->getLHS(), OB->getLHS(), Target, Optimistic, false) ||
          !Target.Points.empty() || !Target.Calls.empty())
        return false;
    } else if (!matchExpr(OA->getLHS(), OB->getLHS(), Sel, Optimistic, true)) {
      return false;
    }
    return matchExpr(OA->getRHS(), OB->getRHS(), Sel, Optimistic, true);
  }
  if (auto *UA = dyn_cast<UnaryOperator>(A)) {
    auto *UB = cast<UnaryOperator>(B);
    if (UA->getOpcode() != UB->getOpcode())
      return SelectHere();
    bool Inc = UA->isIncrementDecrementOp();
    return matchExpr(
        UA->getSubExpr(), UB->getSubExpr(), Sel, Optimistic,
        !Inc || isa<DeclRefExpr>(UA->getSubExpr()->IgnoreParenImpCasts()));
  }
  if (auto *CA = dyn_cast<CastExpr>(A)) {
    if (CA->getCastKind() != cast<CastExpr>(B)->getCastKind())
      return SelectHere();
    if (isa<ExplicitCastExpr>(A) &&
        cast<ExplicitCastExpr>(A)->getTypeAsWritten() !=
            cast<ExplicitCastExpr>(B)->getTypeAsWritten())
      return SelectHere();
    // An lvalue-to-rvalue conversion of two different variables: select the
    // values, not the lvalues.
    size_t Before = Sel.Points.size();
    Selects Inner;
    if (matchExpr(CA->getSubExpr(), cast<CastExpr>(B)->getSubExpr(), Inner,
                  Optimistic, false)) {
      Sel.append(Inner);
      return true;
    }
    Sel.Points.resize(Before);
    return SelectHere();
  }
  if (auto *AA = dyn_cast<ArraySubscriptExpr>(A)) {
    auto *AB = cast<ArraySubscriptExpr>(B);
    return matchExpr(AA->getBase(), AB->getBase(), Sel, Optimistic, true) &&
           matchExpr(AA->getIdx(), AB->getIdx(), Sel, Optimistic, true);
  }
  if (auto *KA = dyn_cast<CallExpr>(A)) {
    auto *KB = cast<CallExpr>(B);
    const FunctionDecl *FA = KA->getDirectCallee(), *FB = KB->getDirectCallee();
    // Two different __device__ functions: one call of their merge, when
    // their bodies can be merged as two sides are.
    bool Merged = FA && FB && FA != FB && !isa<CXXOperatorCallExpr>(KA) &&
                  !isa<CXXOperatorCallExpr>(KB) &&
                  KA->getNumArgs() == KB->getNumArgs() && replaceable(KA) &&
                  mergeCallees(FA, FB).OK;
    if (!Merged && (FA != FB || !FA || KA->getNumArgs() != KB->getNumArgs()))
      return SelectHere();
    // Impure calls (atomics, barriers, stores behind a call) only with
    // identical arguments.
    bool Pure = Merged || isPureCallee(FA);
    for (unsigned I = 0; I < KA->getNumArgs(); ++I) {
      Selects Args;
      if (!matchExpr(KA->getArg(I), KB->getArg(I), Args, Optimistic, Pure) ||
          (!Pure && (!Args.Points.empty() || !Args.Calls.empty())))
        return false;
      Sel.append(Args);
    }
    if (Merged)
      Sel.Calls.push_back({KA, KB});
    return true;
  }
  if (auto *MA = dyn_cast<MemberExpr>(A)) {
    auto *MB = cast<MemberExpr>(B);
    if (MA->getMemberDecl() != MB->getMemberDecl() ||
        MA->isArrow() != MB->isArrow())
      return SelectHere();
    return matchExpr(MA->getBase(), MB->getBase(), Sel, Optimistic, true);
  }
  if (isa<CXXThisExpr>(A))
    return true; // `this` is the same object on both sides.
  if (auto *TA = dyn_cast<ConditionalOperator>(A)) {
    auto *TB = cast<ConditionalOperator>(B);
    return matchExpr(TA->getCond(), TB->getCond(), Sel, Optimistic, true) &&
           matchExpr(TA->getTrueExpr(), TB->getTrueExpr(), Sel, Optimistic,
                     true) &&
           matchExpr(TA->getFalseExpr(), TB->getFalseExpr(), Sel, Optimistic,
                     true);
  }
  // Builtin variables (threadIdx.x) and anything else: equal when they are
  // the very same source text and contain no side-local variable.
  if (isa<PseudoObjectExpr>(A) || isa<MSPropertyRefExpr>(A))
    return text(A->getSourceRange()) == text(B->getSourceRange()) ||
           SelectHere();
  return SelectHere();
}

double Merger::pairScore(const Stmt *A, const Stmt *B, bool Optimistic) {
  if (auto *DA = dyn_cast<DeclStmt>(A)) {
    auto *DB = dyn_cast<DeclStmt>(B);
    if (!DB || !DA->isSingleDecl() || !DB->isSingleDecl())
      return -1;
    auto *VA = dyn_cast<VarDecl>(DA->getSingleDecl());
    auto *VB = dyn_cast<VarDecl>(DB->getSingleDecl());
    // A constexpr variable's initialiser must stay a constant.
    if (!VA || !VB || !VA->getInit() || !VB->getInit() || VA->isConstexpr() ||
        VB->isConstexpr() || VA->getInitStyle() != VarDecl::CInit ||
        VB->getInitStyle() != VarDecl::CInit ||
        VA->getType().getCanonicalType() != VB->getType().getCanonicalType() ||
        VA->getType()->isArrayType() || VA->getType()->isReferenceType())
      return -1;
    Selects S;
    if (!matchExpr(VA->getInit(), VB->getInit(), S, Optimistic, true))
      return -1;
    double Saved = cost(VA->getInit()) + callSavings(S);
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    return std::max(Saved, 0.001);
  }
  if (auto *EA = dyn_cast<Expr>(A)) {
    auto *EB = dyn_cast<Expr>(B);
    if (!EB)
      return -1;
    Selects S;
    if (!matchExpr(EA, EB, S, Optimistic, false))
      return -1;
    double Saved = cost(EA) + callSavings(S);
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    return std::max(Saved, 0.001);
  }
  if (!AllowCF)
    return -1;
  if (auto *IA = dyn_cast<IfStmt>(A)) {
    auto *IB = dyn_cast<IfStmt>(B);
    if (!IB || !IA->getElse() != !IB->getElse() || IA->getInit() ||
        IB->getInit() || IA->getConditionVariable() ||
        IB->getConditionVariable())
      return -1;
    Selects S;
    if (!matchExpr(IA->getCond(), IB->getCond(), S, Optimistic, true))
      return -1;
    double Saved = C.Branch + cost(IA->getCond());
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    // The bodies' own alignment adds to it; estimate with their cheaper side.
    Saved += 0.5 * std::min(cost(IA->getThen()), cost(IB->getThen()));
    if (IA->getElse())
      Saved += 0.5 * std::min(cost(IA->getElse()), cost(IB->getElse()));
    return std::max(Saved, 0.001);
  }
  if (auto *FA = dyn_cast<ForStmt>(A)) {
    auto *FB = dyn_cast<ForStmt>(B);
    if (!FB || !FA->getInit() != !FB->getInit() ||
        !FA->getCond() != !FB->getCond() || !FA->getInc() != !FB->getInc() ||
        FA->getConditionVariable() || FB->getConditionVariable())
      return -1;
    double Saved = C.Branch;
    if (FA->getInit()) {
      double S0 = pairScore(FA->getInit(), FB->getInit(), Optimistic);
      if (S0 < 0)
        return -1;
      Saved += S0;
    }
    Selects S;
    if (FA->getCond() &&
        !matchExpr(FA->getCond(), FB->getCond(), S, Optimistic, true))
      return -1;
    if (FA->getInc() &&
        !matchExpr(FA->getInc(), FB->getInc(), S, Optimistic, false))
      return -1;
    Saved -= S.Points.size() * C.Select;
    Saved += 0.5 * std::min(cost(FA->getBody()), cost(FB->getBody()));
    return std::max(Saved, 0.001);
  }
  if (auto *WA = dyn_cast<WhileStmt>(A)) {
    auto *WB = dyn_cast<WhileStmt>(B);
    if (!WB || WA->getConditionVariable() || WB->getConditionVariable())
      return -1;
    Selects S;
    if (!matchExpr(WA->getCond(), WB->getCond(), S, Optimistic, true))
      return -1;
    double Saved = C.Branch - S.Points.size() * C.Select +
                   0.5 * std::min(cost(WA->getBody()), cost(WB->getBody()));
    return std::max(Saved, 0.001);
  }
  return -1;
}

std::vector<Merger::Step> Merger::align(const std::vector<const Stmt *> &A,
                                        const std::vector<const Stmt *> &B) {
  size_t N = A.size(), M = B.size();
  std::vector<std::vector<double>> Score(N, std::vector<double>(M));
  for (size_t I = 0; I < N; ++I)
    for (size_t J = 0; J < M; ++J)
      Score[I][J] = pairScore(A[I], B[J], /*Optimistic=*/true);
  // Needleman-Wunsch with free gaps: the best total of savings.
  std::vector<std::vector<double>> D(N + 1, std::vector<double>(M + 1, 0));
  for (size_t I = 1; I <= N; ++I)
    for (size_t J = 1; J <= M; ++J) {
      double Best = std::max(D[I - 1][J], D[I][J - 1]);
      if (Score[I - 1][J - 1] > 0)
        Best = std::max(Best, D[I - 1][J - 1] + Score[I - 1][J - 1]);
      D[I][J] = Best;
    }
  std::vector<Step> Rev;
  size_t I = N, J = M;
  while (I > 0 || J > 0) {
    if (I > 0 && J > 0 && Score[I - 1][J - 1] > 0 &&
        D[I][J] == D[I - 1][J - 1] + Score[I - 1][J - 1]) {
      Rev.push_back({Step::Match, A[I - 1], B[J - 1]});
      --I;
      --J;
    } else if (J > 0 && (I == 0 || D[I][J] == D[I][J - 1])) {
      Rev.push_back({Step::OnlyB, nullptr, B[J - 1]});
      --J;
    } else {
      Rev.push_back({Step::OnlyA, A[I - 1], nullptr});
      --I;
    }
  }
  std::reverse(Rev.begin(), Rev.end());
  // Between two matches print side A's statements before side B's.
  std::vector<Step> Steps;
  size_t K = 0;
  while (K < Rev.size()) {
    if (Rev[K].K == Step::Match) {
      Steps.push_back(Rev[K++]);
      continue;
    }
    std::vector<Step> As, Bs;
    for (; K < Rev.size() && Rev[K].K != Step::Match; ++K)
      (Rev[K].K == Step::OnlyA ? As : Bs).push_back(Rev[K]);
    Steps.insert(Steps.end(), As.begin(), As.end());
    Steps.insert(Steps.end(), Bs.begin(), Bs.end());
  }
  return Steps;
}
} // namespace merge
} // namespace warpwise
