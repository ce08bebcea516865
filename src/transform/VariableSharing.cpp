//===- VariableSharing.cpp - Block-uniform values in shared memory --------===//
//
// Candidates are local scalars and constant-size arrays declared at the top
// level of a kernel's body whose every write is a *fill statement*: a
// top-level statement that computes only from kernel parameters the kernel
// never assigns, blockIdx/blockDim/gridDim, constants, `__constant__` data,
// loads through the kernel's pointer parameters at block-uniform addresses,
// pure functions and other candidates, and that stores nothing but
// candidates and its own locals. The divergence analysis must agree that
// each candidate is at most block-uniform.
//
// Legality of the rewrite:
//  - every thread of the block reaches the barrier: the fill runs before the
//    first top-level statement that may return (or exit) for some threads of
//    a block and not others. A fill that loads memory is not moved above such
//    a return, since a block whose threads all return would load what the
//    original never loads (an address past an array's end, say);
//  - statements the fill moves above are pure, or the fill loads nothing;
//  - no candidate is read before its fill is complete, none escapes (its
//    address taken, an array passed to a function), and nothing else in the
//    kernel writes it after the fill;
//  - the shared copies fit the architecture's static shared memory.
// The names keep their meaning through references to the shared copies, so
// the code after the fill is not edited.
//
//===----------------------------------------------------------------------===//
#include "VariableSharing.h"

#include "../analysis/MemoryAccess.h"
#include "../plan/SharePlanner.h"
#include "Candidates.h"
#include "SideEffects.h"

#include "warpwise/AstQueries.h"
#include "warpwise/Feedback.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

const Expr *strip(const Expr *E) { return E ? E->IgnoreParenImpCasts() : E; }

/// The variable whose storage the lvalue \p E designates: `w` for `w`,
/// `w[i][j]` and `s.f` (through array-to-pointer decays, not through a
/// pointer's value: `p[i]` is not `p`'s storage), or null.
const VarDecl *subscriptRoot(const Expr *E) {
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
bool designatesStorage(const Expr *E) {
  E = E->IgnoreParens();
  return isa<DeclRefExpr>(E) || isa<ArraySubscriptExpr>(E) ||
         (isa<MemberExpr>(E) && !cast<MemberExpr>(E)->isArrow());
}

bool isBlockBuiltin(const Expr *E, bool &IsBuiltin) {
  std::string Object, Component;
  IsBuiltin = builtinVariable(E, Object, Component);
  return IsBuiltin &&
         (Object == "blockIdx" || Object == "blockDim" || Object == "gridDim");
}

/// A scalar of arithmetic type, or a constant-size array of them.
bool eligibleType(QualType T) {
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

std::optional<SpreadLoop> spreadable(const ForStmt *For,
                                     const std::set<const VarDecl *> &Tables) {
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

std::string textOf(ASTContext &Ctx, SourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = CharSourceRange::getTokenRange(
      SM.getExpansionRange(R.getBegin()).getBegin(),
      SM.getExpansionRange(R.getEnd()).getEnd());
  return Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str();
}

/// The offset just past \p S, its `;` included.
unsigned endOf(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
  SourceLocation After =
      Lexer::getLocForEndOfToken(Last, 0, SM, Ctx.getLangOpts());
  unsigned End = SM.getFileOffset(After);
  if (!isa<DeclStmt>(S) && !isa<CompoundStmt>(S)) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        Last, tok::semi, SM, Ctx.getLangOpts(), false);
    if (Semi.isValid())
      End = SM.getFileOffset(Semi);
  }
  return End;
}

/// The statement's text with its `;`.
std::string stmtText(ASTContext &Ctx, llvm::StringRef Text, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Begin =
      SM.getFileOffset(SM.getExpansionRange(S->getBeginLoc()).getBegin());
  return Text.slice(Begin, endOf(Ctx, S)).str();
}

/// The type of \p V written for a declaration of \p Name (`float (&w)[32]`
/// with \p Ref, `float ww_shared_w[32]` without).
std::string declare(ASTContext &Ctx, QualType T, const std::string &Name,
                    bool Ref) {
  std::string Dims;
  while (const auto *A = dyn_cast<ConstantArrayType>(T.getTypePtr())) {
    Dims += "[" + std::to_string(A->getSize().getZExtValue()) + "]";
    T = A->getElementType();
  }
  std::string Elem =
      T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  if (!Ref)
    return Elem + " " + Name + Dims;
  if (Dims.empty())
    return "const " + Elem + " &" + Name;
  return Elem + " (&" + Name + ")" + Dims;
}

unsigned long bytesOf(ASTContext &Ctx, QualType T) {
  return Ctx.getTypeSizeInChars(T).getQuantity();
}

/// Whether \p S may return (or leave the kernel) for some threads of a block
/// and not others; \p Line is set to where.
bool divergentExit(const Stmt *Top, const Stmt *S, const KernelInfo *K,
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
bool mayExit(const Stmt *S, unsigned &Line, const SourceManager &SM) {
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

/// [start of \p S's line, start of the next line) when \p S has its lines to
/// itself; std::nullopt otherwise.
std::optional<std::pair<unsigned, unsigned>>
wholeLines(ASTContext &Ctx, llvm::StringRef Text, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = SM.getExpansionRange(S->getBeginLoc()).getBegin();
  unsigned Begin = SM.getFileOffset(B), End = endOf(Ctx, S);
  unsigned LineStart = Begin;
  while (LineStart > 0 && Text[LineStart - 1] != '\n') {
    char C = Text[LineStart - 1];
    if (C != ' ' && C != '\t')
      return std::nullopt;
    --LineStart;
  }
  unsigned LineEnd = End;
  while (LineEnd < Text.size() && Text[LineEnd] != '\n') {
    char C = Text[LineEnd];
    if (C != ' ' && C != '\t' && C != '\r')
      return std::nullopt;
    ++LineEnd;
  }
  if (LineEnd < Text.size())
    ++LineEnd;
  return std::make_pair(LineStart, LineEnd);
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
void launchesOf(ASTContext &Ctx, const FunctionDecl *FD,
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

using ClosureFn =
    std::function<std::set<const VarDecl *>(const std::set<const VarDecl *> &)>;

/// Whether the program is built so that the device's floating-point
/// arithmetic differs from IEEE round-to-nearest (fast math, flushed
/// denormals, approximate division), and whether nvcc contracts (fmad).
void floatFlags(TransformContext &TC, bool &Approximate, bool &Contracts) {
  Approximate = false;
  Contracts = !TC.FmadFalse;
  if (!TC.Feedback)
    return;
  for (const std::string &F : TC.Feedback->flagsFor(TC.File)) {
    llvm::StringRef Flag = llvm::StringRef(F).ltrim('-');
    if (Flag == "use_fast_math" || Flag == "ftz=true" ||
        Flag == "prec-div=false" || Flag == "prec-sqrt=false")
      Approximate = true;
    if (Flag == "use_fast_math" || Flag == "fmad=true")
      Contracts = true;
    if (Flag == "fmad=false")
      Contracts = false;
  }
}

/// External sharing (seed 001): the launch-uniform scalars among \p Worth
/// (computed from kernel parameters and constants alone) are computed by
/// the host at each launch and passed as new parameters. Reports its own
/// decision; takes what it shares out of \p Worth. Returns why launch-uniform
/// values stay on the device, for the internal decision ("" when none do or
/// none exist).
std::string shareExternally(TransformContext &TC, const char *Transform,
                            const FunctionDecl *FD,
                            const std::vector<const VarDecl *> &Order,
                            std::map<const VarDecl *, Candidate> &Cands,
                            std::set<const VarDecl *> &Worth,
                            const std::set<const VarDecl *> &WrittenParams,
                            const ClosureFn &Closure,
                            std::vector<Decision> &Decisions,
                            std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Name = [](const VarDecl *V) { return "`" + V->getNameAsString() + "`"; };
  bool Approximate, Contracts;
  floatFlags(TC, Approximate, Contracts);
  std::map<const VarDecl *, std::string> Host;
  std::vector<const VarDecl *> Ext;
  std::string Why;
  for (const VarDecl *V : Order) {
    const Candidate &C = Cands[V];
    if (!Worth.count(V) || V->getType()->isArrayType() || C.Fills.size() != 1 ||
        C.Loads || !V->getInit() ||
        isa<InitListExpr>(V->getInit()->IgnoreImplicit()) ||
        V->getInit()->getBeginLoc().isMacroID() ||
        V->getInit()->getEndLoc().isMacroID())
      continue;
    // blockIdx, blockDim or gridDim: block-uniform, not the host's.
    bool PerBlock = false;
    for (const Expr *E : statementsIn<Expr>(V->getInit())) {
      bool IsBuiltin;
      if (isBlockBuiltin(E, IsBuiltin))
        PerBlock = true;
    }
    if (PerBlock)
      continue;
    HostSlice H(FD, Host, WrittenParams);
    std::string No;
    if (!H.check(V->getInit(), Ctx))
      No = "it has " + H.Why;
    else if (H.Float && Approximate)
      No = "the build approximates floating-point arithmetic (fast math, "
           "flushed denormals or approximate division), which the host does "
           "not";
    else if (H.Product && Contracts)
      No = "it has a floating-point product, which nvcc may fuse with an "
           "addition into a fused multiply-add (--fmad=true, the default) "
           "that the host's arithmetic does not reproduce bit for bit";
    if (!No.empty()) {
      Why += std::string(Why.empty() ? "" : "; ") + Name(V) +
             " is not computed by the host: " + No;
      continue;
    }
    Host[V] = "";
    Ext.push_back(V);
  }
  // What the internal fill needs stays with it.
  std::set<const VarDecl *> Rest;
  for (const VarDecl *V : Worth)
    if (!Host.count(V))
      Rest.insert(V);
  std::set<const VarDecl *> Inner = Closure(Rest);
  std::vector<const VarDecl *> Kept;
  for (const VarDecl *V : Ext)
    if (!Inner.count(V))
      Kept.push_back(V);
  Ext = Kept;
  if (Ext.empty())
    return Why;

  std::string Names;
  for (const VarDecl *V : Ext)
    Names += std::string(Names.empty() ? "" : ", ") + Name(V);
  unsigned Line = SM.getExpansionLineNumber(Ext.front()->getBeginLoc());
  Decision D;
  D.Transform = Transform;
  D.Kernel = FD->getNameAsString();
  D.Line = Line;
  D.Form = "external";
  D.File = TC.decisionFileOf(FD->getLocation());
  std::string Where = "`" + D.Kernel + "` (launch-uniform " + Names + ")";
  auto Report = [&]() {
    TC.Log.report(
        D.Applied ? "WW4004" : "WW3004", Severity::Remark,
        TC.displayOf(FD->getLocation()), Line,
        SM.getExpansionColumnNumber(
            SM.getExpansionRange(Ext.front()->getBeginLoc()).getBegin()),
        std::string(Transform) + ": " + D.Reason);
    Decisions.push_back(D);
  };
  Steer Steering = TC.steer(Transform, FD, Ext.front()->getBeginLoc());
  if (Steering.disabled()) {
    D.Reason = Where + ": disabled by " + Steering.Source + "; not considered";
    Report();
    return "";
  }
  SteerScope Steered(TC, Steering, Transform);

  // The kernel's parameters change: every launch must be in view.
  std::string Refusal;
  std::vector<const CUDAKernelCallExpr *> Launches;
  const DeclRefExpr *Other = nullptr;
  if (FD->isExternC())
    Refusal = "it is `extern \"C\"`: a caller elsewhere would pass the old "
              "parameters unnoticed";
  else if (FD->isTemplated() || FD->isTemplateInstantiation())
    Refusal = "it is a template";
  else if (!D.File.empty())
    Refusal = "it is defined in a header";
  for (const FunctionDecl *R : FD->redecls())
    if (R != FD && Refusal.empty())
      Refusal = "it is declared at line " +
                std::to_string(SM.getExpansionLineNumber(R->getLocation())) +
                " as well, where other files may launch it with the old "
                "parameters";
  if (Refusal.empty()) {
    launchesOf(Ctx, FD, Launches, Other);
    if (Other)
      Refusal =
          "it is named at line " +
          std::to_string(SM.getExpansionLineNumber(Other->getBeginLoc())) +
          " other than in a `<<<>>>` launch (its address, a launch "
          "API), where the new parameters would not be passed";
    else if (Launches.empty())
      Refusal = "no launch of it is in this file";
  }
  std::set<const ParmVarDecl *> Params;
  for (const VarDecl *V : Ext) {
    HostSlice H(FD, Host, WrittenParams);
    H.check(V->getInit(), Ctx);
    Params.insert(H.Params.begin(), H.Params.end());
  }
  for (const CUDAKernelCallExpr *L : Launches) {
    if (!Refusal.empty())
      break;
    unsigned LLine = SM.getExpansionLineNumber(L->getBeginLoc());
    if (L->getBeginLoc().isMacroID() || L->getRParenLoc().isMacroID() ||
        !SM.isInMainFile(SM.getExpansionLoc(L->getBeginLoc())))
      Refusal = "its launch at line " + std::to_string(LLine) +
                " is in a macro or another file";
    for (const ParmVarDecl *P : Params) {
      unsigned I = P->getFunctionScopeIndex();
      const Expr *Arg = I < L->getNumArgs() ? L->getArg(I) : nullptr;
      if (Refusal.empty() &&
          (!Arg || isa<CXXDefaultArgExpr>(Arg) ||
           Arg->getBeginLoc().isMacroID() || Arg->getEndLoc().isMacroID() ||
           hasEffects(Arg) || !statementsIn<CallExpr>(Arg).empty()))
        Refusal = "the launch at line " + std::to_string(LLine) + " passes `" +
                  P->getNameAsString() +
                  "` an expression the host cannot evaluate again without "
                  "effect (a call, an assignment, a default argument or a "
                  "macro)";
    }
  }
  if (!Refusal.empty()) {
    return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
           Names + " not computed by the host: " + Refusal;
  }

  // The edits: new parameters, the initializers read them, every launch
  // passes the host's values.
  const std::string InFile = TC.fileOf(FD->getLocation());
  llvm::StringRef Text = TC.textOf(FD->getLocation());
  auto Off = [&](SourceLocation L) {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  };
  auto EndOff = [&](SourceLocation L) {
    return SM.getFileOffset(Lexer::getLocForEndOfToken(SM.getExpansionLoc(L), 0,
                                                       SM, Ctx.getLangOpts()));
  };
  std::map<const VarDecl *, std::string> HostName;
  for (const VarDecl *V : Ext) {
    std::string N = "ww_host_" + V->getNameAsString(), Unique = N;
    for (unsigned K = 2; Text.contains(Unique); ++K)
      Unique = N + "_" + std::to_string(K);
    HostName[V] = Unique;
  }
  ShareCandidate C;
  C.FD = FD;
  C.Line = Line;
  C.External = true;
  C.Where = Where;
  C.Left = Why;
  std::string NewParams;
  for (const VarDecl *V : Ext)
    NewParams +=
        ", " +
        V->getType().getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
        " " + HostName[V];
  FunctionTypeLoc FTL = FD->getFunctionTypeLoc();
  if (!FTL) {
    return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
           Names +
           " not computed by the host: its parameter list is not "
           "written out";
  }
  if (FD->getNumParams() == 0)
    NewParams = NewParams.substr(2);
  C.Edits.emplace_back(InFile, Off(FTL.getRParenLoc()), 0, NewParams);
  // The decision's comment above the first value's declaration.
  SourceLocation DeclLoc =
      SM.getExpansionRange(Ext.front()->getBeginLoc()).getBegin();
  unsigned DeclCol = SM.getExpansionColumnNumber(DeclLoc);
  unsigned DeclOff = SM.getFileOffset(DeclLoc);
  std::string In(DeclCol - 1, ' ');
  bool OwnLine = DeclOff >= DeclCol - 1 &&
                 Text.slice(DeclOff - (DeclCol - 1), DeclOff).trim().empty();
  if (OwnLine)
    C.Edits.emplace_back(InFile, DeclOff - (DeclCol - 1), 0,
                         In + DecisionMark + "\n");
  for (const VarDecl *V : Ext) {
    unsigned B = Off(V->getInit()->getBeginLoc()),
             E = EndOff(V->getInit()->getEndLoc());
    C.Edits.emplace_back(InFile, B, E - B, HostName[V]);
  }
  // Each launch: the host's expression of each value, with the launch's
  // arguments in place of the parameters (converted as the launch converts
  // them) and the values' own host expressions for those they use.
  for (const CUDAKernelCallExpr *L : Launches) {
    std::map<const VarDecl *, std::string> Exprs;
    std::string Args;
    unsigned LaunchIndent =
        SM.getExpansionColumnNumber(SM.getExpansionLoc(L->getBeginLoc())) - 1;
    for (const VarDecl *V : Ext) {
      const Expr *Init = V->getInit();
      unsigned IB = Off(Init->getBeginLoc());
      std::string T = Text.slice(IB, EndOff(Init->getEndLoc())).str();
      std::vector<std::pair<unsigned, const DeclRefExpr *>> Refs;
      for (const DeclRefExpr *R : statementsIn<DeclRefExpr>(Init))
        Refs.push_back({Off(R->getBeginLoc()) - IB, R});
      std::sort(Refs.rbegin(), Refs.rend());
      for (auto &[At, R] : Refs) {
        unsigned Len = EndOff(R->getEndLoc()) - Off(R->getBeginLoc());
        std::string With;
        if (auto *P = dyn_cast<ParmVarDecl>(R->getDecl())) {
          const Expr *Arg = L->getArg(P->getFunctionScopeIndex());
          const Expr *Bare = Arg->IgnoreImpCasts();
          std::string ArgText = textOf(Ctx, Arg->getSourceRange());
          bool Simple = isa<DeclRefExpr>(Bare->IgnoreParens()) ||
                        isa<IntegerLiteral>(Bare) || isa<FloatingLiteral>(Bare);
          // The launch converts the argument to the parameter's type; so
          // does the host's expression.
          if (Ctx.hasSameUnqualifiedType(Bare->getType(), P->getType()))
            With = Simple ? ArgText : "(" + ArgText + ")";
          else
            With = "((" +
                   P->getType().getUnqualifiedType().getAsString(
                       Ctx.getPrintingPolicy()) +
                   ")(" + ArgText + "))";
        } else if (auto *W = dyn_cast<VarDecl>(R->getDecl());
                   W && Exprs.count(W)) {
          With = "(" + Exprs[W] + ")";
        } else {
          continue;
        }
        T.replace(At, Len, With);
      }
      Exprs[V] = T;
      Args += ",\n" + std::string(LaunchIndent + 4, ' ') + T;
    }
    if (L->getNumArgs() == 0)
      Args = Args.substr(1);
    // The whole argument list is replaced, so that the formatter lays it
    // out anew rather than appending to a line.
    unsigned ArgsEnd = Off(L->getRParenLoc());
    unsigned ArgsBegin =
        L->getNumArgs() ? Off(L->getArg(0)->getBeginLoc()) : ArgsEnd;
    C.Edits.emplace_back(InFile, ArgsBegin, ArgsEnd - ArgsBegin,
                         Text.slice(ArgsBegin, ArgsEnd).str() + Args);
    // Its comment, on the line before when the launch starts its line.
    SourceLocation LB = SM.getExpansionLoc(L->getBeginLoc());
    unsigned Col = SM.getExpansionColumnNumber(LB), LOff = SM.getFileOffset(LB);
    if (LOff >= Col - 1 && Text.slice(LOff - (Col - 1), LOff).trim().empty())
      C.Edits.emplace_back(InFile, LOff - (Col - 1), 0,
                           std::string(Col - 1, ' ') + DecisionMark + "\n");
  }
  C.Proof = "computed from kernel parameters and constants alone, in "
            "arithmetic the host reproduces bit for bit" +
            std::string(Contracts ? " (no floating-point product to fuse)"
                                  : " (--fmad=false)") +
            "; every launch of it is a `<<<>>>` in this file, with arguments "
            "the host can evaluate again";
  std::sort(C.Edits.begin(), C.Edits.end(),
            [](const tooling::Replacement &A, const tooling::Replacement &B) {
              return A.getOffset() < B.getOffset();
            });
  // An earlier rewrite of the kernel or of a launch (a split) owns it.
  for (const tooling::Replacement &R : C.Edits) {
    unsigned B = R.getOffset(), E = B + std::max(1u, R.getLength());
    bool Edited = TC.claimed(InFile, B, E);
    for (const tooling::Replacement &A : TC.Applied)
      if (A.getFilePath() == R.getFilePath() && A.getOffset() < E &&
          B < A.getOffset() + std::max(1u, A.getLength()))
        Edited = true;
    if (Edited) {
      unsigned L = SM.getLineNumber(
          SM.getFileID(SM.getExpansionLoc(FD->getLocation())), B);
      return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
             Names +
             " not computed by the host: an earlier rewrite edited "
             "line " +
             std::to_string(L) + ", which this one would edit too";
    }
  }
  D = planShare(TC, C, Transform);
  D.File = TC.decisionFileOf(FD->getLocation());
  if (!D.Applied) {
    Report();
    return "";
  }
  TC.takeDecisionId(D, "WW4004", Text);
  bool Kernel = true;
  for (tooling::Replacement &R : C.Edits) {
    std::string T = R.getReplacementText().str();
    std::string What =
        Kernel ? "the launch-uniform " + Names +
                     (Ext.size() > 1 ? " are" : " is") +
                     " computed by the host at each launch and passed as " +
                     (Ext.size() > 1 ? "parameters" : "a parameter") +
                     " (external variable sharing)"
               : "passes the launch-uniform " + Names + " of `" + D.Kernel +
                     "`, computed here";
    // The launches' comments name the decision; the kernel's says what
    // was measured.
    std::string Comment =
        Kernel ? TC.decisionComment(D, What)
               : "// warpwise " + D.Code + " " + D.Id + ": " + What;
    if (fillDecisionMark(T, Comment)) {
      R = tooling::Replacement(R.getFilePath(), R.getOffset(), R.getLength(),
                               T);
      Kernel = false;
    }
  }
  Changes.push_back(
      {"external variable sharing in `" + D.Kernel + "`", C.Edits});
  TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
  for (const tooling::Replacement &R : C.Edits)
    TC.Claimed.push_back(
        {InFile, R.getOffset(), R.getOffset() + std::max(1u, R.getLength())});
  for (const VarDecl *V : Ext)
    Worth.erase(V);
  Report();
  return "";
}

} // namespace

void VariableSharing::run(TransformContext &TC,
                          std::vector<Decision> &Decisions,
                          std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  // A later kernel is measured with this run's applied edits too; the
  // driver adds them to TC.Applied once the run is over.
  std::vector<tooling::Replacement> AppliedBefore = TC.Applied;
  struct Restore {
    TransformContext &TC;
    std::vector<tooling::Replacement> &Saved;
    ~Restore() { TC.Applied = Saved; }
  } Restorer{TC, AppliedBefore};
  for (const FunctionDecl *FD : deviceCodeDefinitions(Ctx, false, TC.Scope)) {
    auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!Body || !FD->hasAttr<CUDAGlobalAttr>())
      continue;
    std::vector<const Stmt *> Top(Body->body_begin(), Body->body_end());
    const KernelInfo *Own = nullptr;
    for (const KernelInfo &K : TC.Analysis.Kernels)
      if (K.Name == FD->getNameAsString() &&
          K.Line == SM.getExpansionLineNumber(FD->getLocation()))
        Own = &K;

    // 1. Candidates: top-level locals of eligible type.
    std::map<const VarDecl *, Candidate> Cands;
    std::vector<const VarDecl *> Order;
    for (unsigned I = 0; I < Top.size(); ++I)
      if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
        for (const Decl *D : DS->decls())
          if (auto *V = dyn_cast<VarDecl>(D))
            // An array declared with others would need its own alias.
            if (!(V->getType()->isArrayType() && !DS->isSingleDecl()) &&
                // A constant (an array bound, a template argument) stays.
                !V->isUsableInConstantExpressions(Ctx) &&
                V->hasLocalStorage() && !V->isStaticLocal() &&
                eligibleType(V->getType()) &&
                (V->getType()->isArrayType() ? !V->hasInit() : V->hasInit())) {
              Cands[V] = {V, I, {}, "", false};
              Order.push_back(V);
            }
    // A scalar whose initializer is a thread's own value (the thread's
    // index, what it loaded) was never a shared value: it is not mentioned.
    // Parameters the kernel writes, or may write: assigned (a member or an
    // element of one too), bound to a reference, their address taken.
    std::set<const VarDecl *> WrittenParams;
    {
      std::set<const VarDecl *> Params(FD->param_begin(), FD->param_end());
      Uses ParamUses;
      UseScanner(Ctx, Params, ParamUses).stmt(Body, false);
      WrittenParams = ParamUses.Writes;
      WrittenParams.insert(ParamUses.Escapes.begin(), ParamUses.Escapes.end());
    }
    for (bool Dropped = true; Dropped;) {
      Dropped = false;
      std::set<const VarDecl *> Now(Order.begin(), Order.end());
      for (const VarDecl *V : Order) {
        if (V->getType()->isArrayType())
          continue;
        SliceCheck Check(FD, Now, WrittenParams);
        if (!Check.expr(V->getInit())) {
          Cands.erase(V);
          Order.erase(std::find(Order.begin(), Order.end(), V));
          Dropped = true;
          break;
        }
      }
    }
    if (Cands.empty())
      continue;
    std::set<const VarDecl *> All(Order.begin(), Order.end());

    // 2. How each top-level statement uses them.
    std::vector<Uses> StmtUses(Top.size());
    for (unsigned I = 0; I < Top.size(); ++I) {
      UseScanner Scan(Ctx, All, StmtUses[I]);
      Scan.stmt(Top[I], false);
    }
    for (auto &[V, C] : Cands) {
      C.Fills.push_back(C.DeclIndex);
      for (unsigned I = 0; I < Top.size(); ++I)
        if (I != C.DeclIndex &&
            (StmtUses[I].Writes.count(V) || StmtUses[I].Escapes.count(V)))
          C.Fills.push_back(I);
      std::sort(C.Fills.begin(), C.Fills.end());
    }
    auto Line = [&](unsigned I) {
      return SM.getExpansionLineNumber(Top[I]->getBeginLoc());
    };
    auto Name = [](const VarDecl *V) {
      return "`" + V->getNameAsString() + "`";
    };

    // 3. Reject, to a fixpoint, what is not a block-uniform fill.
    for (bool Changed = true; Changed;) {
      Changed = false;
      std::set<const VarDecl *> Live;
      for (auto &[V, C] : Cands)
        if (C.Rejected.empty())
          Live.insert(V);
      auto Reject = [&](Candidate &C, std::string Why) {
        if (!C.Rejected.empty())
          return;
        C.Rejected = std::move(Why);
        Changed = true;
      };
      for (const VarDecl *V : Order) {
        Candidate &C = Cands[V];
        if (!C.Rejected.empty())
          continue;
        if (Own)
          for (const VariableInfo &VI : Own->Variables)
            if (VI.Line == SM.getExpansionLineNumber(V->getLocation()) &&
                VI.Column == SM.getExpansionColumnNumber(V->getLocation()) &&
                VI.Level > Uniformity::BlockUniform)
              Reject(C, "it is " + std::string(uniformityName(VI.Level)) +
                            (VI.Reason.empty() ? "" : ": " + VI.Reason) +
                            " (divergence analysis)");
        if (!C.Rejected.empty())
          continue;
        C.Loads = false;
        for (unsigned I : C.Fills) {
          if (StmtUses[I].Escapes.count(V)) {
            Reject(C, "its address is taken or it is passed by reference at "
                      "line " +
                          std::to_string(Line(I)));
            break;
          }
          if (Top[I]->getBeginLoc().isMacroID() ||
              Top[I]->getEndLoc().isMacroID()) {
            Reject(C, "its fill at line " + std::to_string(Line(I)) +
                          " is in a macro expansion");
            break;
          }
          SliceCheck Check(FD, Live, WrittenParams);
          if (!Check.stmt(Top[I])) {
            bool Divergent = Check.Why == "`threadIdx`";
            Reject(C, std::string(Divergent ? "it is assigned a thread's own "
                                              "value"
                                            : "its fill") +
                          " at line " + std::to_string(Line(I)) +
                          (Divergent ? "" : " has " + Check.Why) +
                          (Divergent ? " (divergent definition)" : ""));
            break;
          }
          C.Loads = C.Loads || Check.Loads;
          for (const VarDecl *W : StmtUses[I].Writes)
            if (W != V && !Cands[W].Rejected.empty())
              Reject(C, "it is filled together with " + Name(W) +
                            ", which stays private (line " +
                            std::to_string(Line(I)) + ")");
          if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
            for (const Decl *D : DS->decls())
              if (auto *W = dyn_cast<VarDecl>(D); W && W != V)
                if (!Cands.count(W) || !Cands[W].Rejected.empty())
                  Reject(C, "it is declared together with " + Name(W) +
                                ", which stays private");
        }
        if (!C.Rejected.empty())
          continue;
        unsigned LastFill = C.Fills.back();
        std::set<unsigned> FillSet(C.Fills.begin(), C.Fills.end());
        for (unsigned I = 0; I < LastFill; ++I)
          if (!FillSet.count(I) && StmtUses[I].Reads.count(V)) {
            Reject(C, "it is read at line " + std::to_string(Line(I)) +
                          " before its fill is complete (line " +
                          std::to_string(Line(LastFill)) + ")");
            break;
          }
      }
    }

    // 4. The values worth sharing: tables indexed at run time and values
    // read in a loop, after the fill; and the candidates their fills need.
    std::set<unsigned> LiveFills;
    for (auto &[V, C] : Cands)
      if (C.Rejected.empty())
        LiveFills.insert(C.Fills.begin(), C.Fills.end());
    std::set<const VarDecl *> Worth, WorthRejected;
    for (const VarDecl *V : Order) {
      const Candidate &C = Cands[V];
      std::set<unsigned> Own(C.Fills.begin(), C.Fills.end());
      bool Pays = false;
      for (unsigned I = 0; I < Top.size(); ++I) {
        if (Own.count(I) || LiveFills.count(I))
          continue;
        if (StmtUses[I].RunTimeIndexed.count(V) || StmtUses[I].InLoop.count(V))
          Pays = true;
      }
      // A copy of a parameter or a constant computes nothing (and is what
      // external sharing leaves behind).
      if (!V->getType()->isArrayType() && C.Fills.size() == 1 && V->getInit()) {
        const Expr *Init = V->getInit()->IgnoreParenImpCasts();
        if (isa<DeclRefExpr>(Init) || isa<IntegerLiteral>(Init) ||
            isa<FloatingLiteral>(Init) || isa<CXXBoolLiteralExpr>(Init))
          Pays = false;
      }
      if (Pays && C.Rejected.empty())
        Worth.insert(V);
      // A table is mentioned when it starts as one: its first fill is
      // block-uniform (a per-thread workspace is not).
      if (Pays && !C.Rejected.empty() && V->getType()->isArrayType() &&
          C.Fills.size() > 1) {
        SliceCheck Check(FD, All, WrittenParams);
        if (Check.stmt(Top[C.Fills[1]]) || !Check.ThreadValue)
          WorthRejected.insert(V);
      } else if (Pays && !C.Rejected.empty()) {
        WorthRejected.insert(V);
      }
    }
    if (Worth.empty() && WorthRejected.empty())
      continue;

    Decision D;
    D.Transform = name();
    D.Kernel = FD->getNameAsString();
    D.File = TC.decisionFileOf(FD->getLocation());
    TC.CurrentKernel = D.Kernel;
    if (TC.DebugCrash)
      crashForTesting();
    std::string Left;
    for (const VarDecl *V : Order)
      if (WorthRejected.count(V))
        Left += std::string(Left.empty() ? "" : "; ") + Name(V) +
                " stays private: " + Cands[V].Rejected;
    unsigned Column = 1;
    auto Report = [&](unsigned Line, const char *Code) {
      TC.Log.report(Code, Severity::Remark, TC.displayOf(FD->getLocation()),
                    Line, Column, std::string(name()) + ": " + D.Reason);
      Decisions.push_back(D);
    };
    std::string Kernel = "`" + D.Kernel + "`";

    // The closure: what the worthwhile values' fills read or write.
    auto Closure = [&](const std::set<const VarDecl *> &Seed) {
      std::set<const VarDecl *> Out = Seed;
      for (bool Grew = true; Grew;) {
        Grew = false;
        for (const VarDecl *V : std::set<const VarDecl *>(Out))
          for (unsigned I : Cands[V].Fills) {
            SliceCheck Check(FD, All, WrittenParams);
            Check.stmt(Top[I]);
            std::set<const VarDecl *> Touched = Check.ReadCands;
            Touched.insert(StmtUses[I].Writes.begin(),
                           StmtUses[I].Writes.end());
            if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
              for (const Decl *Dl : DS->decls())
                if (auto *W = dyn_cast<VarDecl>(Dl))
                  Touched.insert(W);
            for (const VarDecl *W : Touched)
              if (Cands.count(W) && Cands[W].Rejected.empty() &&
                  Out.insert(W).second)
                Grew = true;
          }
      }
      return Out;
    };

    // External sharing first: launch-uniform scalars the host computes.
    std::string OnDevice =
        shareExternally(TC, name(), FD, Order, Cands, Worth, WrittenParams,
                        Closure, Decisions, Changes);
    if (!OnDevice.empty())
      Left = OnDevice + (Left.empty() ? "" : "; " + Left);
    if (Worth.empty() && WorthRejected.empty())
      continue;
    std::set<const VarDecl *> Shared = Closure(Worth);
    std::set<unsigned> Fills;
    bool Loads = false;
    for (const VarDecl *V : Shared) {
      Fills.insert(Cands[V].Fills.begin(), Cands[V].Fills.end());
      Loads = Loads || Cands[V].Loads;
    }
    unsigned First = Fills.empty() ? 0 : *Fills.begin();
    D.Line = Fills.empty() ? SM.getExpansionLineNumber(FD->getLocation())
                           : Line(First);
    Column =
        Fills.empty()
            ? SM.getExpansionColumnNumber(FD->getLocation())
            : SM.getExpansionColumnNumber(
                  SM.getExpansionRange(Top[First]->getBeginLoc()).getBegin());
    Steer Steering = TC.steer(name(), FD, Top[First]->getBeginLoc());
    if (Steering.disabled()) {
      D.Reason =
          Kernel + ": disabled by " + Steering.Source + "; not considered";
      Report(D.Line, "WW3004");
      continue;
    }
    SteerScope Steered(TC, Steering, name());
    if (Worth.empty()) {
      D.Reason = Kernel + ": no block-uniform value is shared; " + Left;
      Report(D.Line, "WW3004");
      continue;
    }

    // 5. Where the fill runs: before the first statement that may return
    // for some threads of a block.
    unsigned At = First;
    unsigned ExitLine = 0;
    for (unsigned I = 0; I < First; ++I)
      if (divergentExit(Top[I], Top[I], Own, SM, ExitLine, FD, WrittenParams)) {
        At = I;
        break;
      }
    std::string Refusal;
    if (At < First && Loads)
      Refusal = "its fill loads memory, and the return at line " +
                std::to_string(ExitLine) +
                " comes first: moved above it, the fill would load in blocks "
                "whose threads all return, what the original never loads "
                "(early return before the fill)";
    // A loading fill is not moved above any exit between its statements
    // either, uniform or not.
    for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty() && Loads;
         ++I) {
      unsigned L = 0;
      if (!Fills.count(I) && mayExit(Top[I], L, SM))
        Refusal = "its fill loads memory, and the statement at line " +
                  std::to_string(L) +
                  ", which it would move above, may return: moved above it, "
                  "the fill would load in blocks whose threads all return "
                  "(early return before the fill)";
    }
    if (Refusal.empty() && Loads)
      for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty(); ++I)
        if (!Fills.count(I) && hasEffects(Top[I]))
          Refusal = "its fill loads memory, and the statement at line " +
                    std::to_string(Line(I)) +
                    ", which it would move above, has side effects";
    // A name the fill moves above must not be one a statement there already
    // uses for something else (a global the local shadows).
    for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty(); ++I) {
      if (Fills.count(I))
        continue;
      for (const DeclRefExpr *Ref : statementsIn<DeclRefExpr>(Top[I]))
        for (const VarDecl *V : Shared)
          if (Ref->getDecl() != V &&
              Ref->getDecl()->getDeclName() == V->getDeclName())
            Refusal = Name(V) + " would shadow the other " + Name(V) +
                      " used at line " + std::to_string(Line(I));
    }
    // What the code after the fill names, in expressions and in types
    // (decltype): a shared value named in a type would change type.
    unsigned long NewShared = 0;
    std::vector<const VarDecl *> Published;
    for (const VarDecl *V : Order) {
      if (!Shared.count(V))
        continue;
      bool Named = false;
      for (unsigned I = 0; I < Top.size(); ++I) {
        if (Fills.count(I))
          continue;
        unsigned InTree = 0, Anywhere = 0;
        std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
          if (!S)
            return;
          if (auto *R = dyn_cast<DeclRefExpr>(S); R && R->getDecl() == V)
            ++InTree;
          for (const Stmt *Child : S->children())
            Count(Child);
        };
        Count(Top[I]);
        for (const DeclRefExpr *R : statementsIn<DeclRefExpr>(Top[I]))
          if (R->getDecl() == V)
            ++Anywhere;
        if (Anywhere > InTree && Refusal.empty())
          Refusal = Name(V) + " is named in a type (decltype) at line " +
                    std::to_string(Line(I));
        Named = Named || Anywhere > 0;
      }
      if (Named || V->getType()->isArrayType()) {
        Published.push_back(V);
        NewShared += bytesOf(Ctx, V->getType());
      }
    }
    if (Refusal.empty())
      for (const Stmt *S : statementsIn<Stmt>(Body))
        if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) || isa<LabelStmt>(S))
          Refusal = "the kernel has `goto`, which may skip the fill or the "
                    "barrier or reach them more than once";
    // The fill may name no type the kernel declares (it may move above it).
    if (Refusal.empty())
      for (unsigned I : Fills) {
        struct LocalTypes : RecursiveASTVisitor<LocalTypes> {
          const FunctionDecl *FD;
          bool Found = false;
          bool inKernel(const Decl *D) const {
            for (const DeclContext *C = D->getDeclContext(); C;
                 C = C->getParent())
              if (C == FD)
                return true;
            return false;
          }
          bool VisitTypedefTypeLoc(TypedefTypeLoc T) {
            Found = Found || inKernel(T.getTypePtr()->getDecl());
            return true;
          }
          bool VisitTagTypeLoc(TagTypeLoc T) {
            Found = Found || inKernel(T.getDecl());
            return true;
          }
          bool VisitDeclRefExpr(DeclRefExpr *R) {
            if (isa<EnumConstantDecl>(R->getDecl()))
              Found = Found || inKernel(R->getDecl());
            return true;
          }
        } Finder;
        Finder.FD = FD;
        Finder.TraverseStmt(const_cast<Stmt *>(Top[I]));
        if (Finder.Found)
          Refusal = "the fill at line " + std::to_string(Line(I)) +
                    " names a type or constant declared in the kernel";
      }
    std::vector<const CUDAKernelCallExpr *> Seen;
    const DeclRefExpr *Elsewhere = nullptr;
    launchesOf(Ctx, FD, Seen, Elsewhere);
    unsigned long Static = Own ? Own->StaticShared : 0;
    // The launches' dynamic shared memory counts against the same budget.
    bool DynamicArray = false;
    for (const DeclStmt *DS : statementsIn<DeclStmt>(Body))
      for (const Decl *Dl : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(Dl))
          if (V->hasAttr<CUDASharedAttr>() &&
              V->getType()->isIncompleteArrayType())
            DynamicArray = true;
    unsigned long Dynamic = 0;
    bool DynamicUnknown = DynamicArray && Seen.empty();
    for (const LaunchInfo &L : TC.Analysis.Launches)
      if (L.Kernel == D.Kernel) {
        if (L.DynamicShared)
          Dynamic = std::max(Dynamic, *L.DynamicShared);
        else
          DynamicUnknown = DynamicArray;
      }
    if (Refusal.empty() && DynamicUnknown)
      Refusal = "the kernel's dynamic shared memory is not known (a launch "
                "sizes it at run time, or none is in this file), so whether "
                "the shared copies fit is not known (shared budget)";
    if (Refusal.empty() && TC.Arch.SharedPerBlock &&
        Static + Dynamic + NewShared > TC.Arch.SharedPerBlock)
      Refusal = "the shared copies need " + std::to_string(NewShared) +
                " bytes per block, and with the kernel's " +
                std::to_string(Static) + " bytes" +
                (Dynamic ? " and its launches' " + std::to_string(Dynamic) +
                               " dynamic bytes"
                         : std::string()) +
                " that exceeds the " + std::to_string(TC.Arch.SharedPerBlock) +
                " bytes of shared memory a block may have on " +
                TC.Arch.smName() + " (shared budget)";
    // Every statement the rewrite touches has its lines to itself.
    const std::string InFile = TC.fileOf(Body->getBeginLoc());
    llvm::StringRef Text = TC.textOf(Body->getBeginLoc());
    std::map<unsigned, std::pair<unsigned, unsigned>> Lines;
    for (unsigned I : Fills) {
      auto L = wholeLines(Ctx, Text, Top[I]);
      if (!L && Refusal.empty())
        Refusal = "the statement at line " + std::to_string(Line(I)) +
                  " shares its line with other code";
      if (L)
        Lines[I] = *L;
    }
    auto AtLines = wholeLines(Ctx, Text, Top[At]);
    if (!AtLines && Refusal.empty())
      Refusal = "the statement at line " + std::to_string(Line(At)) +
                " shares its line with other code";
    if (Refusal.empty())
      for (auto &[I, L] : Lines)
        if (TC.claimed(InFile, L.first, L.second) ||
            llvm::any_of(TC.Applied, [&](const tooling::Replacement &A) {
              return A.getFilePath() == InFile && A.getOffset() < L.second &&
                     L.first < A.getOffset() + std::max(1u, A.getLength());
            }))
          Refusal = "an earlier rewrite edited the statement at line " +
                    std::to_string(Line(I));
    std::string Names;
    for (const VarDecl *V : Published)
      Names += std::string(Names.empty() ? "" : ", ") + Name(V);
    std::string Where =
        Kernel + " (" + Names + ", filled at line" +
        (Fills.size() > 1 ? "s " : " ") + std::to_string(Line(First)) +
        (Fills.size() > 1 ? "-" + std::to_string(Line(*Fills.rbegin())) : "") +
        ")";
    if (!Refusal.empty()) {
      D.Reason = Where + ": not shared: " + Refusal +
                 (Left.empty() ? "" : "; " + Left);
      Report(D.Line, "WW3004");
      continue;
    }

    // 6. The edits.
    std::set<const VarDecl *> Tables;
    for (const VarDecl *V : Shared)
      if (V->getType()->isArrayType())
        Tables.insert(V);
    bool Spread = true;
    std::map<unsigned, SpreadLoop> Loops;
    for (unsigned I : Fills) {
      if (isa<DeclStmt>(Top[I]))
        continue;
      auto *For = dyn_cast<ForStmt>(Top[I]);
      std::optional<SpreadLoop> L =
          For ? spreadable(For, Tables) : std::nullopt;
      if (!L) {
        Spread = false;
        break;
      }
      Loops[I] = *L;
    }
    // One loop per table: two would hand an element to different threads
    // with no barrier between them.
    {
      std::map<const VarDecl *, unsigned> Writers;
      for (auto &[I, L] : Loops)
        for (const VarDecl *W : StmtUses[I].Writes)
          if (Tables.count(W) && ++Writers[W] > 1)
            Spread = false;
    }
    if (!Spread)
      Loops.clear();
    for (const VarDecl *V : Shared)
      if (!V->getType()->isArrayType() && Cands[V].Fills.size() > 1)
        Spread = false; // A scalar accumulated: one thread computes it.
    // The 1-D form only where every launch is in view: a kernel other
    // files can launch, or launched through its address, may run with any
    // block shape.
    bool OneDim = false;
    if (!Elsewhere && !FD->isExternallyVisible())
      for (const LaunchInfo &L : TC.Analysis.Launches)
        if (L.Kernel == D.Kernel) {
          std::vector<std::array<unsigned, 3>> Dims = L.knownBlockDims();
          OneDim = !Dims.empty();
          for (auto &Dm : Dims)
            OneDim = OneDim && Dm[1] == 1 && Dm[2] == 1;
          if (!OneDim)
            break;
        }
    std::string Tid = OneDim ? "threadIdx.x"
                             : "(threadIdx.z * blockDim.y + threadIdx.y) * "
                               "blockDim.x + threadIdx.x";
    std::string Threads =
        OneDim ? "blockDim.x" : "blockDim.x * blockDim.y * blockDim.z";
    std::string Leader =
        OneDim ? "threadIdx.x == 0"
               : "threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0";
    std::map<const VarDecl *, std::string> SharedName;
    for (const VarDecl *V : Published) {
      std::string N = "ww_shared_" + V->getNameAsString();
      std::string Unique = N;
      for (unsigned K = 2; Text.contains(Unique); ++K)
        Unique = N + "_" + std::to_string(K);
      SharedName[V] = Unique;
    }
    SourceLocation AtLoc =
        SM.getExpansionRange(Top[At]->getBeginLoc()).getBegin();
    std::string In(SM.getExpansionColumnNumber(AtLoc) - 1, ' ');
    std::string In2 = In + "  ", In3 = In + "    ";
    std::string Block = In + DecisionMark + "\n";
    for (const VarDecl *V : Published)
      Block += In + "__shared__ " +
               declare(Ctx, V->getType(), SharedName[V], false) + ";\n";
    std::string FillText;
    std::string Inner = Spread ? In2 : In3;
    for (unsigned I : Fills) {
      std::string S;
      if (auto *DS = dyn_cast<DeclStmt>(Top[I])) {
        const VarDecl *V = dyn_cast<VarDecl>(DS->getSingleDecl());
        if (DS->isSingleDecl() && V && V->getType()->isArrayType())
          S = declare(Ctx, V->getType(), V->getNameAsString(), true) + " = " +
              SharedName[V] + ";";
      }
      if (S.empty() && Loops.count(I)) {
        auto *For = cast<ForStmt>(Top[I]);
        const SpreadLoop &L = Loops[I];
        std::string K = L.Index->getNameAsString();
        std::string Start = textOf(Ctx, L.Start->getSourceRange());
        S = "for (" + L.Index->getType().getAsString(Ctx.getPrintingPolicy()) +
            " " + K + " = " + (Start == "0" ? "" : "(" + Start + ") + ") + Tid +
            "; " + textOf(Ctx, For->getCond()->getSourceRange()) + "; " + K +
            " += " + Threads + ")\n" + Inner + "  " +
            stmtText(Ctx, Text, For->getBody());
      }
      if (S.empty())
        S = stmtText(Ctx, Text, Top[I]);
      FillText += Inner + S + "\n";
    }
    std::string Publish;
    for (const VarDecl *V : Published)
      if (!V->getType()->isArrayType())
        Publish += In3 + SharedName[V] + " = " + V->getNameAsString() + ";\n";
    if (Spread) {
      Block += In + "{\n" + FillText;
      if (!Publish.empty())
        Block += In2 + "if (" + Leader + ") {\n" + Publish + In2 + "}\n";
      Block += In + "}\n";
    } else {
      Block += In + "if (" + Leader + ") {\n" + FillText + Publish + In + "}\n";
    }
    Block += In + "__syncthreads();\n";
    for (const VarDecl *V : Published)
      Block += In + declare(Ctx, V->getType(), V->getNameAsString(), true) +
               " = " + SharedName[V] + ";\n";

    ShareCandidate C;
    C.FD = FD;
    C.Line = D.Line;
    C.Where = Where;
    C.NewShared = NewShared;
    C.Left = Left;
    C.Proof = std::string("block-uniform (divergence analysis), computed from "
                          "kernel parameters, blockIdx/blockDim/gridDim and "
                          "constants") +
              (Loads ? " and uniform loads" : "") + ", written nowhere else" +
              (At < First ? "; the fill moves above the return at line " +
                                std::to_string(ExitLine) +
                                " (it neither loads nor stores memory)"
                          : "") +
              "; " +
              (Spread ? "filled by the block's threads together"
                      : "filled by one thread") +
              ", published by one barrier that every thread reaches; " +
              std::to_string(NewShared) + " bytes of shared memory per block";
    // The block goes before the statement at At; fill statements leave.
    unsigned AtStart = AtLines->first;
    bool Merged = false;
    for (auto &[I, L] : Lines) {
      if (L.first == AtStart) {
        C.Edits.emplace_back(InFile, L.first, L.second - L.first, Block);
        Merged = true;
      } else {
        C.Edits.emplace_back(InFile, L.first, L.second - L.first, "");
      }
    }
    if (!Merged)
      C.Edits.emplace_back(InFile, AtStart, 0, Block);
    std::sort(C.Edits.begin(), C.Edits.end(),
              [](const tooling::Replacement &A, const tooling::Replacement &B) {
                return A.getOffset() < B.getOffset();
              });
    D = planShare(TC, C, name());
    D.File = TC.decisionFileOf(FD->getLocation());
    if (D.Applied) {
      TC.takeDecisionId(D, "WW4004", Text);
      std::string What = "the block-uniform " + Names +
                         (Published.size() > 1 ? " are" : " is") +
                         " computed once per block into shared memory "
                         "(internal variable sharing)";
      for (tooling::Replacement &R : C.Edits) {
        std::string T = R.getReplacementText().str();
        if (fillDecisionMark(T, TC.decisionComment(D, What)))
          R = tooling::Replacement(R.getFilePath(), R.getOffset(),
                                   R.getLength(), T);
      }
      Changes.push_back({"variable sharing in `" + D.Kernel + "`", C.Edits});
      TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
      TC.Claimed.push_back({InFile, AtStart, Lines.rbegin()->second.second});
    }
    Report(D.Line, D.Applied ? "WW4004" : "WW3004");
  }
}

} // namespace warpwise
