//===- SideEffects.cpp - What evaluating an expression changes ------------===//
#include "SideEffects.h"

#include "../analysis/MemoryAccess.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

namespace warpwise {

using namespace clang;

bool isPureCallee(const FunctionDecl *F) {
  if (!F)
    return false;
  if (F->hasAttr<ConstAttr>() || F->hasAttr<PureAttr>() ||
      (F->getIdentifier() && F->getName().starts_with("__fetch_builtin")))
    return true; // threadIdx.x and friends.
  return !summarizeFunction(F).writes();
}

bool hasEffects(const Stmt *S) {
  if (!S)
    return false;
  if (auto *B = dyn_cast<BinaryOperator>(S))
    if (B->isAssignmentOp())
      return true;
  if (auto *U = dyn_cast<UnaryOperator>(S))
    if (U->isIncrementDecrementOp())
      return true;
  if (auto *C = dyn_cast<CallExpr>(S)) {
    if (isa<CUDAKernelCallExpr>(C))
      return true;
    std::vector<const FunctionDecl *> Cands = calleeCandidates(C);
    if (auto *Op = dyn_cast<CXXOperatorCallExpr>(C)) {
      OverloadedOperatorKind K = Op->getOperator();
      if (Op->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus)
        return true;
      // A builtin operator on a dependent operand has no effect of its own.
      if (Cands.empty() && !C->isTypeDependent())
        return true;
    } else if (Cands.empty()) {
      return true;
    }
    for (const FunctionDecl *F : Cands)
      if (!isPureCallee(F))
        return true;
  }
  if (isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S) || isa<AsmStmt>(S))
    return true;
  if (auto *E = dyn_cast<CXXConstructExpr>(S))
    if (E->getConstructor() && !E->getConstructor()->isTrivial() &&
        !isPureCallee(E->getConstructor()))
      return true;
  for (const Stmt *Child : S->children())
    if (hasEffects(Child))
      return true;
  return false;
}

} // namespace warpwise
