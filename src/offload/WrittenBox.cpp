//===- WrittenBox.cpp - The box of an array a kernel writes ---------------===//
#include "WrittenBox.h"
#include "LoopUses.h"
#include "OffloadAst.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace warpwise {
namespace offload {
namespace {

/// Integer arithmetic on integer literals and on integer variables
/// declared before \p Before (outside the directive), collected in
/// \p Vars: what the host can evaluate at the launch as the kernel did.
bool hostArithmetic(const SourceManager &SM, const Expr *E,
                    SourceLocation Before, std::set<const VarDecl *> &Vars) {
  E = E->IgnoreParens();
  if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E))
    return true;
  if (auto *C = dyn_cast<CastExpr>(E))
    return C->getType()->isIntegralOrEnumerationType() &&
           hostArithmetic(SM, C->getSubExpr(), Before, Vars);
  if (auto *DR = dyn_cast<DeclRefExpr>(E)) {
    // Declared before the directive: in scope where the host evaluates it.
    if (!SM.isBeforeInTranslationUnit(DR->getDecl()->getLocation(), Before))
      return false;
    if (isa<EnumConstantDecl>(DR->getDecl()))
      return true;
    auto *V = dyn_cast<VarDecl>(DR->getDecl());
    if (!V || !V->getType()->isIntegralOrEnumerationType())
      return false;
    Vars.insert(V);
    return true;
  }
  if (auto *U = dyn_cast<UnaryOperator>(E))
    return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus ||
            U->getOpcode() == UO_Not) &&
           hostArithmetic(SM, U->getSubExpr(), Before, Vars);
  if (auto *B = dyn_cast<BinaryOperator>(E))
    return (B->isAdditiveOp() || B->isMultiplicativeOp() || B->isShiftOp() ||
            B->isBitwiseOp()) &&
           hostArithmetic(SM, B->getLHS(), Before, Vars) &&
           hostArithmetic(SM, B->getRHS(), Before, Vars);
  return false;
}

/// A signed integer type no wider than \p Bits.
bool signedNoWiderThan(const ASTContext &Ctx, QualType T, uint64_t Bits) {
  T = T.getCanonicalType();
  return T->isSignedIntegerType() && Ctx.getTypeSize(T) <= Bits;
}

/// The loop's variable and bounds all signed, the bounds no wider than the
/// variable: the host's long long values of Lb and Ub are the kernel's (an
/// unsigned variable or bound would wrap a negative bound around).
bool signedLoop(const ASTContext &Ctx, const LoopLevel &L) {
  QualType V = L.Var->getType();
  if (!signedNoWiderThan(Ctx, V, 64))
    return false;
  uint64_t Bits = Ctx.getTypeSize(V.getCanonicalType());
  return signedNoWiderThan(Ctx, L.Lb->IgnoreParenImpCasts()->getType(), Bits) &&
         signedNoWiderThan(Ctx, L.Ub->IgnoreParenImpCasts()->getType(), Bits);
}

/// Finds the one store that writes the box of array \p A, and checks that
/// nothing else touches an element outside it.
class BoxFinder {
public:
  BoxFinder(const OffloadSource &Src, const KernelPlan &P, const MappedArray &A,
            size_t Dims)
      : Src(Src), P(P), A(A), Dims(Dims) {}

  std::vector<BoxDim> find() {
    // Every iteration reaches the store: no continue (a goto or return
    // keeps the loop on the host already, checkNestBody).
    std::vector<const Stmt *> Top = statementsOf(P.Body);
    if (hasOwnJump(P.Body, false, true) || !firstMentionIsStore(Top))
      return {};
    // Up to the statement of the store, only the stored element; after it,
    // reads of the box back (checked at the launch to stay inside it). A
    // store outside inner loops is one element, the thread's own, which
    // any later statement may read or write.
    bool After = false;
    for (const Stmt *S : Top) {
      if (After && !InnerLoops.empty() ? !readsBack(S, {})
                                       : !onlySameElement(S, {}))
        return {};
      After = After || mentions(S, A.Var);
    }
    // Each loop around the store runs over a dimension of the box: one
    // that might run zero times would leave its part unwritten.
    for (const LoopLevel &L : InnerLoops)
      if (!llvm::is_contained(StoreSubs, L.Var))
        return {};
    std::vector<BoxDim> Box;
    std::set<const VarDecl *> BoundVars;
    for (const VarDecl *V : StoreSubs) {
      BoxDim D;
      auto Level = llvm::find_if(
          P.Levels, [&](const LoopLevel &L) { return L.Var == V; });
      const LoopLevel *L = nullptr;
      if (Level != P.Levels.end()) {
        L = &*Level;
        if (L->HullFrom || L->HullUbFrom)
          return {}; // The grid runs over more than the loop does.
        D.Level = int(Level - P.Levels.begin());
        D.Lb = sourceText(Src.Ctx, L->Lb->getSourceRange());
        D.Ub = sourceText(Src.Ctx, L->Ub->getSourceRange());
      } else {
        auto Inner = llvm::find_if(
            InnerLoops, [&](const LoopLevel &X) { return X.Var == V; });
        if (Inner == InnerLoops.end())
          return {};
        L = &*Inner;
        if (!hostArithmetic(Src.SM, L->Lb, P.Directive->getBeginLoc(),
                            BoundVars) ||
            !hostArithmetic(Src.SM, L->Ub, P.Directive->getBeginLoc(),
                            BoundVars))
          return {};
        D.Lb = sourceText(Src.Ctx, L->Lb->getSourceRange());
        D.Ub = sourceText(Src.Ctx, L->Ub->getSourceRange());
      }
      if (!L->UnitStep || L->Decreasing ||
          (L->Cmp != BO_LT && L->Cmp != BO_LE) || !signedLoop(Src.Ctx, *L))
        return {};
      D.Inclusive = L->Cmp == BO_LE;
      Box.push_back(D);
    }
    for (const ReadLoop &R : Reads) {
      if (!hostArithmetic(Src.SM, R.Loop.Lb, P.Directive->getBeginLoc(),
                          BoundVars) ||
          !hostArithmetic(Src.SM, R.Loop.Ub, P.Directive->getBeginLoc(),
                          BoundVars) ||
          Box[R.Dim].Level >= 0)
        return {};
      Found.push_back(
          {R.Dim, sourceText(Src.Ctx, R.Loop.Lb->getSourceRange()),
           sourceText(Src.Ctx, R.Loop.Ub->getSourceRange()),
           R.Loop.Cmp == BO_LE,
           Src.SM.getSpellingLineNumber(R.Loop.For->getBeginLoc())});
    }
    // The bounds mean at the launch what they meant in the kernel.
    if (!BoundVars.empty() && writesAny(directiveBody(P.Directive), BoundVars))
      return {};
    return Box;
  }

  /// The loops that read the box back, once find() has returned a box.
  const std::vector<BoxRead> &reads() const { return Found; }

private:
  /// The first statement of \p List to mention A is the store, or an inner
  /// loop whose first is.
  bool firstMentionIsStore(const std::vector<const Stmt *> &List) {
    for (const Stmt *S : List) {
      if (boxStore(S))
        return true;
      if (auto *For = dyn_cast<ForStmt>(S);
          For && mentions(For->getBody(), A.Var)) {
        LoopLevel L;
        std::string Why;
        if (!readCanonicalLoop(Src, For, L, Why) ||
            hasOwnJump(For->getBody(), true, true) ||
            mentions(For->getInit(), A.Var) ||
            mentions(For->getCond(), A.Var) || mentions(For->getInc(), A.Var))
          return false;
        InnerLoops.push_back(L);
        return firstMentionIsStore(statementsOf(For->getBody()));
      }
      if (mentions(S, A.Var))
        return false;
    }
    return false;
  }

  /// `a[x][y] = e`, one subscript per dimension, each a distinct variable,
  /// e not reading a.
  bool boxStore(const Stmt *S) {
    auto *B = dyn_cast<BinaryOperator>(S);
    if (!B || B->getOpcode() != BO_Assign || mentions(B->getRHS(), A.Var))
      return false;
    std::vector<const VarDecl *> Vars;
    if (!elementVars(B->getLHS(), Vars))
      return false;
    StoreSubs = Vars;
    return true;
  }

  /// \p E is an element of A with a distinct variable per subscript.
  bool elementVars(const Expr *E, std::vector<const VarDecl *> &Vars) const {
    std::vector<const Expr *> Subs;
    if (subscripts(E, Subs) != A.Var || Subs.size() != Dims)
      return false;
    for (const Expr *X : Subs) {
      auto *DR = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
      auto *V = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
      if (!V || llvm::is_contained(Vars, V))
        return false;
      Vars.push_back(V);
    }
    return true;
  }

  /// Every mention of A under \p S is the stored element, inside the inner
  /// loops of the store (\p Open: those of them that enclose \p S).
  bool onlySameElement(const Stmt *S, std::vector<const ForStmt *> Open) {
    if (!S)
      return true;
    if (auto *For = dyn_cast<ForStmt>(S))
      if (llvm::any_of(InnerLoops,
                       [&](const LoopLevel &L) { return L.For == For; }))
        Open.push_back(For);
    if (auto *E = dyn_cast<Expr>(S)) {
      std::vector<const VarDecl *> Vars;
      if (isa<ArraySubscriptExpr>(E->IgnoreParenImpCasts()) &&
          elementVars(E->IgnoreParenImpCasts(), Vars))
        return Vars == StoreSubs && Open.size() == InnerLoops.size();
      if (auto *DR = dyn_cast<DeclRefExpr>(E); DR && DR->getDecl() == A.Var)
        return false; // The array itself: a pointer or a part of it.
    }
    for (const Stmt *C : childrenOf(S))
      if (!onlySameElement(C, Open))
        return false;
    return true;
  }

  /// Every mention of A under \p S, a statement after the store's, reads
  /// an element (its value, nothing else: no store, reference, address or
  /// call takes it) whose subscripts of grid levels are the store's and
  /// whose others are each the variable of a loop around the mention in S
  /// (\p Open), counting up by one; those loops go to Reads.
  bool readsBack(const Stmt *S, std::vector<LoopLevel> Open) {
    if (!S)
      return true;
    if (auto *For = dyn_cast<ForStmt>(S)) {
      LoopLevel L;
      std::string Why;
      if (!readCanonicalLoop(Src, For, L, Why))
        L.Var = nullptr; // Its variable subscripts nothing in the box.
      for (const Stmt *H : {For->getInit(), (const Stmt *)For->getCond(),
                            (const Stmt *)For->getInc()})
        if (!readsBack(H, Open))
          return false;
      if (L.Var)
        Open.push_back(L);
      return readsBack(For->getBody(), Open);
    }
    if (auto *Load = dyn_cast<ImplicitCastExpr>(S);
        Load && Load->getCastKind() == CK_LValueToRValue) {
      std::vector<const VarDecl *> Vars;
      const Expr *E = Load->getSubExpr()->IgnoreParens();
      if (isa<ArraySubscriptExpr>(E) && elementVars(E, Vars))
        return readInBox(Vars, Open);
    }
    if (auto *E = dyn_cast<Expr>(S)) {
      std::vector<const VarDecl *> Vars;
      if (isa<ArraySubscriptExpr>(E->IgnoreParens()) &&
          elementVars(E->IgnoreParens(), Vars))
        return false; // Not read as a value: written, or its address kept.
      if (auto *DR = dyn_cast<DeclRefExpr>(E); DR && DR->getDecl() == A.Var)
        return false;
    }
    for (const Stmt *C : childrenOf(S))
      if (!readsBack(C, Open))
        return false;
    return true;
  }

  /// One element read back: \p Vars its subscripts, \p Open the loops
  /// around it.
  bool readInBox(const std::vector<const VarDecl *> &Vars,
                 const std::vector<LoopLevel> &Open) {
    for (size_t D = 0; D < Vars.size(); ++D) {
      if (llvm::any_of(P.Levels, [&](const LoopLevel &L) {
            return L.Var == StoreSubs[D];
          })) {
        if (Vars[D] != StoreSubs[D])
          return false; // Another thread's element.
        continue;
      }
      auto It = llvm::find_if(llvm::reverse(Open), [&](const LoopLevel &L) {
        return L.Var == Vars[D];
      });
      if (It == Open.rend() || !It->UnitStep || It->Decreasing ||
          (It->Cmp != BO_LT && It->Cmp != BO_LE) || !signedLoop(Src.Ctx, *It))
        return false; // The variable's value is not its loop's range.
      if (!llvm::any_of(Reads, [&](const ReadLoop &R) {
            return R.Dim == D && R.Loop.For == It->For;
          }))
        Reads.push_back({D, *It});
    }
    return true;
  }

  struct ReadLoop {
    size_t Dim;
    LoopLevel Loop;
  };

  const OffloadSource &Src;
  const KernelPlan &P;
  const MappedArray &A;
  size_t Dims;
  std::vector<LoopLevel> InnerLoops; ///< Around the store, outermost first.
  std::vector<const VarDecl *> StoreSubs;
  std::vector<ReadLoop> Reads;
  std::vector<BoxRead> Found;
};

/// The dimensions of \p A's device copy: its pointer and the constant
/// arrays below it.
size_t dimensionsOf(const ASTContext &Ctx, const MappedArray &A) {
  size_t Dims = 1;
  QualType E = A.DeviceType->getPointeeType();
  while (auto *CA = Ctx.getAsConstantArrayType(E)) {
    E = CA->getElementType();
    ++Dims;
  }
  return Dims;
}

} // namespace

void proveWrittenBoxes(const OffloadSource &Src, KernelPlan &P) {
  for (MappedArray &A : P.Arrays) {
    if (!A.Written || A.WrittenInFull || A.PassedToCall || A.Offset != "0" ||
        A.Map == MapKind::To || A.Map == MapKind::Alloc)
      continue;
    size_t Dims = dimensionsOf(Src.Ctx, A);
    if (Dims > 3)
      continue; // Copied out by cudaMemcpy, 2D or 3D.
    BoxFinder Finder(Src, P, A, Dims);
    A.WrittenBox = Finder.find();
    if (!A.WrittenBox.empty())
      A.BoxReads = Finder.reads();
  }
}

} // namespace offload
} // namespace warpwise
