//===- WorkRefill.cpp - Warp-level work refill for data-dependent loops ---===//
//
// Legality. The refill kernel works on the same items as the original (the
// original launch's thread indices, each once), each with the same code, but
// on other threads and in another order. That is the same program when no
// item's work can see another's or which thread does it:
//  - the item is `blockIdx.x * blockDim.x + threadIdx.x`, never written, and
//    no other code reads threadIdx, blockIdx, blockDim or gridDim (callees
//    included); the runtime runs the refill kernel only for 1-D launches;
//  - no barrier, no shared memory, no warp intrinsic, atomic or fence, no
//    inline assembly, goto or indirect call, no callee without a body
//    (outside the toolkit's headers), no callee that writes memory other
//    than the caller's locals, no store to a global variable;
//  - every store to memory is `p[i]` (or a member of it) with p a pointer
//    parameter never reassigned and i the item (or a copy of it): the
//    item's own element; where the kernel stores through p, every access
//    through p is at the item's element, and every other pointer it
//    accesses cannot point into p (`__restrict__`, or distinct allocations
//    at every launch in the file);
//  - the range check is `i < n` (or `if (i >= n) return;`) with n the same
//    for every item, so the items past the first that fails it fail it too;
//  - the code before the item is side-effect-free declarations, run once per
//    thread as before; the prologue's declarations are hoisted, so they must
//    be plain variables with unique names.
// Floating point: the per-item code is unchanged; nvcc's contraction is
// compared before and after (ContractionCheck.cpp) and a difference declines.
//
//===----------------------------------------------------------------------===//
#include "WorkRefill.h"

#include "../analysis/MemoryAccess.h"
#include "../plan/RefillPlanner.h"
#include "Candidates.h"
#include "RefillShape.h"
#include "SideEffects.h"
#include "SourceText.h"
#include "SplitCandidate.h"
#include "SplitText.h"

#include "warpwise/AstQueries.h"
#include "warpwise/Embedded.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

/// Through parentheses, implicit casts and explicit integer casts.
const Expr *stripCasts(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    auto *C = dyn_cast<ExplicitCastExpr>(E);
    if (!C || !C->getType()->isIntegerType())
      return E;
    E = C->getSubExpr();
  }
  return E;
}

bool isBuiltin(const Expr *E, llvm::StringRef Obj, llvm::StringRef Comp) {
  std::string O, C;
  return E && builtinVariable(stripCasts(E), O, C) && O == Obj && C == Comp;
}

/// `blockIdx.x * blockDim.x + threadIdx.x`, operands in any order.
bool isGlobalIndex(const Expr *E) {
  auto *Add = dyn_cast_or_null<BinaryOperator>(stripCasts(E));
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  auto Product = [](const Expr *P) {
    auto *M = dyn_cast<BinaryOperator>(stripCasts(P));
    return M && M->getOpcode() == BO_Mul &&
           ((isBuiltin(M->getLHS(), "blockIdx", "x") &&
             isBuiltin(M->getRHS(), "blockDim", "x")) ||
            (isBuiltin(M->getLHS(), "blockDim", "x") &&
             isBuiltin(M->getRHS(), "blockIdx", "x")));
  };
  return (Product(Add->getLHS()) &&
          isBuiltin(Add->getRHS(), "threadIdx", "x")) ||
         (Product(Add->getRHS()) && isBuiltin(Add->getLHS(), "threadIdx", "x"));
}

/// `n` of `Item < n` / `n > Item` (\p OutOfRange false), or of
/// `Item >= n` / `n <= Item` (true); `!(...)` flips.
const Expr *rangeBound(const Expr *Cond, const VarDecl *Item,
                       bool OutOfRange) {
  Cond = Cond->IgnoreParenImpCasts();
  if (auto *U = dyn_cast<UnaryOperator>(Cond))
    return U->getOpcode() == UO_LNot
               ? rangeBound(U->getSubExpr(), Item, !OutOfRange)
               : nullptr;
  auto *B = dyn_cast<BinaryOperator>(Cond);
  if (!B)
    return nullptr;
  auto IsItem = [&](const Expr *E) {
    return referencedVar(stripCasts(E)) == Item;
  };
  BinaryOperatorKind Low = OutOfRange ? BO_GE : BO_LT,
                     High = OutOfRange ? BO_LE : BO_GT;
  if (B->getOpcode() == Low && IsItem(B->getLHS()))
    return B->getRHS();
  if (B->getOpcode() == High && IsItem(B->getRHS()))
    return B->getLHS();
  return nullptr;
}

bool isLoop(const Stmt *S) {
  return isa<WhileStmt>(S) || isa<ForStmt>(S) || isa<DoStmt>(S);
}

const Stmt *loopBody(const Stmt *L) {
  if (auto *W = dyn_cast<WhileStmt>(L))
    return W->getBody();
  if (auto *F = dyn_cast<ForStmt>(L))
    return F->getBody();
  return cast<DoStmt>(L)->getBody();
}

/// Whether \p S holds a break or continue of the loop around it (not of a
/// loop or switch inside it).
bool jumpsOut(const Stmt *S, bool InSwitch = false) {
  if (!S)
    return false;
  if (isa<ContinueStmt>(S))
    return true;
  if (isa<BreakStmt>(S))
    return !InSwitch;
  if (isLoop(S))
    return false;
  bool Switch = InSwitch || isa<SwitchStmt>(S);
  for (const Stmt *C : S->children())
    if (jumpsOut(C, Switch))
      return true;
  return false;
}

/// Calls whose result or effect depends on other threads or orders them.
bool isOrderedCall(llvm::StringRef N) {
  return N.starts_with("__sync") || N.starts_with("__shfl") ||
         N.starts_with("__ballot") || N.starts_with("__any") ||
         N.starts_with("__all") || N.starts_with("__activemask") ||
         N.starts_with("__match") || N.starts_with("__reduce") ||
         N.starts_with("__threadfence") || N.starts_with("atomic") ||
         N.starts_with("__nanosleep") || N.starts_with("__lane") ||
         N == "__barrier_sync" || N.starts_with("__prof_trigger");
}

/// The checks of one kernel; each returns why it refuses, or "".
class Legality {
public:
  Legality(const TransformContext &TC, RefillShape &S, const AliasFacts &Facts)
      : TC(TC), S(S), Facts(Facts), SM(TC.Ctx.getSourceManager()) {
    Written = writtenVariables(S.Body);
  }
  std::string check();
  std::set<const VarDecl *> WrittenBases;

private:
  std::string line(const Stmt *St) const {
    return "line " + std::to_string(SM.getExpansionLineNumber(St->getBeginLoc()));
  }
  std::string text(const Stmt *St) const {
    return sourceText(TC.Ctx, St->getSourceRange());
  }
  std::string code(const Stmt *St, bool InCallee,
                   std::set<const FunctionDecl *> &Seen);
  std::string call(const CallExpr *C, std::set<const FunctionDecl *> &Seen);
  std::string stores();
  std::string store(const Expr *Target, const Stmt *At);
  std::string accesses();
  std::string hoistable();
  bool isItemIndex(const Expr *E, unsigned Depth = 0) const;
  bool uniformBound(const Expr *E) const;

  const TransformContext &TC;
  RefillShape &S;
  const AliasFacts &Facts;
  const SourceManager &SM;
  std::set<const VarDecl *> Written;
};

/// The item itself, or a local copy of it never written.
bool Legality::isItemIndex(const Expr *E, unsigned Depth) const {
  const VarDecl *V = referencedVar(stripCasts(E));
  if (!V || Depth > 8)
    return false;
  if (V == S.Item)
    return true;
  return V->isLocalVarDecl() && !Written.count(V) && V->getInit() &&
         !V->getType()->isReferenceType() &&
         isItemIndex(V->getInit(), Depth + 1);
}

/// The same for every item: no effects, and only parameters, constants and
/// the declarations before the item, none of them written.
bool Legality::uniformBound(const Expr *E) const {
  if (!E || hasEffects(E))
    return false;
  std::set<const VarDecl *> PreVars;
  for (const Stmt *St : S.Pre)
    if (auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          PreVars.insert(V);
  std::function<bool(const Stmt *)> Walk = [&](const Stmt *N) {
    if (!N)
      return true;
    // A load could read what an item writes.
    if (isa<ArraySubscriptExpr>(N) || isa<CallExpr>(N) ||
        (isa<UnaryOperator>(N) &&
         cast<UnaryOperator>(N)->getOpcode() == UO_Deref) ||
        (isa<MemberExpr>(N) && cast<MemberExpr>(N)->isArrow()))
      return false;
    if (auto *DRE = dyn_cast<DeclRefExpr>(N))
      if (auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
        if (Written.count(V) || V->hasGlobalStorage())
          return false;
        if (V->isLocalVarDecl() && !PreVars.count(V))
          return false;
      }
    std::string O, C;
    if (auto *X = dyn_cast<Expr>(N))
      if (builtinVariable(X->IgnoreParens(), O, C))
        return false;
    for (const Stmt *Ch : N->children())
      if (!Walk(Ch))
        return false;
    return true;
  };
  return Walk(E);
}

/// What a call may do: ordered or opaque calls refuse; a callee's body is
/// checked as the kernel's is.
std::string Legality::call(const CallExpr *C,
                           std::set<const FunctionDecl *> &Seen) {
  const FunctionDecl *Callee = C->getDirectCallee();
  if (!Callee)
    return "it makes an indirect call at " + line(C);
  std::string Name = Callee->getNameAsString();
  if (isOrderedCall(Name))
    return "it calls `" + Name + "` (" + line(C) +
           "), whose effect depends on other threads";
  const FunctionDecl *Def = nullptr;
  bool System = SM.isInSystemHeader(Callee->getLocation()) ||
                Callee->getBuiltinID();
  if (!Callee->hasBody(Def) && !System)
    return "it calls `" + Name + "`, whose body warpwise cannot see";
  const CallSummary &Sum = summarizeFunction(Callee);
  if (!System && (Sum.Unknown || !Sum.GlobalWrites.empty()))
    return "it calls `" + Name + "`, which may write memory (" +
           (Sum.UnknownWhy.empty() ? std::string("a global variable")
                                   : Sum.UnknownWhy) +
           ")";
  // Writes through arguments: only to the caller's own variables.
  for (unsigned I = 0; I < C->getNumArgs() && I < Sum.WritesParam.size(); ++I) {
    if (!Sum.WritesParam[I])
      continue;
    auto *U = dyn_cast<UnaryOperator>(C->getArg(I)->IgnoreParenImpCasts());
    const VarDecl *V = U && U->getOpcode() == UO_AddrOf
                           ? referencedVar(U->getSubExpr())
                           : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return "it passes `" + text(C->getArg(I)) + "` to `" + Name +
             "`, which writes through it (" + line(C) + ")";
  }
  if (Def && Seen.insert(Def).second)
    return code(Def->getBody(), true, Seen);
  return "";
}

/// Barriers, shared memory, thread indices, jumps and calls in \p St.
std::string Legality::code(const Stmt *St, bool InCallee,
                           std::set<const FunctionDecl *> &Seen) {
  if (!St)
    return "";
  if (St == S.ItemDecl)
    return ""; // The one place that names the thread.
  if (isa<AsmStmt>(St))
    return "it holds inline assembly (" + line(St) + ")";
  if (isa<GotoStmt>(St) || isa<IndirectGotoStmt>(St))
    return "it holds a goto (" + line(St) + ")";
  if (isa<CXXNewExpr>(St) || isa<CXXDeleteExpr>(St))
    return "it allocates memory (" + line(St) + ")";
  if (isa<ReturnStmt>(St) && !InCallee &&
      !(S.GuardReturns && S.Guard && pathTo(S.Guard, St).size() > 0))
    return "it returns at " + line(St) + ", other than the range check";
  if (auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        if (V->hasAttr<CUDASharedAttr>())
          return "it declares the `__shared__` `" + V->getNameAsString() +
                 "`";
  if (auto *DRE = dyn_cast<DeclRefExpr>(St))
    if (auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (V->hasAttr<CUDASharedAttr>())
        return "it uses the `__shared__` `" + V->getNameAsString() + "`";
  std::string O, C;
  if (auto *E = dyn_cast<Expr>(St))
    if (builtinVariable(E->IgnoreParens(), O, C)) {
      if (O == "threadIdx" || O == "blockIdx" || O == "blockDim" ||
          O == "gridDim")
        return "it reads `" + O + "." + C + "` at " + line(St) +
               (InCallee ? " (in a callee)" : "") +
               ", other than to form the item, and the refill runs the "
               "items on other threads and a smaller grid";
      return "";
    }
  if (auto *Call = dyn_cast<CallExpr>(St))
    if (!isa<CXXOperatorCallExpr>(Call) || Call->getDirectCallee()) {
      std::string Why = call(Call, Seen);
      if (!Why.empty())
        return Why;
    }
  for (const Stmt *Ch : St->children()) {
    std::string Why = code(Ch, InCallee, Seen);
    if (!Why.empty())
      return Why;
  }
  return "";
}

/// A store to \p Target: a local variable, or the item's element of a
/// pointer parameter.
std::string Legality::store(const Expr *Target, const Stmt *At) {
  const Expr *T = Target->IgnoreParens();
  while (auto *M = dyn_cast<MemberExpr>(T)) {
    if (M->isArrow())
      break;
    T = M->getBase()->IgnoreParens();
  }
  if (auto *DRE = dyn_cast<DeclRefExpr>(T)) {
    auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (V && V->hasLocalStorage() && !V->getType()->isReferenceType())
      return "";
    return "it writes `" + text(T) + "` (" + line(At) +
           "), which is not a local variable";
  }
  if (auto *A = dyn_cast<ArraySubscriptExpr>(T)) {
    const VarDecl *Base = referencedVar(A->getBase());
    if (Base && Base->hasLocalStorage() && !isa<ParmVarDecl>(Base) &&
        Base->getType()->isArrayType())
      return ""; // A local array.
    if (Base && isa<ParmVarDecl>(Base) && Base->getType()->isPointerType() &&
        !Written.count(Base) && isItemIndex(A->getIdx())) {
      WrittenBases.insert(Base);
      return "";
    }
  }
  return "it stores to `" + text(Target) + "` (" + line(At) +
         "), not to the item's own element of a pointer parameter";
}

std::string Legality::stores() {
  std::function<std::string(const Stmt *)> Walk =
      [&](const Stmt *N) -> std::string {
    if (!N)
      return "";
    const Expr *Target = nullptr;
    if (auto *B = dyn_cast<BinaryOperator>(N); B && B->isAssignmentOp())
      Target = B->getLHS();
    else if (auto *U = dyn_cast<UnaryOperator>(N);
             U && U->isIncrementDecrementOp())
      Target = U->getSubExpr();
    else if (auto *Op = dyn_cast<CXXOperatorCallExpr>(N);
             Op && Op->isAssignmentOp() && Op->getNumArgs() > 0)
      Target = Op->getArg(0);
    if (Target) {
      std::string Why = store(Target, N);
      if (!Why.empty())
        return Why;
    }
    for (const Stmt *C : N->children()) {
      std::string Why = Walk(C);
      if (!Why.empty())
        return Why;
    }
    return "";
  };
  return Walk(S.Body);
}

/// With the stores known: every access through a written pointer is at the
/// item's element, and nothing else may point into one.
std::string Legality::accesses() {
  if (WrittenBases.empty())
    return "";
  std::function<std::string(const Stmt *)> Walk =
      [&](const Stmt *N) -> std::string {
    if (!N)
      return "";
    const Expr *Access = nullptr, *Index = nullptr;
    if (auto *A = dyn_cast<ArraySubscriptExpr>(N)) {
      Access = A;
      Index = A->getIdx();
    } else if (auto *U = dyn_cast<UnaryOperator>(N);
               U && U->getOpcode() == UO_Deref) {
      Access = U;
    } else if (auto *M = dyn_cast<MemberExpr>(N); M && M->isArrow()) {
      Access = M;
    } else if (auto *C = dyn_cast<CallExpr>(N)) {
      for (const Expr *Arg : C->arguments())
        if (Arg->getType()->isPointerType())
          if (const VarDecl *V = referencedVar(Arg))
            for (const VarDecl *W : WrittenBases)
              if (V == W || mayAlias(V, W, &Facts))
                return "it passes `" + V->getNameAsString() + "` to `" +
                       calleeName(C) + "` (" + line(C) + "), and writes `" +
                       W->getNameAsString() + "`";
    }
    if (Access) {
      const VarDecl *Base = accessBase(Access);
      bool LocalArray = Base && Base->hasLocalStorage() &&
                        !isa<ParmVarDecl>(Base) &&
                        Base->getType()->isArrayType();
      if (!Base && !LocalArray)
        return "it accesses `" + text(Access) + "` (" + line(Access) +
               "), whose pointer warpwise cannot name, and writes memory";
      for (const VarDecl *W : LocalArray ? std::set<const VarDecl *>()
                                         : WrittenBases) {
        if (Base == W) {
          if (!Index || !isItemIndex(Index))
            return "it accesses `" + text(Access) + "` (" + line(Access) +
                   "), another item's element of the `" +
                   W->getNameAsString() + "` it writes";
        } else if (mayAlias(Base, W, &Facts)) {
          return "`" + Base->getNameAsString() + "` may point into `" +
                 W->getNameAsString() +
                 "`, which it writes (`__restrict__`, or distinct cudaMalloc "
                 "buffers at every launch in this file, would rule it out)";
        }
      }
    }
    for (const Stmt *C : N->children()) {
      std::string Why = Walk(C);
      if (!Why.empty())
        return Why;
    }
    return "";
  };
  return Walk(S.Body);
}

/// The prologue's declarations (and the for loop's) become variables of
/// the kernel's scope.
std::string Legality::hoistable() {
  std::set<std::string> Names;
  for (const ParmVarDecl *P : S.FD->parameters())
    Names.insert(P->getNameAsString());
  Names.insert(S.Item->getNameAsString());
  for (const Stmt *St : S.Pre)
    if (auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          Names.insert(V->getNameAsString());
  std::vector<const Stmt *> Hoisted = S.Prologue;
  if (auto *F = dyn_cast<ForStmt>(S.Loop))
    if (F->getInit())
      Hoisted.push_back(F->getInit());
  for (const Stmt *St : Hoisted) {
    auto *DS = dyn_cast<DeclStmt>(St);
    if (!DS)
      continue;
    for (const Decl *D : DS->decls()) {
      auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        return "the prologue declares something other than variables (" +
               line(St) + ")";
      std::string N = V->getNameAsString();
      QualType T = V->getType();
      if (V->isStaticLocal() || T->isReferenceType() || T->isArrayType() ||
          !T.isTrivialType(TC.Ctx) || T.isVolatileQualified())
        return "`" + N + "` (" + line(St) +
               ") is not a plain variable that can be declared once per "
               "thread and assigned per item";
      if (V->getInit() && V->getInitStyle() != VarDecl::CInit)
        return "`" + N + "` (" + line(St) +
               ") is initialised with braces or parentheses";
      if (V->getInit() && isa<InitListExpr>(V->getInit()->IgnoreImplicit()))
        return "`" + N + "` (" + line(St) + ") is initialised with a list";
      if (!Names.insert(N).second)
        return "the prologue's `" + N + "` (" + line(St) +
               ") shares its name with another variable of the kernel's "
               "scope once hoisted";
    }
  }
  return "";
}

std::string Legality::check() {
  const FunctionDecl *FD = S.FD;
  if (FD->getNumParams() == 0)
    return "the kernel has no parameters";
  QualType IT = S.Item->getType();
  if (!IT->isIntegerType() || IT->isBooleanType() ||
      TC.Ctx.getTypeSize(IT) < 32 || IT->isReferenceType())
    return "the item `" + S.Item->getNameAsString() +
           "` is not an integer of 32 bits or more";
  if (Written.count(S.Item))
    return "the item `" + S.Item->getNameAsString() +
           "` is written or its address is taken";
  if (S.Guard && !uniformBound(S.Bound))
    return "the range check's bound `" + text(S.Bound) +
           "` may differ between items (it must be built from parameters, "
           "constants and the declarations before the item, without loads "
           "or calls)";
  for (const Stmt *St : S.Pre) {
    if (!isa<DeclStmt>(St) || hasEffects(St))
      return "the code before the item (" + line(St) +
             ") is not side-effect-free declarations";
  }
  // A thread carries these from one item to the next: each item must
  // start from the values the original's thread started with.
  std::set<const VarDecl *> PerThread;
  for (const Stmt *St : S.Pre)
    if (auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          PerThread.insert(V);
  for (const VarDecl *V : Written)
    if (isa<ParmVarDecl>(V) || PerThread.count(V))
      return "it writes `" + V->getNameAsString() + "`, " +
             (isa<ParmVarDecl>(V) ? "a parameter" : "declared before the item") +
             ", which a thread would carry from one item to the next";
  for (const VarDecl *V : Written)
    if (llvm::StringRef(V->getName()).starts_with("ww_"))
      return "it names a variable `" + V->getNameAsString() +
             "`, and warpwise's code uses names starting with `ww_`";
  if (auto *W = dyn_cast<WhileStmt>(S.Loop); W && W->getConditionVariable())
    return "the loop's condition declares a variable";
  if (auto *F = dyn_cast<ForStmt>(S.Loop); F && F->getConditionVariable())
    return "the loop's condition declares a variable";
  std::set<const FunctionDecl *> Seen;
  std::string Why = code(S.Body, false, Seen);
  if (Why.empty())
    Why = stores();
  if (Why.empty())
    Why = accesses();
  if (Why.empty())
    Why = hoistable();
  return Why;
}

/// The loop's verdict from the divergence analysis.
const LoopInfo *verdictOf(const TransformContext &TC, const FunctionDecl *FD,
                          const Stmt *Loop) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  unsigned Line = SM.getExpansionLineNumber(Loop->getBeginLoc()),
           Col = SM.getExpansionColumnNumber(Loop->getBeginLoc());
  for (const KernelInfo &K : TC.Analysis.Kernels)
    if (K.Name == FD->getNameAsString())
      for (const LoopInfo &L : K.Loops)
        if (L.Line == Line && L.Column == Col)
          return &L;
  return nullptr;
}

/// The kernel's item loop: the item's declaration, the range check and the
/// first top-level loop of the item's code that the divergence analysis
/// finds divergent. None when the kernel has no such shape.
std::optional<RefillShape> findShape(const TransformContext &TC,
                                     const FunctionDecl *FD) {
  RefillShape S;
  S.FD = FD;
  S.Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
  if (!S.Body)
    return std::nullopt;
  std::vector<const Stmt *> Between, PerItem;
  bool InItem = false;
  for (const Stmt *St : S.Body->body()) {
    if (InItem) {
      PerItem.push_back(St);
      continue;
    }
    if (!S.Item) {
      auto *DS = dyn_cast<DeclStmt>(St);
      auto *V = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                         : nullptr;
      if (V && V->getInit() && isGlobalIndex(V->getInit())) {
        S.ItemDecl = DS;
        S.Item = V;
      } else {
        S.Pre.push_back(St);
      }
      continue;
    }
    auto *If = dyn_cast<IfStmt>(St);
    if (If && !If->getElse() && !If->getInit() &&
        !If->getConditionVariable()) {
      const Stmt *Then = If->getThen();
      if (auto *CS = dyn_cast<CompoundStmt>(Then); CS && CS->size() == 1)
        Then = CS->body_front();
      if (isa<ReturnStmt>(Then)) {
        if (const Expr *B = rangeBound(If->getCond(), S.Item, true)) {
          S.Guard = If;
          S.GuardReturns = true;
          S.Bound = B;
          InItem = true;
          continue;
        }
      } else if (const Expr *B = rangeBound(If->getCond(), S.Item, false)) {
        if (St != S.Body->body_back())
          return std::nullopt; // Code after the item's: not this shape.
        S.Guard = If;
        S.Bound = B;
        if (auto *CS = dyn_cast<CompoundStmt>(If->getThen()))
          PerItem.assign(CS->body_begin(), CS->body_end());
        else
          PerItem.push_back(If->getThen());
        break;
      }
    }
    Between.push_back(St);
  }
  if (!S.Item)
    return std::nullopt;
  if (!S.Guard) {
    // No range check: every statement after the item is the item's.
    PerItem.insert(PerItem.begin(), Between.begin(), Between.end());
    Between.clear();
  }
  // Declarations between the item and its check that use the item run per
  // item (they have no effects: Legality checks); the others once.
  std::set<const VarDecl *> ItemVars = {S.Item};
  std::vector<const Stmt *> Head;
  for (const Stmt *St : Between) {
    bool Uses = false;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *N) {
      if (!N)
        return;
      if (auto *DRE = dyn_cast<DeclRefExpr>(N))
        if (auto *V = dyn_cast<VarDecl>(DRE->getDecl()); V && ItemVars.count(V))
          Uses = true;
      for (const Stmt *C : N->children())
        Walk(C);
    };
    Walk(St);
    if (!Uses) {
      S.Pre.push_back(St);
      continue;
    }
    Head.push_back(St);
    if (auto *DS = dyn_cast<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          ItemVars.insert(V);
  }
  for (size_t I = 0; I < PerItem.size(); ++I) {
    if (!isLoop(PerItem[I]))
      continue;
    const LoopInfo *L = verdictOf(TC, FD, PerItem[I]);
    if (!L || L->Level != Uniformity::Divergent)
      continue;
    S.Loop = PerItem[I];
    S.Verdict = L;
    S.Prologue = Head;
    S.Prologue.insert(S.Prologue.end(), PerItem.begin(), PerItem.begin() + I);
    S.Epilogue.assign(PerItem.begin() + I + 1, PerItem.end());
    return S;
  }
  return std::nullopt;
}

/// Why the loop's trip count is data-dependent: its exit reads memory, or
/// a variable the loop updates other than by a constant step; "" when it
/// follows the item index alone.
std::string dataDependence(const TransformContext &TC, const RefillShape &S) {
  std::set<const VarDecl *> Seen;
  std::vector<const Expr *> Work;
  auto *F = dyn_cast<ForStmt>(S.Loop);
  if (auto *W = dyn_cast<WhileStmt>(S.Loop))
    Work.push_back(W->getCond());
  else if (F && F->getCond())
    Work.push_back(F->getCond());
  else if (auto *D = dyn_cast<DoStmt>(S.Loop))
    Work.push_back(D->getCond());
  // Conditions of breaks inside the body.
  for (const IfStmt *If : statementsIn<IfStmt>(loopBody(S.Loop)))
    if (jumpsOut(If->getThen()) || jumpsOut(If->getElse()))
      Work.push_back(If->getCond());
  std::set<const VarDecl *> InLoop = writtenVariables(loopBody(S.Loop));
  if (F && F->getInc())
    for (const VarDecl *V : writtenVariables(F->getInc()))
      InLoop.insert(V);
  std::string Why;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *N) {
    if (!N || !Why.empty())
      return;
    if (isa<ArraySubscriptExpr>(N) ||
        (isa<UnaryOperator>(N) &&
         cast<UnaryOperator>(N)->getOpcode() == UO_Deref) ||
        (isa<MemberExpr>(N) && cast<MemberExpr>(N)->isArrow())) {
      Why = "its exit depends on the load `" +
            sourceText(TC.Ctx, N->getSourceRange()) + "`";
      return;
    }
    if (auto *DRE = dyn_cast<DeclRefExpr>(N))
      if (auto *V = dyn_cast<VarDecl>(DRE->getDecl());
          V && V->hasLocalStorage() && Seen.insert(V).second) {
        if (V->getType()->isRealFloatingType() && InLoop.count(V)) {
          Why = "its exit depends on `" + V->getNameAsString() +
                "`, a floating-point value the loop computes";
          return;
        }
        if (V->getInit())
          Walk(V->getInit());
        // Every assignment to it in the kernel.
        for (const BinaryOperator *B : statementsIn<BinaryOperator>(S.Body))
          if (B->isAssignmentOp() && referencedVar(B->getLHS()) == V) {
            bool Step = B->getOpcode() == BO_AddAssign ||
                        B->getOpcode() == BO_SubAssign;
            if (InLoop.count(V) && !Step && B->getOpcode() != BO_Assign) {
              Why = "its exit depends on `" + V->getNameAsString() +
                    "`, which the loop updates by `" +
                    sourceText(TC.Ctx, B->getSourceRange()) + "`";
              return;
            }
            if (InLoop.count(V) && B->getOpcode() == BO_Assign) {
              std::set<const VarDecl *> Self = {V};
              bool Recurrence = false;
              for (const DeclRefExpr *R :
                   statementsIn<DeclRefExpr>(B->getRHS()))
                Recurrence |= R->getDecl() == V;
              if (Recurrence) {
                Why = "its exit depends on `" + V->getNameAsString() +
                      "`, which the loop updates by `" +
                      sourceText(TC.Ctx, B->getSourceRange()) + "`";
                return;
              }
            }
            Walk(B->getRHS());
          }
      }
    for (const Stmt *C : N->children())
      Walk(C);
  };
  for (const Expr *E : Work)
    Walk(E);
  return Why;
}

/// Where the loop's body does nothing but step, by constants, what its
/// condition tests (`while (v[x] > 0) v[x]--;`): its trip count is known
/// before it runs, and nvcc runs it unrolled or in closed form, far cheaper
/// per iteration than the refill's chunks. Says what is stepped, or "".
std::string stepsOnly(const TransformContext &TC, const RefillShape &S) {
  const Expr *Cond = nullptr;
  if (auto *W = dyn_cast<WhileStmt>(S.Loop))
    Cond = W->getCond();
  else if (auto *F = dyn_cast<ForStmt>(S.Loop))
    Cond = F->getCond();
  else
    Cond = cast<DoStmt>(S.Loop)->getCond();
  if (!Cond)
    return "";
  std::string CondText = sourceText(TC.Ctx, Cond->getSourceRange());
  const Stmt *Body = loopBody(S.Loop);
  std::vector<const Stmt *> Stmts;
  if (auto *CS = dyn_cast<CompoundStmt>(Body))
    Stmts.assign(CS->body_begin(), CS->body_end());
  else
    Stmts.push_back(Body);
  std::string Stepped;
  for (const Stmt *St : Stmts) {
    const Expr *Target = nullptr;
    if (auto *U = dyn_cast<UnaryOperator>(St); U && U->isIncrementDecrementOp())
      Target = U->getSubExpr();
    else if (auto *B = dyn_cast<CompoundAssignOperator>(St);
             B && (B->getOpcode() == BO_AddAssign ||
                   B->getOpcode() == BO_SubAssign) &&
             isa<IntegerLiteral>(B->getRHS()->IgnoreParenImpCasts()))
      Target = B->getLHS();
    if (!Target)
      return "";
    std::string T = sourceText(TC.Ctx, Target->getSourceRange());
    if (T.empty() || CondText.find(T) == std::string::npos)
      return "";
    Stepped = T;
  }
  return Stepped;
}

/// One run of the refill over a file.
class RefillRun {
public:
  RefillRun(TransformContext &TC, std::vector<Decision> &Decisions,
            std::vector<Change> &Changes, const char *Name)
      : TC(TC), Decisions(Decisions), Changes(Changes), Name(Name),
        Facts(collectAliasFacts(TC.Ctx)) {}
  void kernel(const FunctionDecl *FD);

private:
  void report(Decision &D, SourceLocation Loc, const char *Code);
  bool defines(const std::string &Function) const;
  std::string launches(RefillShape &S, std::vector<LaunchSite> &Sites);

  TransformContext &TC;
  std::vector<Decision> &Decisions;
  std::vector<Change> &Changes;
  const char *Name;
  AliasFacts Facts;
  /// Where an applied refill of this run wrote the runtime's include (-1:
  /// none yet): a later kernel below it sees it, one above it gets its own.
  unsigned RuntimeAddedAt = -1u;
};

bool RefillRun::defines(const std::string &Function) const {
  for (const Decl *D : TC.Ctx.getTranslationUnitDecl()->decls())
    if (auto *F = dyn_cast<FunctionDecl>(D))
      if (F->getIdentifier() && F->getName() == Function)
        return true;
  return false;
}

void RefillRun::report(Decision &D, SourceLocation Loc, const char *Code) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  TC.Log.report(Code, Severity::Remark, TC.displayOf(Loc), D.Line,
                SM.getExpansionColumnNumber(Loc),
                std::string(Name) + ": " + D.Reason);
  Decisions.push_back(D);
}

/// The kernel's launches, each rewritable where it is, or why not.
std::string RefillRun::launches(RefillShape &S,
                                std::vector<LaunchSite> &Sites) {
  SplitBranch B;
  B.Kernel = S.FD;
  B.Name = S.FD->getNameAsString();
  std::vector<const CUDAKernelCallExpr *> Calls;
  std::string Why = findLaunchSites(TC, B, Calls, Sites);
  if (!Why.empty())
    return Why;
  for (const LaunchSite &L : Sites)
    if (touched(TC.Applied, TC.File, L.Begin, L.Begin + L.Length))
      return "an earlier rewrite changed the launch at line " +
             std::to_string(L.Line);
  return "";
}

void RefillRun::kernel(const FunctionDecl *FD) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  std::string Kernel = FD->getNameAsString();
  // Kernels warpwise wrote, and kernels refilled before, are not looked at.
  if (llvm::StringRef(Kernel).contains("_ww_") ||
      defines(Kernel + "_ww_refill"))
    return;
  if (FD->getDescribedFunctionTemplate() || FD->isTemplateInstantiation())
    return; // Not handled yet.
  std::optional<RefillShape> Found = findShape(TC, FD);
  if (!Found)
    return;
  RefillShape &S = *Found;
  SourceLocation Loc = S.Loop->getBeginLoc();
  Decision D;
  D.Transform = Name;
  D.Kernel = Kernel;
  D.Line = SM.getExpansionLineNumber(Loc);
  D.File = TC.decisionFileOf(Loc);
  TC.CurrentKernel = Kernel;
  TC.CurrentLine = D.Line;
  if (TC.DebugCrash)
    crashForTesting();
  std::string Where = "the " + S.Verdict->Kind + " loop at line " +
                      std::to_string(D.Line) + " of `" + Kernel + "`";
  Steer Steering = TC.steer(Name, FD, Loc);
  if (Steering.disabled()) {
    D.Reason = Where + ": disabled by " + Steering.Source + "; not considered";
    return report(D, Loc, "WW3005");
  }
  SteerScope Steered(TC, Steering, Name);
  std::string Why;
  if (!SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
    Why = "the kernel is in a header (the refill writes its kernel beside "
          "the launches, in the main file)";
  Legality Check(TC, S, Facts);
  if (Why.empty())
    Why = Check.check();
  std::vector<LaunchSite> Sites;
  if (Why.empty())
    Why = launches(S, Sites);
  unsigned KBegin = 0, KEnd = 0, IncludeAt = -1u;
  CharSourceRange KR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(FD->getSourceRange()), SM,
      TC.Ctx.getLangOpts());
  if (Why.empty() && KR.isInvalid())
    Why = "the kernel's definition is partly written by a macro";
  if (Why.empty()) {
    KBegin = SM.getFileOffset(KR.getBegin());
    KEnd = SM.getFileOffset(KR.getEnd());
    if (touched(TC.Applied, TC.File, KBegin, KEnd))
      Why = "an earlier rewrite changed the kernel";
  }
  RefillCandidate C;
  C.FD = FD;
  C.Loop = S.Loop;
  C.Where = Where;
  C.NewKernel = Kernel + "_ww_refill";
  // The measured dispatch, where it runs and nothing disables it for this
  // kernel, times the refill against the original at each launch.
  C.Measured = TC.MeasuredDispatch &&
               !TC.steer("dispatch", FD, SourceLocation()).disabled();
  if (Why.empty()) {
    RefillText T = refillKernelText(TC, S, C.NewKernel);
    Why = T.Problem;
    if (Why.empty()) {
      std::string Text = std::string("\n\n") + DecisionMark + "\n" + T.Kernel;
      // Measured with the include even when an earlier candidate of this
      // run adds it (its edits are not among the earlier rewrites yet); none
      // where the file or an earlier rewrite includes the runtime above the
      // kernel (one below it, of a later kernel, would not be seen).
      IncludeAt = runtimeIncludeAt(TC, FD, TC.Contents);
      if (!runtimeVisibleAt(TC, FD->getLocation(), TC.File, IncludeAt))
        C.Edits.emplace_back(TC.File, IncludeAt, 0, runtimeIncludeLine());
      else
        IncludeAt = -1u;
      C.Edits.emplace_back(TC.File, KEnd, 0, Text);
      std::string Tag = "WW4005 " + TC.nextDecisionId(Name, Kernel, TC.Contents);
      llvm::StringRef Main = SM.getBufferData(SM.getMainFileID());
      for (const LaunchSite &L : Sites)
        C.Edits.emplace_back(TC.File, L.Begin, L.Length,
                             refillLaunch(Main, L, Tag, C.Measured));
    }
  }
  if (!Why.empty()) {
    D.Reason = Where + ": not refilled: " + Why;
    return report(D, Loc, "WW3005");
  }
  C.Proof = "each item's work is independent (stores only to the item's "
            "own element" +
            std::string(Check.WrittenBases.empty()
                            ? ""
                            : " of `" +
                                  (*Check.WrittenBases.begin())
                                      ->getNameAsString() +
                                  "`" +
                                  (Check.WrittenBases.size() > 1 ? " and others"
                                                                 : "")) +
            ", no barrier, shared memory or warp intrinsic, the thread "
            "index used only to form the item)";
  C.Divergent = true;
  C.DataDependence = dataDependence(TC, S);
  C.StepsOnly = stepsOnly(TC, S);
  D = planRefill(TC, TC.Applied, C, Name);
  D.File = TC.decisionFileOf(Loc);
  if (D.Applied) {
    TC.takeDecisionId(D, "WW4005", TC.Contents);
    for (tooling::Replacement &R : C.Edits) {
      std::string Text = R.getReplacementText().str();
      if (!fillDecisionMark(
              Text, TC.decisionComment(D, "work refill of `" + Kernel +
                                              "`'s data-dependent loop")))
        continue;
      R = tooling::Replacement(R.getFilePath(), R.getOffset(), R.getLength(),
                               Text);
    }
    if (IncludeAt != -1u && RuntimeAddedAt <= IncludeAt)
      C.Edits.erase(C.Edits.begin()); // The include, which an earlier added.
    else if (IncludeAt != -1u)
      RuntimeAddedAt = IncludeAt;
    Changes.push_back({"work refill of `" + Kernel + "` at line " +
                           std::to_string(D.Line),
                       C.Edits});
    TC.Claimed.push_back({TC.File, KBegin, KEnd});
  }
  report(D, Loc, D.Applied ? "WW4005" : "WW3005");
}

} // namespace

void WorkRefill::run(TransformContext &TC, std::vector<Decision> &Decisions,
                     std::vector<Change> &Changes) {
  RefillRun Run(TC, Decisions, Changes, name());
  for (const FunctionDecl *FD : deviceCodeDefinitions(TC.Ctx, false, TC.Scope))
    if (FD->hasAttr<CUDAGlobalAttr>())
      Run.kernel(FD);
}

} // namespace warpwise
