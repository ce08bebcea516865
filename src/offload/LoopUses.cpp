//===- LoopUses.cpp - What a loop nest does with its variables ------------===//
#include "LoopUses.h"

#include "OffloadAst.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/Basic/OpenMPKinds.h"

using namespace clang;

namespace warpwise {
namespace offload {

bool UseCollector::TraverseOMPAtomicDirective(OMPAtomicDirective *D) {
  for (const OMPClause *C : D->clauses())
    if (!C->isImplicit() && C->getClauseKind() != llvm::omp::OMPC_update &&
        C->getClauseKind() != llvm::omp::OMPC_relaxed &&
        C->getClauseKind() != llvm::omp::OMPC_seq_cst) {
      Problems.push_back(
          {D->getBeginLoc(),
           "has an atomic " +
               llvm::omp::getOpenMPClauseName(C->getClauseKind()).str() +
               " (only atomic updates x += e, x -= e, x++, x-- are "
               "offloaded)"});
      return true;
    }
  const Stmt *Body = directiveBody(D);
  AtomicUpdate A = readAtomicUpdate(D, dyn_cast_or_null<Expr>(Body));
  QualType T = A.Target ? A.Target->getType().getCanonicalType() : QualType();
  bool TypeOK =
      !T.isNull() && (T->isSpecificBuiltinType(BuiltinType::Int) ||
                      T->isSpecificBuiltinType(BuiltinType::UInt) ||
                      T->isSpecificBuiltinType(BuiltinType::ULongLong) ||
                      T->isSpecificBuiltinType(BuiltinType::Float) ||
                      T->isSpecificBuiltinType(BuiltinType::Double));
  if (A.Target) {
    A.Var = baseVar(A.Target);
    A.Element = !isa<DeclRefExpr>(strip(A.Target));
  }
  if (!A.Target || !A.Var || !TypeOK ||
      (A.Element && !isa<ArraySubscriptExpr>(strip(A.Target)))) {
    Problems.push_back(
        {D->getBeginLoc(),
         "has an atomic update that is not x += e, x -= e, x++ or x-- on "
         "an int, unsigned, unsigned long long, float or double"});
    return true;
  }
  Atomics.push_back(A);
  return TraverseStmt(const_cast<Stmt *>(Body));
}

UseCollector::AtomicUpdate
UseCollector::readAtomicUpdate(const OMPAtomicDirective *D,
                               const Expr *E) const {
  AtomicUpdate A;
  A.D = D;
  if (E) {
    E = E->IgnoreParenImpCasts();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(E);
        CA &&
        (CA->getOpcode() == BO_AddAssign || CA->getOpcode() == BO_SubAssign)) {
      A.Target = CA->getLHS();
      A.Amount = CA->getRHS();
      A.Minus = CA->getOpcode() == BO_SubAssign;
    } else if (auto *U = dyn_cast<UnaryOperator>(E);
               U && U->isIncrementDecrementOp()) {
      A.Target = U->getSubExpr();
      A.Minus = U->isDecrementOp();
    } else if (auto *B = dyn_cast<BinaryOperator>(E);
               B && B->getOpcode() == BO_Assign) {
      auto *R = dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParenImpCasts());
      if (R && (R->getOpcode() == BO_Add || R->getOpcode() == BO_Sub) &&
          baseVar(R->getLHS()) == baseVar(B->getLHS()) &&
          baseVar(B->getLHS())) {
        A.Target = B->getLHS();
        A.Amount = R->getRHS();
        A.Minus = R->getOpcode() == BO_Sub;
      }
    }
    A.Update = E;
  }
  return A;
}

bool UseCollector::TraverseOMPSimdDirective(OMPSimdDirective *D) {
  return TraverseStmt(const_cast<Stmt *>(directiveBody(D)));
}

UseCollector::Use &UseCollector::use(const VarDecl *V, SourceLocation L) {
  auto [It, New] = Uses.try_emplace(V);
  if (New) {
    Order.push_back(V);
    It->second.First = L;
  }
  return It->second;
}

bool UseCollector::VisitVarDecl(VarDecl *V) {
  Declared.insert(V);
  if (V->isStaticLocal())
    Problems.push_back(
        {V->getLocation(), "declares the static variable '" +
                               V->getNameAsString() +
                               "', which every thread would share"});
  if (V->getType()->isVariableArrayType())
    Problems.push_back(
        {V->getLocation(), "declares the variable-length array '" +
                               V->getNameAsString() +
                               "', which device code cannot have"});
  // A reference bound to a variable or an element writes through it later,
  // out of sight: as good as its address taken.
  if (V->getType()->isReferenceType() &&
      !V->getType()->getPointeeType().isConstQualified() && V->getInit()) {
    const Expr *Init = strip(V->getInit());
    if (const VarDecl *X = referencedVar(Init)) {
      Use &U = use(X, Init->getBeginLoc());
      U.ScalarWrite = U.Read = U.AddressTaken = true;
    } else if (const VarDecl *X = baseVar(Init)) {
      Use &U = use(X, Init->getBeginLoc());
      U.ElementWrite = U.Read = true;
    }
  }
  return true;
}

bool UseCollector::VisitDeclRefExpr(DeclRefExpr *DR) {
  if (auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
    Use &U = use(V, DR->getLocation());
    if (!StoreBases.count(DR))
      U.Read = true;
  }
  return true;
}

bool UseCollector::TraverseBinaryOperator(BinaryOperator *B) {
  if (B->getOpcode() == BO_Assign) {
    const Expr *L = strip(B->getLHS());
    if (auto *DR = dyn_cast<DeclRefExpr>(L)) {
      if (auto *V = dyn_cast<VarDecl>(DR->getDecl()))
        use(V, DR->getLocation()).ScalarWrite = true;
      StoreBases.insert(DR);
    } else if (const VarDecl *V = baseVar(L)) {
      use(V, L->getBeginLoc()).ElementWrite = true;
      // The base's DeclRefExpr is written through, not read.
      const Expr *E = L;
      while (auto *AS = dyn_cast<ArraySubscriptExpr>(E))
        E = strip(AS->getBase());
      if (auto *DR2 = dyn_cast<DeclRefExpr>(E))
        StoreBases.insert(DR2);
    }
  }
  return RecursiveASTVisitor::TraverseBinaryOperator(B);
}

bool UseCollector::VisitCompoundAssignOperator(CompoundAssignOperator *B) {
  noteReadWrite(B->getLHS());
  return true;
}

bool UseCollector::VisitUnaryOperator(UnaryOperator *U) {
  if (U->isIncrementDecrementOp())
    noteReadWrite(U->getSubExpr());
  if (U->getOpcode() == UO_AddrOf) {
    const Expr *S = strip(U->getSubExpr());
    if (const VarDecl *V = referencedVar(S))
      use(V, S->getBeginLoc()).AddressTaken = true;
    else if (const VarDecl *V = baseVar(S)) {
      // &a[i]: what the pointer is used for is not followed.
      Use &X = use(V, S->getBeginLoc());
      X.ElementWrite = X.Read = true;
    }
  }
  return true;
}

bool UseCollector::VisitCallExpr(CallExpr *C) {
  const FunctionDecl *F = C->getDirectCallee();
  if (!F) {
    Problems.push_back({C->getBeginLoc(), "calls through a pointer"});
    return true;
  }
  Calls.insert(F);
  // An argument bound to a non-const reference may be written.
  for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I) {
    QualType PT = F->getParamDecl(I)->getType();
    if (!PT->isReferenceType() || PT->getPointeeType().isConstQualified())
      continue;
    const Expr *A = strip(C->getArg(I));
    if (auto *DR = dyn_cast<DeclRefExpr>(A)) {
      if (auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
        Use &X = use(V, DR->getLocation());
        X.ScalarWrite = X.Read = X.AddressTaken = true;
      }
    } else if (const VarDecl *V = baseVar(A)) {
      Use &X = use(V, A->getBeginLoc());
      X.ElementWrite = X.Read = X.PassedToCall = true;
    }
  }
  for (unsigned I = 0; I < C->getNumArgs(); ++I) {
    const Expr *A = strip(C->getArg(I));
    if (!A->getType()->isPointerType() &&
        !C->getArg(I)->getType()->isPointerType())
      continue;
    if (const VarDecl *V = baseVar(A)) {
      Use &X = use(V, A->getBeginLoc());
      X.PassedToCall = true;
      // A pointer-to-const parameter only reads.
      bool ReadOnly =
          I < F->getNumParams() &&
          F->getParamDecl(I)->getType()->isPointerType() &&
          F->getParamDecl(I)->getType()->getPointeeType().isConstQualified();
      X.Read = true;
      if (!isDeviceMath(F->getName()) && !ReadOnly)
        X.ElementWrite = true;
    }
  }
  return true;
}

bool UseCollector::VisitStmt(Stmt *S) {
  if (isa<OMPSimdDirective>(S)) {
    // `omp simd` inside the loop: one thread runs that inner loop in
    // order, which is always a valid execution of it.
    return true;
  }
  if (isa<OMPExecutableDirective>(S)) {
    // The pragma's own name: "#pragma omp critical".
    std::string Name = "an OpenMP directive";
    if (auto *D = dyn_cast<OMPExecutableDirective>(S))
      Name = "'#pragma omp " +
             llvm::omp::getOpenMPDirectiveName(D->getDirectiveKind()).str() +
             "'";
    Problems.push_back({S->getBeginLoc(), "contains " + Name});
  } else if (isa<ReturnStmt>(S) && !InFunction)
    Problems.push_back({S->getBeginLoc(), "returns from inside the loop"});
  else if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    Problems.push_back({S->getBeginLoc(), "uses goto"});
  else if (isa<GCCAsmStmt>(S) || isa<MSAsmStmt>(S))
    Problems.push_back({S->getBeginLoc(), "contains inline assembly"});
  else if (isa<StmtExpr>(S))
    Problems.push_back({S->getBeginLoc(), "contains a statement expression"});
  else if (isa<CXXThrowExpr>(S) || isa<CXXTryStmt>(S))
    Problems.push_back({S->getBeginLoc(), "throws or catches exceptions"});
  else if (isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S))
    Problems.push_back({S->getBeginLoc(), "allocates with new/delete"});
  else if (isa<LambdaExpr>(S))
    Problems.push_back({S->getBeginLoc(), "contains a lambda"});
  return true;
}

void UseCollector::noteReadWrite(const Expr *E) {
  E = strip(E);
  if (auto *DR = dyn_cast<DeclRefExpr>(E)) {
    if (auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
      Use &U = use(V, DR->getLocation());
      U.ScalarWrite = U.Read = true;
    }
  } else if (const VarDecl *V = baseVar(E)) {
    Use &U = use(V, E->getBeginLoc());
    U.ElementWrite = U.Read = true;
  }
}

UseCollector collectUses(const Stmt *S, bool InFunction) {
  UseCollector U(InFunction);
  U.TraverseStmt(const_cast<Stmt *>(S));
  return U;
}

bool mentions(const Stmt *S, const VarDecl *V) {
  return collectUses(S).Uses.count(V) > 0;
}

} // namespace offload
} // namespace warpwise
