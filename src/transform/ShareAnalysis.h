//===- ShareAnalysis.h - What variable sharing may share --------*- C++ -*-===//
//
// The analyses behind variable sharing (VariableSharing.cpp and
// ExternalSharing.cpp): how a statement uses the candidates (read, written,
// escaped), whether a fill statement computes only block-uniform values
// (SliceCheck) and whether the host reproduces a launch-uniform value's bits
// (HostSlice), which fill loops can be spread over a block's threads, where a
// kernel may return before the fill, and the launches of a kernel.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SHARE_ANALYSIS_H
#define WARPWISE_SHARE_ANALYSIS_H

#include "../analysis/MemoryAccess.h"
#include "Candidates.h"
#include "SideEffects.h"

#include "warpwise/Analysis.h"
#include "warpwise/AstQueries.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpwise {
namespace share {

using namespace clang;

inline const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : E;
}

/// The variable whose storage the lvalue \p E designates: `w` for `w`,
/// `w[i][j]` and `s.f` (through array-to-pointer decays, not through a
/// pointer's value: `p[i]` is not `p`'s storage), or null.
inline const VarDecl *subscriptRoot(const Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
      if (Cast->getCastKind() != CK_ArrayToPointerDecay &&
          Cast->getCastKind() != CK_NoOp)
        return nullptr;
      E = Cast->getSubExpr();
    } else if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      E = A->getBase();
    } else if (auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return nullptr;
      E = M->getBase();
    } else if (auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      return dyn_cast<VarDecl>(Ref->getDecl());
    } else {
      return nullptr;
    }
  }
}

/// Whether \p E names storage (a variable, an element, a member) rather
/// than computing a value.
inline bool designatesStorage(const Expr *E) {
  E = E->IgnoreParens();
  return isa<DeclRefExpr>(E) || isa<ArraySubscriptExpr>(E) ||
         (isa<MemberExpr>(E) && !cast<MemberExpr>(E)->isArrow());
}

inline bool isBlockBuiltin(const Expr *E, bool &IsBuiltin) {
  std::string Object, Component;
  IsBuiltin = builtinVariable(E, Object, Component);
  return IsBuiltin &&
         (Object == "blockIdx" || Object == "blockDim" || Object == "gridDim");
}

/// A scalar of arithmetic type, or a constant-size array of them.
inline bool eligibleType(QualType T) {
  if (T->isDependentType() || T.isVolatileQualified() || T->isReferenceType())
    return false;
  while (const auto *A = dyn_cast<ConstantArrayType>(T.getTypePtr()))
    T = A->getElementType();
  return !T->isDependentType() && T->isArithmeticType() &&
         !T.isVolatileQualified();
}

/// How one statement uses the candidates.
struct Uses {
  std::set<const VarDecl *> Reads, Writes, Escapes, InLoop, RunTimeIndexed;
};

/// Classifies references to \p Cands in \p S by what consumes them: a read
/// (an lvalue-to-rvalue conversion), a write (an assignment's or an
/// increment's operand), or an escape (anything else: bound to a reference,
/// its address taken, an array or a row decayed to a pointer, a member
/// call), which the rewrite cannot follow.
class UseScanner {
public:
  UseScanner(const ASTContext &Ctx, const std::set<const VarDecl *> &Cands,
             Uses &U)
      : Ctx(Ctx), Cands(Cands), U(U) {}

  void stmt(const Stmt *S, bool InLoop) {
    if (!S)
      return;
    if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
        isa<CXXForRangeStmt>(S))
      InLoop = true;
    if (auto *E = dyn_cast<Expr>(S)) {
      expr(E, InLoop);
      return;
    }
    for (const Stmt *Child : S->children())
      stmt(Child, InLoop);
  }

private:
  bool cand(const VarDecl *V) const { return V && Cands.count(V); }

  void read(const VarDecl *V, bool InLoop) {
    U.Reads.insert(V);
    if (InLoop)
      U.InLoop.insert(V);
  }

  /// The index expressions of a storage designator, read.
  void indices(const Expr *E, bool InLoop) {
    while (true) {
      E = E->IgnoreParens();
      if (auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
        E = Cast->getSubExpr();
      } else if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
        expr(A->getIdx(), InLoop);
        E = A->getBase();
      } else if (auto *M = dyn_cast<MemberExpr>(E)) {
        E = M->getBase();
      } else {
        return;
      }
    }
  }

  bool runTimeIndexed(const Expr *E) const {
    while (true) {
      E = E->IgnoreParens();
      if (auto *Cast = dyn_cast<ImplicitCastExpr>(E)) {
        E = Cast->getSubExpr();
      } else if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
        const Expr *Idx = A->getIdx();
        if (Idx->isValueDependent() || !Idx->isIntegerConstantExpr(Ctx))
          return true;
        E = A->getBase();
      } else if (auto *M = dyn_cast<MemberExpr>(E)) {
        E = M->getBase();
      } else {
        return false;
      }
    }
  }

  void expr(const Expr *E, bool InLoop) {
    if (!E)
      return;
    E = E->IgnoreParens();
    if (auto *Cast = dyn_cast<ImplicitCastExpr>(E);
        Cast && Cast->getCastKind() == CK_LValueToRValue &&
        cand(subscriptRoot(Cast->getSubExpr()))) {
      const VarDecl *Root = subscriptRoot(Cast->getSubExpr());
      read(Root, InLoop);
      if (runTimeIndexed(Cast->getSubExpr()))
        U.RunTimeIndexed.insert(Root);
      indices(Cast->getSubExpr(), InLoop);
      return;
    }
    if (auto *B = dyn_cast<BinaryOperator>(E); B && B->isAssignmentOp()) {
      const VarDecl *Root = subscriptRoot(B->getLHS());
      if (cand(Root) && designatesStorage(B->getLHS())) {
        U.Writes.insert(Root);
        if (B->isCompoundAssignmentOp())
          read(Root, InLoop);
        indices(B->getLHS(), InLoop);
      } else {
        expr(B->getLHS(), InLoop);
      }
      expr(B->getRHS(), InLoop);
      return;
    }
    if (auto *Un = dyn_cast<UnaryOperator>(E);
        Un && Un->isIncrementDecrementOp()) {
      const VarDecl *Root = subscriptRoot(Un->getSubExpr());
      if (cand(Root) && designatesStorage(Un->getSubExpr())) {
        U.Writes.insert(Root);
        read(Root, InLoop);
        indices(Un->getSubExpr(), InLoop);
      } else {
        expr(Un->getSubExpr(), InLoop);
      }
      return;
    }
    if (designatesStorage(E) && cand(subscriptRoot(E))) {
      // Consumed as storage by something other than a read or a write.
      U.Escapes.insert(subscriptRoot(E));
      indices(E, InLoop);
      return;
    }
    for (const Stmt *Child : E->children())
      if (auto *CE = dyn_cast_or_null<Expr>(Child))
        expr(CE, InLoop);
      else
        stmt(Child, InLoop);
  }

  const ASTContext &Ctx;
  const std::set<const VarDecl *> &Cands;
  Uses &U;
};

/// A check that keeps the first reason it failed for.
struct FirstReason {
  std::string Why; ///< The first thing that failed the check.
  bool fail(std::string Reason) {
    if (Why.empty())
      Why = std::move(Reason);
    return false;
  }
};

/// Whether a fill statement computes only block-uniform values and stores
/// only into candidates and its own locals.
class SliceCheck : public FirstReason {
public:
  SliceCheck(const FunctionDecl *FD, const std::set<const VarDecl *> &Cands,
             const std::set<const VarDecl *> &WrittenParams)
      : FD(FD), Cands(Cands), WrittenParams(WrittenParams) {}

  bool Loads = false;       ///< Reads memory (through a pointer, constant).
  bool ReadsTables = false; ///< Reads a candidate array.
  std::set<const VarDecl *> ReadCands;
  /// It failed on a thread's own value (threadIdx, a private local), not
  /// on an effect.
  bool ThreadValue = false;

  bool stmt(const Stmt *S) {
    if (!S)
      return true;
    if (auto *E = dyn_cast<Expr>(S))
      return expr(E);
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        auto *V = dyn_cast<VarDecl>(D);
        if (!V)
          continue;
        if (V->isStaticLocal() || V->hasAttr<CUDASharedAttr>())
          return fail("the `static`/`__shared__` `" + V->getNameAsString() +
                      "`");
        if (!Cands.count(V))
          Locals.insert(V);
        if (V->hasInit() && !expr(V->getInit()))
          return false;
      }
      return true;
    }
    if (isa<NullStmt>(S) || isa<BreakStmt>(S) || isa<ContinueStmt>(S))
      return true;
    if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<AsmStmt>(S) ||
        isa<SwitchStmt>(S) || isa<LabelStmt>(S))
      return fail(std::string("a `") + S->getStmtClassName() + "`");
    if (isa<CompoundStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
        isa<DoStmt>(S) || isa<IfStmt>(S)) {
      for (const Stmt *Child : S->children())
        if (!stmt(Child))
          return false;
      return true;
    }
    return fail(std::string("a `") + S->getStmtClassName() + "`");
  }

  bool expr(const Expr *E) {
    if (!E)
      return true;
    E = E->IgnoreParens();
    bool IsBuiltin;
    if (isBlockBuiltin(E, IsBuiltin))
      return true;
    if (IsBuiltin) {
      ThreadValue = true;
      return fail("`threadIdx`");
    }
    if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
        isa<CharacterLiteral>(E) || isa<CXXBoolLiteralExpr>(E) ||
        isa<UnaryExprOrTypeTraitExpr>(E) || isa<ImplicitValueInitExpr>(E))
      return true;
    if (auto *Ref = dyn_cast<DeclRefExpr>(E))
      return ref(Ref);
    if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *Cur = A;
      while (auto *Sub = dyn_cast<ArraySubscriptExpr>(strip(Cur))) {
        if (!expr(Sub->getIdx()))
          return false;
        Cur = Sub->getBase();
      }
      const VarDecl *Root = subscriptRoot(A);
      if (Root && Cands.count(Root)) {
        ReadCands.insert(Root);
        ReadsTables = true;
        return true;
      }
      if (Root && Locals.count(Root))
        return true;
      return load(Cur);
    }
    if (auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAssignmentOp() && !store(B->getLHS()))
        return false;
      if (B->isAssignmentOp() && !B->isCompoundAssignmentOp())
        return expr(B->getRHS()) && indicesOf(B->getLHS());
      return expr(B->getLHS()) && expr(B->getRHS());
    }
    if (auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->isIncrementDecrementOp())
        return store(U->getSubExpr()) && expr(U->getSubExpr());
      if (U->getOpcode() == UO_AddrOf)
        return fail("an address taken (`&`)");
      if (U->getOpcode() == UO_Deref)
        return load(U->getSubExpr());
      return expr(U->getSubExpr());
    }
    if (auto *C = dyn_cast<ConditionalOperator>(E))
      return expr(C->getCond()) && expr(C->getTrueExpr()) &&
             expr(C->getFalseExpr());
    if (auto *Cast = dyn_cast<CastExpr>(E))
      return expr(Cast->getSubExpr());
    if (auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return load(M->getBase());
      return expr(M->getBase());
    }
    if (auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (isa<CUDAKernelCallExpr>(Call) || !Callee || !isPureCallee(Callee))
        return fail("a call to `" +
                    (Callee ? Callee->getNameAsString() : std::string("?")) +
                    "`, which may have side effects");
      const CallSummary &Sum = summarizeFunction(Callee);
      if (Sum.Unknown || Sum.UnknownRead || !Sum.GlobalReads.empty() ||
          std::find(Sum.ReadsParam.begin(), Sum.ReadsParam.end(), true) !=
              Sum.ReadsParam.end())
        Loads = true;
      for (const Expr *Arg : Call->arguments())
        if (!expr(Arg))
          return false;
      return true;
    }
    if (auto *IL = dyn_cast<InitListExpr>(E)) {
      for (const Expr *Init : IL->inits())
        if (!expr(Init))
          return false;
      return true;
    }
    if (auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      if (!Ctor->getConstructor() || !Ctor->getConstructor()->isTrivial())
        return fail("a constructor call");
      for (const Expr *Arg : Ctor->arguments())
        if (!expr(Arg))
          return false;
      return true;
    }
    if (auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      return expr(Temp->getSubExpr());
    if (auto *Cleanup = dyn_cast<ExprWithCleanups>(E))
      return expr(Cleanup->getSubExpr());
    return fail(std::string("a `") + E->getStmtClassName() + "`");
  }

private:
  bool ref(const DeclRefExpr *Ref) {
    const ValueDecl *D = Ref->getDecl();
    if (isa<EnumConstantDecl>(D) || isa<FunctionDecl>(D))
      return true;
    auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return fail("`" + D->getNameAsString() + "`");
    if (auto *P = dyn_cast<ParmVarDecl>(V)) {
      if (P->getDeclContext() != FD)
        return fail("`" + V->getNameAsString() + "`");
      if (WrittenParams.count(P))
        return fail("the parameter `" + P->getNameAsString() +
                    "`, which the kernel assigns");
      if (P->getType()->isReferenceType())
        return load(Ref);
      return true;
    }
    if (V->isStaticLocal() && !Cands.count(V))
      return fail("the `static` `" + V->getNameAsString() +
                  "` of the kernel, which the fill would move above");
    if (Cands.count(V)) {
      ReadCands.insert(V);
      if (V->getType()->isArrayType())
        return fail("`" + V->getNameAsString() +
                    "` used as a pointer (passed or stored)");
      return true;
    }
    if (Locals.count(V))
      return true;
    if (V->hasLocalStorage()) {
      ThreadValue = true;
      return fail("`" + V->getNameAsString() +
                  "`, which is not one of the shared values");
    }
    if (V->getName() == "warpSize")
      return true;
    if (V->hasAttr<CUDASharedAttr>())
      return fail("the `__shared__` `" + V->getNameAsString() + "`");
    if (V->hasAttr<CUDAConstantAttr>()) {
      Loads = true;
      return true;
    }
    if (V->getType().isConstQualified() && V->hasInit())
      return true;
    return fail("the global `" + V->getNameAsString() +
                "`, which the kernel may write");
  }

  /// A load through \p Address, an expression of the kernel's pointer
  /// parameters: block-uniform when the address is.
  bool load(const Expr *Address) {
    Address = strip(Address);
    if (auto *Ref = dyn_cast<DeclRefExpr>(Address)) {
      auto *V = dyn_cast<VarDecl>(Ref->getDecl());
      if (V && V->hasAttr<CUDAConstantAttr>()) {
        Loads = true;
        return true;
      }
    }
    if (!expr(Address))
      return false;
    Loads = true;
    return true;
  }

  /// \p Target is assigned: a candidate, an element of one, or a local of the
  /// statement.
  bool store(const Expr *Target) {
    const Expr *T = strip(Target);
    const VarDecl *Root = isa<DeclRefExpr>(T) || isa<ArraySubscriptExpr>(T)
                              ? subscriptRoot(T)
                              : nullptr;
    if (Root && (Cands.count(Root) || Locals.count(Root)))
      return true;
    std::string What =
        Root ? "`" + Root->getNameAsString() + "`" : std::string("memory");
    if (!Root)
      for (const DeclRefExpr *R : statementsIn<DeclRefExpr>(T)) {
        What = "memory through `" + R->getDecl()->getNameAsString() + "`";
        break;
      }
    return fail("a store to " + What);
  }

  bool indicesOf(const Expr *Target) {
    const Expr *T = strip(Target);
    while (auto *Sub = dyn_cast<ArraySubscriptExpr>(T)) {
      if (!expr(Sub->getIdx()))
        return false;
      T = strip(Sub->getBase());
    }
    return true;
  }

  const FunctionDecl *FD;
  const std::set<const VarDecl *> &Cands;
  const std::set<const VarDecl *> &WrittenParams;
  std::set<const VarDecl *> Locals;
};

/// `for (int k = A; k < B; ++k) body` whose body writes only `t[k]` of
/// candidate tables and reads none: its iterations can be spread over the
/// block's threads.
struct SpreadLoop {
  const VarDecl *Index = nullptr;
  const Expr *Start = nullptr;
};

inline std::optional<SpreadLoop>
spreadable(const ForStmt *For, const std::set<const VarDecl *> &Tables) {
  auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!Init || !Init->isSingleDecl())
    return std::nullopt;
  auto *K = dyn_cast<VarDecl>(Init->getSingleDecl());
  // An index narrower than int would wrap when it steps by blockDim.x.
  if (!K || !K->hasInit() || !K->getType()->isIntegerType() ||
      K->getASTContext().getTypeSize(K->getType()) < 32)
    return std::nullopt;
  auto *Cond = dyn_cast_or_null<BinaryOperator>(strip(For->getCond()));
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE) ||
      referencedVar(Cond->getLHS()) != K)
    return std::nullopt;
  const Expr *Inc = strip(For->getInc());
  bool Step1 = false;
  if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    Step1 = U->isIncrementOp() && referencedVar(U->getSubExpr()) == K;
  if (auto *B = dyn_cast_or_null<BinaryOperator>(Inc))
    if (B->getOpcode() == BO_AddAssign && referencedVar(B->getLHS()) == K)
      if (auto *One = dyn_cast<IntegerLiteral>(strip(B->getRHS())))
        Step1 = One->getValue() == 1;
  if (!Step1)
    return std::nullopt;
  // The body: stores only `t[k]` (one subscript, k itself), never k, and
  // reads no table.
  bool OK = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !OK)
      return;
    // A break ends every thread's share of the loop at a different point.
    if (isa<BreakStmt>(S) || isa<GotoStmt>(S) || isa<ReturnStmt>(S)) {
      OK = false;
      return;
    }
    if (auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp()) {
      const Expr *L = strip(B->getLHS());
      auto *Sub = dyn_cast<ArraySubscriptExpr>(L);
      if (Sub && Tables.count(subscriptRoot(Sub))) {
        if (B->isCompoundAssignmentOp() ||
            isa<ArraySubscriptExpr>(strip(Sub->getBase())) ||
            referencedVar(Sub->getIdx()) != K)
          OK = false;
        Walk(B->getRHS());
        return;
      }
      if (referencedVar(L) == K)
        OK = false;
    }
    if (auto *U = dyn_cast<UnaryOperator>(S); U && U->isIncrementDecrementOp())
      if (referencedVar(U->getSubExpr()) == K ||
          Tables.count(subscriptRoot(U->getSubExpr())))
        OK = false;
    if (auto *A = dyn_cast<ArraySubscriptExpr>(S))
      if (Tables.count(subscriptRoot(A)))
        OK = false; // A read of a table (stores were handled above).
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(For->getBody());
  if (!OK)
    return std::nullopt;
  return SpreadLoop{K, K->getInit()};
}

/// Whether \p S may return (or leave the kernel) for some threads of a block
/// and not others; \p Line is set to where.
inline bool divergentExit(const Stmt *Top, const Stmt *S, const KernelInfo *K,
                          const SourceManager &SM, unsigned &Line,
                          const FunctionDecl *FD,
                          const std::set<const VarDecl *> &WrittenParams) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<AsmStmt>(S)) {
    std::vector<const Stmt *> Path = pathTo(Top, S);
    bool Uniform = K != nullptr;
    for (const Stmt *P : Path) {
      if (isa<ForStmt>(P) || isa<WhileStmt>(P) || isa<DoStmt>(P) ||
          isa<SwitchStmt>(P) || isa<CXXForRangeStmt>(P) || isa<AsmStmt>(P))
        Uniform = false;
      if (auto *If = dyn_cast<IfStmt>(P)) {
        bool Found = false;
        if (K)
          for (const BranchInfo &B : K->Branches)
            if (B.Line == SM.getExpansionLineNumber(If->getBeginLoc()) &&
                B.Column == SM.getExpansionColumnNumber(If->getBeginLoc()) &&
                B.Level <= Uniformity::BlockUniform)
              Found = true;
        // And uniform by its text alone: the analysis does not follow a
        // local through its address or a lambda's reference capture.
        std::set<const VarDecl *> None;
        SliceCheck Check(FD, None, WrittenParams);
        Uniform = Uniform && Found && Check.expr(If->getCond()) &&
                  !If->getConditionVariable() && !If->getInit();
      }
    }
    if (!Uniform) {
      Line = SM.getExpansionLineNumber(S->getBeginLoc());
      return true;
    }
    return false;
  }
  if (auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = Call->getDirectCallee())
      if (F->getName() == "__trap" || F->getName() == "exit") {
        Line = SM.getExpansionLineNumber(S->getBeginLoc());
        return true;
      }
  for (const Stmt *Child : S->children())
    if (divergentExit(Top, Child, K, SM, Line, FD, WrittenParams))
      return true;
  return false;
}

/// Whether \p S may leave the kernel (return, exit, trap) for any thread.
inline bool mayExit(const Stmt *S, unsigned &Line, const SourceManager &SM) {
  if (!S)
    return false;
  bool Exit = isa<ReturnStmt>(S) || isa<AsmStmt>(S) || isa<GotoStmt>(S) ||
              isa<IndirectGotoStmt>(S);
  if (auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = Call->getDirectCallee())
      Exit = F->getName() == "__trap" || F->getName() == "exit";
  if (Exit) {
    Line = SM.getExpansionLineNumber(S->getBeginLoc());
    return true;
  }
  for (const Stmt *Child : S->children())
    if (mayExit(Child, Line, SM))
      return true;
  return false;
}

/// Whether a launch-uniform initializer evaluates on the host to the bits
/// the device computes: integer arithmetic that cannot trap, and
/// floating-point additions, subtractions, divisions and conversions, which
/// round the same (IEEE, round to nearest) on both. A floating-point product
/// is refused unless the program is built with --fmad=false: nvcc may fuse it
/// with an addition, in the kernel or in the code that uses the value, into
/// one fused multiply-add, which the host does not reproduce.
class HostSlice : public FirstReason {
public:
  HostSlice(const FunctionDecl *FD,
            const std::map<const VarDecl *, std::string> &Host,
            const std::set<const VarDecl *> &WrittenParams)
      : FD(FD), Host(Host), WrittenParams(WrittenParams) {}

  bool Float = false, Product = false;
  std::set<const ParmVarDecl *> Params;

  bool check(const Expr *E, const ASTContext &Ctx) {
    E = E->IgnoreParens();
    if (E->getType()->isRealFloatingType())
      Float = true;
    if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
        isa<CharacterLiteral>(E) || isa<CXXBoolLiteralExpr>(E))
      return true;
    if (auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
      if (P && P->getDeclContext() == FD && !WrittenParams.count(P) &&
          P->getType()->isArithmeticType()) {
        Params.insert(P);
        return true;
      }
      if (auto *V = dyn_cast<VarDecl>(Ref->getDecl()); V && Host.count(V))
        return true;
      return fail("`" + Ref->getDecl()->getNameAsString() +
                  "`, which the host does not have at the launch");
    }
    if (auto *Cast = dyn_cast<CastExpr>(E)) {
      switch (Cast->getCastKind()) {
      case CK_LValueToRValue:
      case CK_NoOp:
      case CK_IntegralCast:
      case CK_IntegralToFloating:
      case CK_FloatingCast:
      case CK_IntegralToBoolean:
        return check(Cast->getSubExpr(), Ctx);
      case CK_FloatingToIntegral:
        return fail("a floating-point to integer conversion, which the host "
                    "and the device round differently out of range");
      default:
        return fail("the conversion `" + std::string(Cast->getCastKindName()) +
                    "`");
      }
    }
    if (auto *U = dyn_cast<UnaryOperator>(E)) {
      switch (U->getOpcode()) {
      case UO_Minus:
      case UO_Plus:
      case UO_Not:
      case UO_LNot:
        return check(U->getSubExpr(), Ctx);
      default:
        return fail("the operator `" +
                    std::string(UnaryOperator::getOpcodeStr(U->getOpcode())) +
                    "`");
      }
    }
    if (auto *B = dyn_cast<BinaryOperator>(E)) {
      if (B->isAssignmentOp() || B->isCommaOp())
        return fail("an assignment");
      bool FloatOp = B->getLHS()->getType()->isRealFloatingType() ||
                     B->getRHS()->getType()->isRealFloatingType();
      if (FloatOp && B->getOpcode() == BO_Mul)
        Product = true;
      if (!FloatOp && (B->getOpcode() == BO_Div || B->getOpcode() == BO_Rem)) {
        Expr::EvalResult R;
        if (!B->getRHS()->EvaluateAsInt(R, Ctx) || R.Val.getInt() == 0 ||
            R.Val.getInt().isAllOnes())
          return fail("an integer division by a value that is not a constant "
                      "other than 0 and -1 (the host traps where the device "
                      "does not)");
      }
      if (B->isShiftOp()) {
        Expr::EvalResult R;
        uint64_t Width = Ctx.getTypeSize(B->getType());
        if (!B->getRHS()->EvaluateAsInt(R, Ctx) ||
            R.Val.getInt().isNegative() ||
            R.Val.getInt().getZExtValue() >= Width)
          return fail("a shift by a count that is not a constant below the "
                      "width");
      }
      return check(B->getLHS(), Ctx) && check(B->getRHS(), Ctx);
    }
    if (auto *C = dyn_cast<ConditionalOperator>(E))
      return check(C->getCond(), Ctx) && check(C->getTrueExpr(), Ctx) &&
             check(C->getFalseExpr(), Ctx);
    return fail(std::string("a `") + E->getStmtClassName() + "`");
  }

private:
  const FunctionDecl *FD;
  const std::map<const VarDecl *, std::string> &Host;
  const std::set<const VarDecl *> &WrittenParams;
};

/// The launches of \p FD in the translation unit, and the first reference to
/// it that is not a launch (its address taken, a launch API), if any.
inline void launchesOf(ASTContext &Ctx, const FunctionDecl *FD,
                       std::vector<const CUDAKernelCallExpr *> &Launches,
                       const DeclRefExpr *&Other) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *FD;
    std::vector<const CUDAKernelCallExpr *> Launches;
    std::set<const Expr *> Callees;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *C) {
      if (C->getDirectCallee() &&
          C->getDirectCallee()->getCanonicalDecl() == FD->getCanonicalDecl()) {
        Launches.push_back(C);
        Callees.insert(C->getCallee()->IgnoreImpCasts());
      }
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (auto *F = dyn_cast<FunctionDecl>(R->getDecl()))
        if (F->getCanonicalDecl() == FD->getCanonicalDecl())
          Refs.push_back(R);
      return true;
    }
  } F;
  F.FD = FD;
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  Launches = F.Launches;
  Other = nullptr;
  for (const DeclRefExpr *R : F.Refs)
    if (!F.Callees.count(R)) {
      Other = R;
      break;
    }
}

struct Candidate {
  const VarDecl *Var = nullptr;
  unsigned DeclIndex = 0;
  std::vector<unsigned> Fills; ///< Top-level statements that write it.
  std::string Rejected;
  bool Loads = false;
};

} // namespace share
} // namespace warpwise

#endif
