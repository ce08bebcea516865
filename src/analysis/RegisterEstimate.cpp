//===- RegisterEstimate.cpp - Live-value register pressure ----------------===//
#include "RegisterEstimate.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/LiveVariables.h"
#include "clang/Analysis/AnalysisDeclContext.h"
#include "clang/Basic/SourceManager.h"

#include <set>

namespace warpwise {

using namespace clang;

struct PointPressure {
  SourceLocation Loc;
  unsigned Regs;
};

struct RegisterEstimator::Impl {
  ASTContext &Ctx;
  std::vector<PointPressure> Points;
  Impl(ASTContext &C) : Ctx(C) {}
};

namespace {

/// 32-bit registers a value of type \p T occupies.
unsigned typeWeight(ASTContext &Ctx, QualType T) {
  if (T->isReferenceType() || T->isPointerType())
    return 2;
  if (const auto *A = Ctx.getAsConstantArrayType(T)) {
    // Small, fully unrolled arrays end up in registers; large ones in local
    // memory.
    unsigned Elem = typeWeight(Ctx, A->getElementType());
    uint64_t N = A->getSize().getZExtValue();
    return N * Elem <= 64 ? N * Elem : 0;
  }
  if (T->isIncompleteType() || T->isDependentType())
    return 1;
  uint64_t Bits = Ctx.getTypeSize(T);
  unsigned W = (Bits + 31) / 32;
  return W == 0 ? 1 : std::min(W, 16u);
}

/// Registers an expression needs for intermediate results beyond its
/// operands (Sethi-Ullman numbering of the binary tree).
unsigned sethiUllman(const Expr *E) {
  if (!E)
    return 0;
  E = E->IgnoreParenImpCasts();
  if (auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAssignmentOp())
      return sethiUllman(B->getRHS());
    unsigned L = sethiUllman(B->getLHS()), R = sethiUllman(B->getRHS());
    return L == R ? L + 1 : std::max(L, R);
  }
  if (auto *C = dyn_cast<ConditionalOperator>(E))
    return std::max({sethiUllman(C->getCond()), sethiUllman(C->getTrueExpr()),
                     sethiUllman(C->getFalseExpr())}) +
           1;
  if (auto *Call = dyn_cast<CallExpr>(E)) {
    unsigned M = 0, I = 0;
    for (const Expr *A : Call->arguments())
      M = std::max(M, sethiUllman(A) + I++);
    return std::max(M, 1u);
  }
  if (auto *U = dyn_cast<UnaryOperator>(E))
    return std::max(sethiUllman(U->getSubExpr()), 1u);
  if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    unsigned L = sethiUllman(A->getBase()), R = sethiUllman(A->getIdx());
    return L == R ? L + 1 : std::max(L, R);
  }
  return 1;
}

/// Variables an expression reads (they are live while it runs even when it is
/// their last use).
void collectUses(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      if (V->hasLocalStorage())
        Out.insert(V);
  for (const Stmt *C : S->children())
    collectUses(C, Out);
}

class Observer : public LiveVariables::Observer {
public:
  Observer(RegisterEstimator::Impl &P) : P(P) {}
  void observeStmt(const Stmt *S, const CFGBlock *,
                   const LiveVariables::LivenessValues &V) override {
    std::set<const VarDecl *> Live(V.liveDecls.begin(), V.liveDecls.end());
    collectUses(S, Live);
    unsigned Regs = 0;
    for (const VarDecl *D : Live)
      Regs += typeWeight(P.Ctx, D->getType());
    if (auto *E = dyn_cast<Expr>(S)) {
      unsigned SU = sethiUllman(E);
      Regs += SU > 1 ? SU - 1 : 0;
    }
    P.Points.push_back({S->getBeginLoc(), Regs});
  }

private:
  RegisterEstimator::Impl &P;
};

} // namespace

RegisterEstimator::RegisterEstimator(ASTContext &Ctx, const FunctionDecl *FD)
    : P(std::make_unique<Impl>(Ctx)) {
  AnalysisDeclContextManager Mgr(Ctx);
  AnalysisDeclContext *AC = Mgr.getContext(FD);
  if (!AC || !AC->getCFG())
    return;
  std::unique_ptr<LiveVariables> LV =
      LiveVariables::computeLiveness(*AC, /*killAtAssign=*/true);
  if (!LV)
    return;
  Observer Obs(*P);
  LV->runOnAllBlocks(Obs);
}

RegisterEstimator::~RegisterEstimator() = default;

static RegionPressure peak(const RegisterEstimator::Impl &P,
                           SourceLocation Begin, SourceLocation End) {
  const SourceManager &SM = P.Ctx.getSourceManager();
  RegionPressure R;
  for (const PointPressure &Pt : P.Points) {
    if (Pt.Loc.isInvalid())
      continue;
    SourceLocation L = SM.getExpansionLoc(Pt.Loc);
    if (Begin.isValid() && (SM.isBeforeInTranslationUnit(L, Begin) ||
                            SM.isBeforeInTranslationUnit(End, L)))
      continue;
    if (Pt.Regs > R.MaxLive) {
      R.MaxLive = Pt.Regs;
      R.Line = SM.getExpansionLineNumber(L);
    }
  }
  return R;
}

RegionPressure RegisterEstimator::whole() const {
  return peak(*P, SourceLocation(), SourceLocation());
}

RegionPressure RegisterEstimator::region(const Stmt *Region) const {
  if (!Region)
    return {};
  const SourceManager &SM = P->Ctx.getSourceManager();
  return peak(*P, SM.getExpansionLoc(Region->getBeginLoc()),
              SM.getExpansionLoc(Region->getEndLoc()));
}

} // namespace warpwise
