//===- MemoryAccess.cpp - Which memory a statement touches ----------------===//
#include "MemoryAccess.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace warpwise {

using namespace clang;

const VarDecl *accessBase(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  for (;;) {
    if (auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase()->IgnoreParenImpCasts();
    else if (auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref)
      E = U->getSubExpr()->IgnoreParenImpCasts();
    else if (auto *B = dyn_cast<BinaryOperator>(E);
             B && B->isAdditiveOp() && B->getType()->isPointerType())
      E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
              ->IgnoreParenImpCasts();
    else if (auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase()->IgnoreParenImpCasts();
    else
      break;
  }
  if (auto *R = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

bool mayAlias(const VarDecl *A, const VarDecl *B) {
  if (A == B)
    return true;
  if (A->hasAttr<CUDAConstantAttr>() || B->hasAttr<CUDAConstantAttr>())
    return false;
  if (A->getType().isRestrictQualified() || B->getType().isRestrictQualified())
    return false;
  auto Array = [](const VarDecl *V) { return V->getType()->isArrayType(); };
  if (Array(A) && Array(B))
    return false;
  auto KernelParam = [](const VarDecl *V) {
    if (!isa<ParmVarDecl>(V))
      return false;
    auto *F = dyn_cast<FunctionDecl>(V->getDeclContext());
    return F && F->hasAttr<CUDAGlobalAttr>();
  };
  auto OnChip = [&](const VarDecl *V) {
    return Array(V) && (V->hasAttr<CUDASharedAttr>() || V->hasLocalStorage());
  };
  if ((KernelParam(A) && OnChip(B)) || (KernelParam(B) && OnChip(A)))
    return false;
  return true;
}

} // namespace warpwise
