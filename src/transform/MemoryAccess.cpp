//===- MemoryAccess.cpp - Which memory a statement touches ----------------===//
#include "MemoryAccess.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

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

namespace {
class AccessCollector : public RecursiveASTVisitor<AccessCollector> {
public:
  AccessCollector(Accesses &A, const SourceManager &SM) : A(A), SM(SM) {}

  bool VisitDeclRefExpr(DeclRefExpr *R) {
    if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
      A.Uses.insert(V);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    A.Defs.insert(V);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      write(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      write(U->getSubExpr());
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *S) {
    if (const VarDecl *B = accessBase(S))
      if (!localArray(B))
        A.MemReads.insert(B);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    const FunctionDecl *F = C->getDirectCallee();
    llvm::StringRef N = F ? F->getName() : "";
    if (N.starts_with("__fetch_builtin"))
      return true; // threadIdx.x and friends.
    if (N.starts_with("__syncthreads") || N.starts_with("__syncwarp") ||
        N.contains("_sync") || N.starts_with("atomic") ||
        N.starts_with("__threadfence")) {
      if (!A.OrderedCall)
        A.OrderedCall = C;
    } else if (F && F->getDefinition() && F->getDefinition()->hasBody() &&
               !A.OpaqueCall) {
      A.OpaqueCall = C;
    }
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (!A.Jump &&
        (isa<BreakStmt>(S) || isa<ContinueStmt>(S) || isa<ReturnStmt>(S) ||
         isa<GotoStmt>(S) || isa<CUDAKernelCallExpr>(S)))
      A.Jump = S;
    return true;
  }

private:
  static bool localArray(const VarDecl *V) {
    return V->hasLocalStorage() && V->getType()->isArrayType();
  }
  void write(const Expr *Target) {
    const Expr *T = Target->IgnoreParenImpCasts();
    if (auto *R = dyn_cast<DeclRefExpr>(T)) {
      if (auto *V = dyn_cast<VarDecl>(R->getDecl())) {
        A.Defs.insert(V);
        if (!V->hasLocalStorage())
          store(V, T);
      }
      return;
    }
    if (auto *M = dyn_cast<MemberExpr>(T); M && !M->isArrow()) {
      write(M->getBase());
      return;
    }
    const VarDecl *B = accessBase(T);
    if (B && localArray(B)) {
      A.Defs.insert(B);
      return;
    }
    if (!B)
      A.UnknownWrite = true;
    store(B, T);
  }
  void store(const VarDecl *B, const Expr *At) {
    if (B)
      A.MemWrites.insert(B);
    if (!A.FirstStoreLine)
      A.FirstStoreLine = SM.getExpansionLineNumber(At->getBeginLoc());
  }

  Accesses &A;
  const SourceManager &SM;
};
} // namespace

Accesses collectAccesses(const Stmt *S, const SourceManager &SM) {
  Accesses A;
  if (S) {
    AccessCollector C(A, SM);
    C.TraverseStmt(const_cast<Stmt *>(S));
  }
  return A;
}

} // namespace warpwise
