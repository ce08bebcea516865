//===- AstQueries.cpp - Small questions about statements ------------------===//
#include "warpwise/AstQueries.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

namespace warpwise {

using namespace clang;

const VarDecl *referencedVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

/// The declaration's name as getNameAsString() spells it. A plain
/// identifier is read directly: getNameAsString() prints through a fresh
/// PrintingPolicy (a LangOptions built per call), which made
/// builtinVariable a fifth of a warm rewrite's time, since the lane-by-lane
/// evaluation asks it for every lane.
static std::string nameOf(const NamedDecl *D) {
  if (const IdentifierInfo *Id = D->getDeclName().getAsIdentifierInfo())
    return Id->getName().str();
  return D->getNameAsString();
}

bool builtinVariable(const Expr *E, std::string &Object,
                     std::string &Component) {
  E = E->IgnoreParenImpCasts();
  const MSPropertyRefExpr *Prop = nullptr;
  if (auto *PO = dyn_cast<PseudoObjectExpr>(E))
    Prop = dyn_cast<MSPropertyRefExpr>(PO->getSyntacticForm()->IgnoreParens());
  else
    Prop = dyn_cast<MSPropertyRefExpr>(E);
  if (!Prop)
    return false;
  const Expr *BaseE = Prop->getBaseExpr()->IgnoreParenImpCasts();
  if (auto *OVE = dyn_cast<OpaqueValueExpr>(BaseE))
    BaseE = OVE->getSourceExpr()->IgnoreParenImpCasts();
  auto *Base = dyn_cast_or_null<DeclRefExpr>(BaseE);
  if (!Base)
    return false;
  Object = nameOf(Base->getDecl());
  Component = nameOf(Prop->getPropertyDecl());
  return Object == "threadIdx" || Object == "blockIdx" ||
         Object == "blockDim" || Object == "gridDim";
}

static bool findPath(const Stmt *S, const Stmt *Target,
                     std::vector<const Stmt *> &Path) {
  if (!S)
    return false;
  Path.push_back(S);
  if (S == Target)
    return true;
  for (const Stmt *Child : S->children())
    if (findPath(Child, Target, Path))
      return true;
  Path.pop_back();
  return false;
}

std::vector<const Stmt *> pathTo(const Stmt *Root, const Stmt *Target) {
  std::vector<const Stmt *> Path;
  if (!findPath(Root, Target, Path))
    Path.clear();
  return Path;
}

static void collectWritten(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->isAssignmentOp())
      if (const VarDecl *V = referencedVar(B->getLHS()))
        Out.insert(V);
  } else if (auto *U = dyn_cast<UnaryOperator>(S)) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = referencedVar(U->getSubExpr()))
        Out.insert(V);
  } else if (auto *C = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = C->getDirectCallee();
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      bool ByRef = !Callee || I >= Callee->getNumParams() ||
                   Callee->getParamDecl(I)->getType()->isReferenceType();
      if (ByRef)
        if (const VarDecl *V = referencedVar(C->getArg(I)))
          Out.insert(V);
    }
  }
  for (const Stmt *Child : S->children())
    collectWritten(Child, Out);
}

std::set<const VarDecl *> writtenVariables(const Stmt *S) {
  std::set<const VarDecl *> Out;
  collectWritten(S, Out);
  return Out;
}

std::vector<const Stmt *> statementsOf(const Stmt *B) {
  std::vector<const Stmt *> Out;
  if (auto *C = dyn_cast_or_null<CompoundStmt>(B))
    Out.assign(C->body_begin(), C->body_end());
  else if (B)
    Out.push_back(B);
  return Out;
}

bool isStraightLine(const Stmt *S) {
  if (!S)
    return true;
  if (isa<IfStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
      isa<DoStmt>(S) || isa<SwitchStmt>(S) || isa<CallExpr>(S))
    return false;
  for (const Stmt *Child : S->children())
    if (!isStraightLine(Child))
      return false;
  return true;
}

} // namespace warpwise
