//===- Divergence.cpp - Uniformity of values, branches and loops ----------===//
#include "Divergence.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <deque>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

Uniformity join(Uniformity A, Uniformity B) { return A > B ? A : B; }

/// Why a value has its level: a builtin, an atomic, a variable (whose own
/// cause follows), or the branch a variable was assigned under.
struct Cause {
  enum Kind { Source, Var, Control } K = Source;
  std::string Text; ///< "`threadIdx.x`", "the divergent `if` at line 12".
  const VarDecl *V = nullptr;
  unsigned Line = 0;
  const Cause *Next = nullptr; ///< For Var: the variable's own cause.
};

/// The abstract value of an expression.
struct Val {
  Uniformity L = Uniformity::Uniform;
  /// Value = Base + Coef * threadIdx.x with Base at most block-uniform.
  bool Linear = true;
  long Coef = 0;
  bool BaseMul32 = true; ///< Base is a multiple of 32.
  std::optional<long> Const; ///< Known integer constant.
  const Cause *Why = nullptr;

  static Val divergent(const Cause *C) {
    Val V;
    V.L = Uniformity::Divergent;
    V.Linear = false;
    V.BaseMul32 = false;
    V.Why = C;
    return V;
  }
  static Val level(Uniformity L, const Cause *C) {
    Val V;
    V.L = L;
    V.Linear = L <= Uniformity::BlockUniform;
    V.BaseMul32 = false;
    V.Why = L == Uniformity::Uniform ? nullptr : C;
    return V;
  }
  static Val constant(long C) {
    Val V;
    V.Const = C;
    V.BaseMul32 = C % 32 == 0;
    return V;
  }
  bool operator==(const Val &O) const {
    return L == O.L && Linear == O.Linear && Coef == O.Coef &&
           BaseMul32 == O.BaseMul32 && Const == O.Const;
  }
};

/// Join for variables with several assignments.
Val joinVals(const Val &A, const Val &B) {
  Val R;
  R.L = join(A.L, B.L);
  R.Linear = A.Linear && B.Linear && A.Coef == B.Coef;
  R.Coef = R.Linear ? A.Coef : 0;
  R.BaseMul32 = A.BaseMul32 && B.BaseMul32;
  if (A.Const && B.Const && *A.Const == *B.Const)
    R.Const = A.Const;
  R.Why = B.L > A.L ? B.Why : A.Why;
  return R;
}

/// \p V's level and cause, without the affine facts: the value is not a
/// known linear function of the thread index any more (a load, a cast to a
/// non-integer, a member).
Val opaque(Val V) {
  V.Linear = V.L <= Uniformity::BlockUniform;
  V.Coef = 0;
  V.Const.reset();
  V.BaseMul32 = false;
  return V;
}

/// Max of the operands' levels, the cause of the strongest one.
Val combineLevels(const Val &A, const Val &B) {
  Val R;
  R.L = join(A.L, B.L);
  R.Why = B.L > A.L ? B.Why : A.Why;
  R.Linear = R.L <= Uniformity::BlockUniform;
  R.BaseMul32 = false;
  return R;
}

struct ControlEntry {
  const Stmt *S;
  Uniformity L;
  const Cause *Why;
  bool IsLoop;
  bool IsSwitch;
};

struct ContextKey {
  const FunctionDecl *FD;
  std::vector<Uniformity> Params;
  bool operator<(const ContextKey &O) const {
    return std::tie(FD, Params) < std::tie(O.FD, O.Params);
  }
};

struct Summary {
  Val Return;
  std::vector<std::optional<Val>> ParamWrites;
};

} // namespace

struct DivergenceAnalysis::Impl {
  ASTContext &Ctx;
  SourceManager &SM;
  std::deque<Cause> Causes;
  std::map<ContextKey, Summary> Summaries;
  std::set<ContextKey> InProgress;
  /// Joined verdicts of __device__ functions, by function.
  std::map<const FunctionDecl *, FunctionVerdicts> DeviceVerdicts;
  std::map<const FunctionDecl *, std::set<std::vector<Uniformity>>>
      DeviceContexts;

  Impl(ASTContext &C) : Ctx(C), SM(C.getSourceManager()) {}

  const Cause *cause(Cause C) {
    Causes.push_back(std::move(C));
    return &Causes.back();
  }
  unsigned line(SourceLocation L) const {
    return SM.getExpansionLineNumber(L);
  }
  unsigned column(SourceLocation L) const {
    return SM.getExpansionColumnNumber(L);
  }

  Summary analyze(const FunctionDecl *FD, const std::vector<Val> &Args,
                  const BlockShape &Shape, FunctionVerdicts *Out);
};

namespace {

/// The analysis of one function body in one calling context.
class FunctionRun {
public:
  FunctionRun(DivergenceAnalysis::Impl &P, const FunctionDecl *FD,
              const std::vector<Val> &Args, const BlockShape &Shape)
      : P(P), FD(FD), Shape(Shape) {
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      Val V = I < Args.size() ? Args[I] : Val();
      if (V.L != Uniformity::Uniform && !V.Why)
        V.Why = P.cause({Cause::Source, "the caller's argument", nullptr, 0,
                         nullptr});
      Vars[FD->getParamDecl(I)] = V;
      ParamIndex[FD->getParamDecl(I)] = I;
    }
    Sum.ParamWrites.resize(FD->getNumParams());
  }

  Summary run() {
    const Stmt *Body = FD->getBody();
    HasGoto = containsGoto(Body);
    for (unsigned Iter = 0; Iter < 32; ++Iter) {
      Changed = false;
      Control.clear();
      walk(Body);
      if (!Changed)
        break;
    }
    return Sum;
  }

  void collect(FunctionVerdicts &Out) const;

private:
  // --- Statements -------------------------------------------------------
  void walk(const Stmt *S);
  void walkLoop(const Stmt *Loop, const Stmt *Init, const Expr *Cond,
                const Stmt *CondVar, const Expr *Inc, const Stmt *Body,
                const char *Kind);
  void enterBranch(const Stmt *Branch, const Stmt *Init, const Stmt *CondVar,
                   const Expr *Cond, const char *Kind, bool IsSwitch);
  void noteJump(const Stmt *Jump, bool IsReturn, bool IsContinue);

  // --- Expressions --------------------------------------------------------
  Val eval(const Expr *E);
  Val evalBinary(const BinaryOperator *B);
  Val evalCall(const CallExpr *C);
  Val evalBuiltinVar(const Expr *E, bool &Matched);
  Val arith(BinaryOperatorKind Op, const Val &A, const Val &B,
            const Expr *Whole);
  void assign(const Expr *Target, const Val &V, const Expr *Where);
  /// A write of \p Written through parameter \p D (a pointer or reference;
  /// nothing when \p D is not a parameter), joined with the enclosing
  /// control into the function's summary for its callers.
  void noteParamWrite(const ValueDecl *D, Val Written);
  void assignVar(const VarDecl *Var, Val V);

  Uniformity controlFor(const VarDecl *Var, const Cause *&Why) const;
  bool encloses(const Stmt *S, const Decl *D) const;
  static bool containsGoto(const Stmt *S);
  const VarDecl *localArray(const Expr *Base) const;

  void recordCond(const Stmt *S, const Val &V) {
    auto It = CondVals.find(S);
    if (It == CondVals.end()) {
      CondVals[S] = V;
      Changed = true;
    } else {
      Val J = joinVals(It->second, V);
      if (!(J == It->second)) {
        It->second = J;
        Changed = true;
      }
    }
  }

  DivergenceAnalysis::Impl &P;
  const FunctionDecl *FD;
  const BlockShape &Shape;
  std::map<const VarDecl *, Val> Vars;
  std::map<const VarDecl *, unsigned> ParamIndex;
  std::map<const Stmt *, Val> CondVals;
  std::map<const Stmt *, std::pair<Uniformity, const Cause *>> ExitLevels;
  std::vector<ControlEntry> Control;
  std::vector<const Stmt *> Order; ///< Branches and loops in source order.
  std::set<const Stmt *> Seen;
  Summary Sum;
  bool Changed = false;
  bool HasGoto = false;
};

bool FunctionRun::containsGoto(const Stmt *S) {
  if (!S)
    return false;
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsGoto(C))
      return true;
  return false;
}

bool FunctionRun::encloses(const Stmt *S, const Decl *D) const {
  if (!D || isa<ParmVarDecl>(D))
    return false;
  SourceLocation L = P.SM.getExpansionLoc(D->getLocation());
  SourceLocation B = P.SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation E = P.SM.getExpansionLoc(S->getEndLoc());
  return !P.SM.isBeforeInTranslationUnit(L, B) &&
         !P.SM.isBeforeInTranslationUnit(E, L);
}

Uniformity FunctionRun::controlFor(const VarDecl *Var,
                                   const Cause *&Why) const {
  Uniformity L = Uniformity::Uniform;
  Why = nullptr;
  if (HasGoto && !Control.empty()) {
    // Unstructured control flow: any guarded assignment may reach any join.
    for (const ControlEntry &C : Control)
      if (C.L > L) {
        L = C.L;
        Why = C.Why;
      }
    return L;
  }
  for (const ControlEntry &C : Control) {
    if (!Var || encloses(C.S, Var)) // Invisible after the join.
      continue;
    if (C.L > L) {
      L = C.L;
      Why = C.Why;
    }
  }
  return L;
}

void FunctionRun::assignVar(const VarDecl *Var, Val V) {
  const Cause *CtlWhy;
  Uniformity Ctl = controlFor(Var, CtlWhy);
  if (Ctl > V.L) {
    V.L = Ctl;
    V.Why = P.cause({Cause::Control, CtlWhy ? CtlWhy->Text : "a branch",
                     nullptr, 0, nullptr});
  }
  if (Ctl > Uniformity::BlockUniform || V.L > Uniformity::BlockUniform) {
    if (!(V.Linear && V.Coef != 0 && Ctl <= Uniformity::BlockUniform)) {
      V.Linear = false;
      V.BaseMul32 = false;
    }
  }
  if (Ctl != Uniformity::Uniform)
    V.Const.reset();
  auto It = Vars.find(Var);
  if (It == Vars.end()) {
    Vars[Var] = V;
    Changed = true;
    return;
  }
  Val J = joinVals(It->second, V);
  if (!(J == It->second)) {
    // Keep the cause that explains the new, higher level.
    if (J.L > It->second.L)
      J.Why = V.Why;
    else
      J.Why = It->second.Why;
    It->second = J;
    Changed = true;
  }
}

const VarDecl *FunctionRun::localArray(const Expr *Base) const {
  Base = Base->IgnoreParenImpCasts();
  if (auto *Ref = dyn_cast<DeclRefExpr>(Base))
    if (auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      if (V->getType()->isArrayType() && V->hasLocalStorage())
        return V;
  return nullptr;
}

void FunctionRun::noteParamWrite(const ValueDecl *D, Val Written) {
  auto PI = ParamIndex.find(dyn_cast<VarDecl>(D));
  if (PI == ParamIndex.end())
    return;
  for (const ControlEntry &C : Control)
    Written.L = join(Written.L, C.L);
  auto &Slot = Sum.ParamWrites[PI->second];
  Slot = Slot ? joinVals(*Slot, Written) : Written;
}

void FunctionRun::assign(const Expr *Target, const Val &V, const Expr *Where) {
  Target = Target->IgnoreParenImpCasts();
  if (auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
    if (auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) {
      if (Var->hasLocalStorage()) {
        // Writes to a reference parameter are the caller's business too.
        if (Var->getType()->isReferenceType()) {
          const Cause *W;
          Val Out = V;
          Out.L = join(V.L, controlFor(nullptr, W));
          noteParamWrite(Var, Out);
        }
        assignVar(Var, V);
      }
    }
    return;
  }
  if (auto *M = dyn_cast<MemberExpr>(Target)) {
    // s.f = v writes s; p->f = v writes through p.
    assign(M->getBase(), V, Where);
    return;
  }
  if (auto *A = dyn_cast<ArraySubscriptExpr>(Target)) {
    Val Index = eval(A->getIdx());
    Val Stored = combineLevels(V, Index);
    if (const VarDecl *Arr = localArray(A->getBase())) {
      assignVar(Arr, Stored);
      return;
    }
    // A store through a pointer parameter.
    if (auto *Ref = dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts()))
      noteParamWrite(Ref->getDecl(), Stored);
    eval(A->getBase());
    return;
  }
  if (auto *U = dyn_cast<UnaryOperator>(Target)) {
    if (U->getOpcode() == UO_Deref) {
      const Expr *Ptr = U->getSubExpr()->IgnoreParenImpCasts();
      if (auto *Ref = dyn_cast<DeclRefExpr>(Ptr))
        noteParamWrite(Ref->getDecl(), V);
      eval(Ptr);
    }
    return;
  }
  eval(Target);
}

// --- Builtin variables ----------------------------------------------------

Val FunctionRun::evalBuiltinVar(const Expr *E, bool &Matched) {
  Matched = false;
  // Only the property reference itself: a cast around it is evaluated as a
  // cast.
  if (!isa<PseudoObjectExpr>(E) && !isa<MSPropertyRefExpr>(E))
    return Val();
  std::string Obj, Comp;
  if (!builtinVariable(E, Obj, Comp))
    return Val();
  Matched = true;
  std::string Name = Obj + "." + Comp;
  const Cause *C =
      P.cause({Cause::Source, "`" + Name + "`", nullptr, 0, nullptr});
  if (Obj == "blockDim" || Obj == "gridDim") {
    Val V;
    V.Why = nullptr;
    // blockDim.x is a multiple of 32 when every launch says so.
    V.BaseMul32 = Obj == "blockDim" && Comp == "x" && Shape.XMultipleOf32;
    return V;
  }
  if (Obj == "blockIdx")
    return Val::level(Uniformity::BlockUniform, C);
  // threadIdx.
  if (Comp == "x") {
    Val V = Val::divergent(C);
    V.Linear = true;
    V.Coef = 1;
    V.BaseMul32 = true;
    return V;
  }
  bool WarpUniform = (Comp == "y" && Shape.XMultipleOf32) ||
                     (Comp == "z" && Shape.XYMultipleOf32);
  if (WarpUniform) {
    const Cause *W = P.cause(
        {Cause::Source,
         "`" + Name + "`, uniform within each warp because blockDim.x" +
             std::string(Comp == "z" ? " * blockDim.y" : "") +
             " is a multiple of 32 in " + Shape.Evidence,
         nullptr, 0, nullptr});
    return Val::level(Uniformity::WarpUniform, W);
  }
  return Val::divergent(C);
}

// --- Expressions ------------------------------------------------------------

Val FunctionRun::arith(BinaryOperatorKind Op, const Val &A, const Val &B,
                       const Expr *Whole) {
  Val R = combineLevels(A, B);
  bool BothLinear = A.Linear && B.Linear;
  switch (Op) {
  case BO_Add:
  case BO_Sub:
    if (BothLinear) {
      R.Linear = true;
      R.Coef = Op == BO_Add ? A.Coef + B.Coef : A.Coef - B.Coef;
      R.BaseMul32 = A.BaseMul32 && B.BaseMul32;
      if (R.Coef == 0 && R.L == Uniformity::Divergent)
        R.L = join(A.Coef ? Uniformity::Uniform : A.L,
                   B.Coef ? Uniformity::Uniform : B.L);
    }
    if (A.Const && B.Const)
      R.Const = Op == BO_Add ? *A.Const + *B.Const : *A.Const - *B.Const;
    break;
  case BO_Mul:
    if (BothLinear && (A.Coef == 0 || B.Coef == 0)) {
      const Val &K = A.Coef == 0 ? A : B; // The factor without threadIdx.
      const Val &T = A.Coef == 0 ? B : A;
      if (T.Coef == 0 || K.Const) {
        R.Linear = true;
        R.Coef = K.Const ? T.Coef * *K.Const : 0;
        R.BaseMul32 = T.BaseMul32 || K.BaseMul32;
      }
    }
    if (A.Const && B.Const)
      R.Const = *A.Const * *B.Const;
    break;
  case BO_Shl:
    if (BothLinear && B.Const && *B.Const >= 0 && *B.Const < 31) {
      long F = 1L << *B.Const;
      R.Linear = true;
      R.Coef = A.Coef * F;
      R.BaseMul32 = A.BaseMul32 || F % 32 == 0;
    }
    break;
  case BO_Div:
  case BO_Shr: {
    std::optional<long> D;
    if (B.Const && Op == BO_Div && *B.Const > 0)
      D = *B.Const;
    if (B.Const && Op == BO_Shr && *B.Const >= 0 && *B.Const < 31)
      D = 1L << *B.Const;
    if (A.Const && D)
      R.Const = *A.Const / *D;
    // (Base + threadIdx.x) / (32k) with Base a multiple of 32: a warp's 32
    // consecutive, 32-aligned values fall into one quotient.
    if (A.Linear && A.Coef == 1 && A.BaseMul32 && D && *D % 32 == 0) {
      bool ShapeOK = Shape.Known && (Shape.OneDimensional || Shape.XMultipleOf32);
      std::string Expr =
          "a warp index (a multiple of 32 plus `threadIdx.x`, " +
          std::string(Op == BO_Div ? "divided by " : "shifted right by ") +
          std::to_string(Op == BO_Div ? *D : *B.Const) + ")";
      if (ShapeOK) {
        R = Val::level(
            Uniformity::WarpUniform,
            P.cause({Cause::Source,
                     Expr + ", uniform within each warp because " +
                         (Shape.OneDimensional ? "blocks are one-dimensional"
                                               : "blockDim.x is a multiple of 32") +
                         " in " + Shape.Evidence,
                     nullptr, 0, nullptr}));
        R.Linear = false;
        return R;
      }
      R = Val::divergent(P.cause(
          {Cause::Source,
           Expr + ", which is uniform within a warp only if blockDim.x is a "
                  "multiple of 32 or blocks are one-dimensional, and no "
                  "launch in this file shows either",
           nullptr, 0, nullptr}));
      return R;
    }
    break;
  }
  default:
    if (A.Const && B.Const) {
      long X = *A.Const, Y = *B.Const;
      switch (Op) {
      case BO_Rem:
        if (Y)
          R.Const = X % Y;
        break;
      case BO_And:
        R.Const = X & Y;
        break;
      case BO_Or:
        R.Const = X | Y;
        break;
      case BO_Xor:
        R.Const = X ^ Y;
        break;
      default:
        break;
      }
    }
    break;
  }
  if (R.L > Uniformity::BlockUniform && !(R.Linear && R.Coef != 0)) {
    R.Linear = false;
    R.BaseMul32 = false;
  }
  return R;
}

Val FunctionRun::evalBinary(const BinaryOperator *B) {
  BinaryOperatorKind Op = B->getOpcode();
  if (Op == BO_Assign) {
    Val V = eval(B->getRHS());
    assign(B->getLHS(), V, B);
    return V;
  }
  if (B->isCompoundAssignmentOp()) {
    Val Old = eval(B->getLHS());
    Val V = arith(BinaryOperator::getOpForCompoundAssignment(Op), Old,
                  eval(B->getRHS()), B);
    assign(B->getLHS(), V, B);
    return V;
  }
  if (Op == BO_Comma) {
    eval(B->getLHS());
    return eval(B->getRHS());
  }
  Val A = eval(B->getLHS());
  Val C = eval(B->getRHS());
  if (B->isComparisonOp() || B->isLogicalOp()) {
    Val R = combineLevels(A, C);
    R.Linear = R.L <= Uniformity::BlockUniform;
    return R;
  }
  return arith(Op, A, C, B);
}

Val FunctionRun::evalCall(const CallExpr *C) {
  std::vector<Val> Args;
  for (const Expr *A : C->arguments())
    Args.push_back(eval(A));
  const FunctionDecl *Callee = C->getDirectCallee();
  std::string Name = Callee ? Callee->getNameAsString() : "";
  unsigned Line = P.line(C->getBeginLoc());
  auto Source = [&](const std::string &Text) {
    return P.cause({Cause::Source, Text, nullptr, Line, nullptr});
  };
  Val MaxArgs;
  for (const Val &A : Args)
    MaxArgs = combineLevels(MaxArgs, A);
  MaxArgs.Linear = MaxArgs.L <= Uniformity::BlockUniform;
  MaxArgs.BaseMul32 = false;

  llvm::StringRef N(Name);
  if (N.starts_with("atomic") || N.starts_with("__atomic") || N == "clock" ||
      N == "clock64" || N == "__activemask" || N == "__lanemask_lt")
    return Val::divergent(
        Source("`" + Name + "` (line " + std::to_string(Line) + ")"));
  if (N == "__ballot_sync" || N == "__any_sync" || N == "__all_sync" ||
      N == "__match_any_sync" || N == "__reduce_add_sync" ||
      N == "__reduce_min_sync" || N == "__reduce_max_sync") {
    if (N == "__match_any_sync")
      return Val::divergent(Source("`" + Name + "` (line " +
                                   std::to_string(Line) + ")"));
    return Val::level(Uniformity::WarpUniform,
                      Source("`" + Name + "`, the same in every lane"));
  }
  if (N == "__syncthreads_count" || N == "__syncthreads_and" ||
      N == "__syncthreads_or")
    return Val::level(Uniformity::BlockUniform,
                      Source("`" + Name + "`, the same in every thread of a block"));
  if (N.starts_with("__shfl")) {
    // A shuffle reads another lane's value: at most warp-uniform when the
    // value is, and a broadcast from a uniform lane is warp-uniform.
    const Val &V = Args.size() > 1 ? Args[1] : MaxArgs;
    if (V.L <= Uniformity::WarpUniform)
      return V;
    if (N == "__shfl_sync" && Args.size() > 2 &&
        Args[2].L <= Uniformity::WarpUniform)
      return Val::level(Uniformity::WarpUniform,
                        Source("`__shfl_sync` broadcast from one lane"));
    return Val::divergent(Source("`" + Name + "` (line " +
                                 std::to_string(Line) + ")"));
  }
  if (Callee) {
    const FunctionDecl *Def = Callee->getDefinition();
    if (Def && Def->hasBody() &&
        (Def->hasAttr<CUDADeviceAttr>() || Def->isConstexpr() ||
         Def->hasAttr<CUDAHostAttr>())) {
      // Arguments of member calls include the object expression first.
      unsigned Offset = isa<CXXMemberCallExpr>(C) ? 0 : 0;
      std::vector<Val> CalleeArgs(Args.begin() + Offset, Args.end());
      BlockShape S = Shape;
      Summary Sm = P.analyze(Def, CalleeArgs, S, nullptr);
      // Writes through reference and pointer parameters reach our variables.
      for (unsigned I = 0; I < Sm.ParamWrites.size() && I < C->getNumArgs();
           ++I) {
        if (!Sm.ParamWrites[I])
          continue;
        const Expr *A = C->getArg(I)->IgnoreParenImpCasts();
        if (auto *U = dyn_cast<UnaryOperator>(A))
          if (U->getOpcode() == UO_AddrOf)
            A = U->getSubExpr()->IgnoreParenImpCasts();
        Val W = *Sm.ParamWrites[I];
        if (W.L != Uniformity::Uniform)
          W.Why = P.cause({Cause::Source,
                           "a write by `" + Name + "` (line " +
                               std::to_string(Line) + ")",
                           nullptr, Line, nullptr});
        if (localArray(A) || isa<DeclRefExpr>(A) || isa<MemberExpr>(A))
          assign(A, W, C);
      }
      Val R = Sm.Return;
      if (R.L != Uniformity::Uniform && (!R.Why || R.Why->Text.empty()))
        R.Why = Source("the result of `" + Name + "`");
      else if (R.L != Uniformity::Uniform)
        R.Why = P.cause({Cause::Source,
                         "the result of `" + Name + "` (line " +
                             std::to_string(Line) + "), which " +
                             (R.Why->K == Cause::Source ? "depends on " +
                                                              R.Why->Text
                                                        : "is divergent"),
                         nullptr, Line, nullptr});
      R.Linear = R.L <= Uniformity::BlockUniform;
      R.Coef = 0;
      R.BaseMul32 = false;
      R.Const.reset();
      return R;
    }
  }
  // Library functions (sqrtf, min, ...) are pure: as uniform as their
  // arguments.
  return MaxArgs;
}

Val FunctionRun::eval(const Expr *E) {
  if (!E)
    return Val();
  E = E->IgnoreParens();
  bool Matched;
  Val B = evalBuiltinVar(E, Matched);
  if (Matched)
    return B;

  if (auto *IL = dyn_cast<IntegerLiteral>(E))
    return Val::constant(IL->getValue().getSExtValue());
  if (auto *CL = dyn_cast<CharacterLiteral>(E))
    return Val::constant(CL->getValue());
  if (auto *BL = dyn_cast<CXXBoolLiteralExpr>(E))
    return Val::constant(BL->getValue());
  if (isa<FloatingLiteral>(E) || isa<StringLiteral>(E) ||
      isa<CXXNullPtrLiteralExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E) ||
      isa<GNUNullExpr>(E)) {
    Val V;
    V.Linear = false;
    return V;
  }
  if (auto *Cast = dyn_cast<CastExpr>(E)) {
    Val V = eval(Cast->getSubExpr());
    QualType T = Cast->getType();
    if (!T->isIntegerType() && !T->isPointerType())
      V = opaque(V);
    return V;
  }
  if (auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (auto *EC = dyn_cast<EnumConstantDecl>(D))
      return Val::constant(EC->getInitVal().getSExtValue());
    if (auto *Var = dyn_cast<VarDecl>(D)) {
      if (Var->getName() == "warpSize")
        return Val::constant(32);
      if (Var->hasLocalStorage()) {
        auto It = Vars.find(Var);
        Val V = It == Vars.end() ? Val() : It->second;
        if (V.L != Uniformity::Uniform) {
          Val R = V;
          R.Why = P.cause({Cause::Var, "", Var, P.line(Var->getLocation()),
                           V.Why});
          return R;
        }
        return V;
      }
      if (Var->hasAttr<CUDASharedAttr>())
        return Val::level(Uniformity::BlockUniform,
                          P.cause({Cause::Source,
                                   "`__shared__` variable `" +
                                       Var->getNameAsString() + "`",
                                   nullptr, 0, nullptr}));
      // __constant__, __device__ globals, constexpr: one value for the grid
      // (under the usual race-freedom assumption).
      Val V;
      V.Linear = false;
      if (Var->getType().isConstQualified() && Var->hasInit()) {
        Expr::EvalResult Res;
        if (Var->getInit()->EvaluateAsInt(Res, P.Ctx))
          return Val::constant(Res.Val.getInt().getSExtValue());
      }
      return V;
    }
    return Val();
  }
  if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    Val Index = eval(A->getIdx());
    if (const VarDecl *Arr = localArray(A->getBase())) {
      Val Elem = eval(A->getBase());
      Val R = combineLevels(Elem, Index);
      if (R.L != Uniformity::Uniform && Index.L >= Elem.L)
        R.Why = Index.Why;
      (void)Arr;
      return R;
    }
    Val Base = eval(A->getBase());
    const Expr *BaseE = A->getBase()->IgnoreParenImpCasts();
    if (auto *Ref = dyn_cast<DeclRefExpr>(BaseE))
      if (auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        if (Var->hasAttr<CUDASharedAttr>())
          Base = Val::level(Uniformity::BlockUniform,
                            P.cause({Cause::Source,
                                     "a load from `__shared__` `" +
                                         Var->getNameAsString() + "`",
                                     nullptr, 0, nullptr}));
    // A load: as uniform as its address.
    Val R = combineLevels(Base, Index);
    if (R.L > Uniformity::BlockUniform) {
      R.Why = P.cause({Cause::Source,
                       "a load at a " + std::string(uniformityName(R.L)) +
                           " address (line " +
                           std::to_string(P.line(A->getBeginLoc())) + ")",
                       nullptr, 0, R.Why});
    }
    return R;
  }
  if (auto *U = dyn_cast<UnaryOperator>(E)) {
    switch (U->getOpcode()) {
    case UO_PreInc:
    case UO_PostInc:
    case UO_PreDec:
    case UO_PostDec: {
      Val Old = eval(U->getSubExpr());
      Val One = Val::constant(1);
      Val New = arith(U->isIncrementOp() ? BO_Add : BO_Sub, Old, One, U);
      assign(U->getSubExpr(), New, U);
      return U->isPrefix() ? New : Old;
    }
    case UO_AddrOf: {
      const Expr *Sub = U->getSubExpr()->IgnoreParenImpCasts();
      if (isa<DeclRefExpr>(Sub))
        return Val(); // The address of a variable: the same in every thread.
      Val V = eval(Sub);
      V.Const.reset();
      return V;
    }
    case UO_Minus: {
      Val V = eval(U->getSubExpr());
      V.Coef = -V.Coef;
      if (V.Const)
        V.Const = -*V.Const;
      return V;
    }
    default: // *p, ~x, !x: no longer affine in the thread index.
      return opaque(eval(U->getSubExpr()));
    }
  }
  if (auto *B = dyn_cast<BinaryOperator>(E))
    return evalBinary(B);
  if (auto *CO = dyn_cast<ConditionalOperator>(E)) {
    Val Cond = eval(CO->getCond());
    recordCond(CO, Cond);
    if (Seen.insert(CO).second)
      Order.push_back(CO);
    Control.push_back({CO, Cond.L, Cond.Why, false, false});
    Val T = eval(CO->getTrueExpr());
    Val F = eval(CO->getFalseExpr());
    Control.pop_back();
    Val R = combineLevels(combineLevels(T, F), Cond);
    if (T.Const && F.Const && *T.Const == *F.Const && Cond.L == Uniformity::Uniform)
      R.Const = T.Const;
    return R;
  }
  if (auto *M = dyn_cast<MemberExpr>(E)) {
    return opaque(eval(M->getBase()));
  }
  if (auto *Call = dyn_cast<CallExpr>(E)) {
    if (isa<CUDAKernelCallExpr>(Call))
      return Val(); // A device-side launch: no value the thread uses.
    return evalCall(Call);
  }
  if (auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
    return eval(Temp->getSubExpr());
  if (auto *Cleanup = dyn_cast<ExprWithCleanups>(E))
    return eval(Cleanup->getSubExpr());
  if (auto *PO = dyn_cast<PseudoObjectExpr>(E))
    return eval(PO->getResultExpr());
  // Everything else (constructors, init lists, lambdas, ...): as uniform as
  // its parts.
  Val R;
  R.Linear = true;
  bool Any = false;
  for (const Stmt *Child : E->children())
    if (auto *CE = dyn_cast_or_null<Expr>(Child)) {
      R = Any ? combineLevels(R, eval(CE)) : eval(CE);
      Any = true;
    }
  R.Linear = R.L <= Uniformity::BlockUniform && R.Coef == 0;
  R.Const.reset();
  return R;
}

// --- Statements ---------------------------------------------------------------

void FunctionRun::noteJump(const Stmt *Jump, bool IsReturn, bool IsContinue) {
  // The guards between the jump and each construct it leaves make that
  // construct's exit (or, for continue, its latch) non-uniform.
  Uniformity Guard = Uniformity::Uniform;
  const Cause *Why = nullptr;
  for (size_t I = Control.size(); I-- > 0;) {
    const ControlEntry &C = Control[I];
    if (C.IsLoop || (C.IsSwitch && !IsReturn && !IsContinue)) {
      if (C.IsLoop && Guard != Uniformity::Uniform) {
        auto &Slot = ExitLevels[C.S];
        if (Guard > Slot.first) {
          Slot = {Guard, P.cause({Cause::Control,
                                  std::string("a ") +
                                      uniformityName(Guard) + " `" +
                                      (IsReturn ? "return"
                                                : IsContinue ? "continue"
                                                             : "break") +
                                      "` at line " +
                                      std::to_string(P.line(Jump->getBeginLoc())),
                                  nullptr, 0, Why})};
          Changed = true;
        }
      }
      if (!IsReturn)
        return; // break/continue leave only the innermost construct.
    }
    if (C.L > Guard) {
      Guard = C.L;
      Why = C.Why;
    }
  }
}

void FunctionRun::walkLoop(const Stmt *Loop, const Stmt *Init, const Expr *Cond,
                           const Stmt *CondVar, const Expr *Inc,
                           const Stmt *Body, const char *Kind) {
  if (Init)
    walk(Init);
  if (Seen.insert(Loop).second)
    Order.push_back(Loop);
  // The loop's level: its condition, and non-uniform exits found by earlier
  // iterations of the fixed point.
  auto Level = [&]() {
    Val C = CondVals.count(Loop) ? CondVals[Loop] : Val();
    Uniformity L = C.L;
    const Cause *W = C.Why;
    auto It = ExitLevels.find(Loop);
    if (It != ExitLevels.end() && It->second.first > L) {
      L = It->second.first;
      W = It->second.second;
    }
    return std::make_pair(L, W);
  };
  auto [L0, W0] = Level();
  Control.push_back({Loop, L0, W0, true, false});
  if (CondVar)
    walk(CondVar);
  Val C = Cond ? eval(Cond) : Val();
  recordCond(Loop, C);
  auto [L1, W1] = Level();
  Control.back().L = L1;
  Control.back().Why = P.cause(
      {Cause::Control,
       std::string("the ") + uniformityName(L1) + " `" + Kind + "` loop at line " +
           std::to_string(P.line(Loop->getBeginLoc())),
       nullptr, 0, W1});
  walk(Body);
  if (Inc)
    eval(Inc);
  Control.pop_back();
}

/// Walks an if's or switch's init and condition, records its verdict, and
/// makes it the innermost control dependence of what the caller walks next
/// (the caller pops it).
void FunctionRun::enterBranch(const Stmt *Branch, const Stmt *Init,
                              const Stmt *CondVar, const Expr *Cond,
                              const char *Kind, bool IsSwitch) {
  if (Init)
    walk(Init);
  if (CondVar)
    walk(CondVar);
  Val C = eval(Cond);
  recordCond(Branch, C);
  if (Seen.insert(Branch).second)
    Order.push_back(Branch);
  const Cause *Why =
      P.cause({Cause::Control,
               std::string("the ") + uniformityName(C.L) + " `" + Kind +
                   "` at line " + std::to_string(P.line(Branch->getBeginLoc())),
               nullptr, 0, C.Why});
  Control.push_back({Branch, C.L, Why, false, IsSwitch});
}

void FunctionRun::walk(const Stmt *S) {
  if (!S)
    return;
  if (auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : CS->body())
      walk(Child);
    return;
  }
  if (auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (auto *Var = dyn_cast<VarDecl>(D)) {
        if (Var->hasAttr<CUDASharedAttr>() || !Var->hasLocalStorage())
          continue;
        Val V = Var->getInit() ? eval(Var->getInit()) : Val();
        if (!Var->getInit() && Var->getType()->isArrayType())
          V = Val(); // Elements are assigned later.
        assignVar(Var, V);
      }
    return;
  }
  if (auto *If = dyn_cast<IfStmt>(S)) {
    enterBranch(If, If->getInit(), If->getConditionVariableDeclStmt(),
                If->getCond(), "if", false);
    walk(If->getThen());
    walk(If->getElse());
    Control.pop_back();
    return;
  }
  if (auto *For = dyn_cast<ForStmt>(S)) {
    walkLoop(For, For->getInit(), For->getCond(),
             For->getConditionVariableDeclStmt(), For->getInc(), For->getBody(),
             "for");
    return;
  }
  if (auto *While = dyn_cast<WhileStmt>(S)) {
    walkLoop(While, nullptr, While->getCond(),
             While->getConditionVariableDeclStmt(), nullptr, While->getBody(),
             "while");
    return;
  }
  if (auto *Do = dyn_cast<DoStmt>(S)) {
    walkLoop(Do, nullptr, Do->getCond(), nullptr, nullptr, Do->getBody(), "do");
    return;
  }
  if (auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
    if (Range->getInit())
      walk(Range->getInit());
    walk(Range->getRangeStmt());
    walkLoop(Range, nullptr, Range->getRangeInit(), Range->getLoopVarStmt(),
             nullptr, Range->getBody(), "for");
    return;
  }
  if (auto *Switch = dyn_cast<SwitchStmt>(S)) {
    enterBranch(Switch, Switch->getInit(),
                Switch->getConditionVariableDeclStmt(), Switch->getCond(),
                "switch", true);
    walk(Switch->getBody());
    Control.pop_back();
    return;
  }
  if (auto *Case = dyn_cast<SwitchCase>(S)) {
    walk(Case->getSubStmt());
    return;
  }
  if (auto *Label = dyn_cast<LabelStmt>(S)) {
    walk(Label->getSubStmt());
    return;
  }
  if (auto *Ret = dyn_cast<ReturnStmt>(S)) {
    Val V = eval(Ret->getRetValue());
    for (const ControlEntry &C : Control)
      if (C.L > V.L) {
        V.L = C.L;
        V.Why = C.Why;
        V.Linear = false;
      }
    Sum.Return = joinVals(Sum.Return, V);
    noteJump(Ret, true, false);
    return;
  }
  if (isa<BreakStmt>(S)) {
    noteJump(S, false, false);
    return;
  }
  if (isa<ContinueStmt>(S)) {
    noteJump(S, false, true);
    return;
  }
  if (auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return;
  }
  for (const Stmt *Child : S->children())
    walk(Child);
}

/// "`k` (line 38) depends on `threadIdx.x` through `tid` (line 30)".
std::string explain(const Cause *C, Uniformity L) {
  if (!C)
    return L == Uniformity::Uniform
               ? "the condition depends only on kernel parameters, "
                 "constants, blockDim/gridDim and uniform loads"
               : "";
  std::vector<const Cause *> Vars;
  const Cause *T = C;
  std::set<const Cause *> Visited;
  while (T && T->K == Cause::Var && Visited.insert(T).second) {
    Vars.push_back(T);
    T = T->Next;
  }
  std::string Terminal;
  bool IsControl = false;
  if (!T)
    Terminal = "a non-uniform value";
  else if (T->K == Cause::Control) {
    IsControl = true;
    Terminal = T->Text;
  } else {
    Terminal = T->Text;
    // A load at a non-uniform address: say where the address comes from.
    if (T->Next) {
      std::string Inner = explain(T->Next, L);
      if (!Inner.empty())
        Terminal += " (" + Inner + ")";
    }
  }
  if (Vars.empty())
    return std::string("the condition ") +
           (IsControl ? "is computed under " : "depends on ") + Terminal;
  auto Name = [](const Cause *V) {
    return "`" + V->V->getNameAsString() + "` (line " +
           std::to_string(V->Line) + ")";
  };
  std::string S = Name(Vars.front());
  if (Vars.size() > 1 && !IsControl) {
    S += " depends on " + Terminal + " through ";
    for (size_t I = Vars.size() - 1; I >= 1; --I) {
      S += Name(Vars[I]);
      if (I > 1)
        S += ", ";
    }
    return S;
  }
  if (Vars.size() > 1) {
    S += " depends on " + Name(Vars.back()) + ", which is assigned under " +
         Terminal;
    return S;
  }
  return S + (IsControl ? " is assigned under " : " depends on ") + Terminal;
}

void FunctionRun::collect(FunctionVerdicts &Out) const {
  std::string Fn = FD->getNameAsString();
  std::vector<std::pair<const VarDecl *, Val>> Locals;
  for (const auto &[Var, V] : Vars)
    if (!isa<ParmVarDecl>(Var))
      Locals.push_back({Var, V});
  std::sort(Locals.begin(), Locals.end(), [&](const auto &A, const auto &B) {
    return P.SM.isBeforeInTranslationUnit(A.first->getLocation(),
                                          B.first->getLocation());
  });
  for (const auto &[Var, V] : Locals) {
    VariableInfo I;
    I.Name = Var->getNameAsString();
    I.Line = P.line(Var->getLocation());
    I.Column = P.column(Var->getLocation());
    I.Level = HasGoto && V.L != Uniformity::Uniform ? Uniformity::Divergent
                                                     : V.L;
    I.Reason = explain(V.Why, V.L);
    // explain() speaks of branch conditions.
    if (llvm::StringRef(I.Reason).starts_with("the condition "))
      I.Reason = "its value " + I.Reason.substr(strlen("the condition "));
    Out.Variables.push_back(std::move(I));
  }
  for (const Stmt *S : Order) {
    auto CIt = CondVals.find(S);
    Val C = CIt == CondVals.end() ? Val() : CIt->second;
    unsigned Line = P.line(S->getBeginLoc()), Col = P.column(S->getBeginLoc());
    if (isa<IfStmt>(S) || isa<ConditionalOperator>(S) || isa<SwitchStmt>(S)) {
      BranchRecord R;
      R.S = S;
      R.Info.Line = Line;
      R.Info.Column = Col;
      R.Info.Function = Fn;
      R.Info.Level = C.L;
      if (HasGoto && C.L != Uniformity::Uniform)
        R.Info.Level = Uniformity::Divergent;
      R.Info.Reason = explain(C.Why, C.L);
      if (auto *If = dyn_cast<IfStmt>(S)) {
        R.Info.Kind = If->getElse() ? "if-else" : "if";
        R.Then = If->getThen();
        R.Else = If->getElse();
      } else if (auto *CO = dyn_cast<ConditionalOperator>(S)) {
        R.Info.Kind = "?:";
        R.Then = CO->getTrueExpr();
        R.Else = CO->getFalseExpr();
      } else {
        R.Info.Kind = "switch";
        R.Then = cast<SwitchStmt>(S)->getBody();
      }
      Out.Branches.push_back(R);
      continue;
    }
    LoopRecord R;
    R.S = S;
    R.Info.Line = Line;
    R.Info.Column = Col;
    R.Info.Function = Fn;
    Uniformity L = C.L;
    std::string Reason = explain(C.Why, C.L);
    auto EIt = ExitLevels.find(S);
    if (EIt != ExitLevels.end() && EIt->second.first > L) {
      L = EIt->second.first;
      const Cause *Jump = EIt->second.second;
      const Cause *Guard = Jump->Next;
      Reason = "the loop has " + Jump->Text;
      if (Guard) {
        Reason += " under " + Guard->Text;
        if (Guard->Next)
          Reason += ", where " + explain(Guard->Next, L);
      }
    }
    R.Info.Level = L;
    R.Info.Reason = Reason;
    if (auto *F = dyn_cast<ForStmt>(S)) {
      R.Info.Kind = "for";
      R.Body = F->getBody();
    } else if (auto *W = dyn_cast<WhileStmt>(S)) {
      R.Info.Kind = "while";
      R.Body = W->getBody();
    } else if (auto *D = dyn_cast<DoStmt>(S)) {
      R.Info.Kind = "do";
      R.Body = D->getBody();
    } else if (auto *RF = dyn_cast<CXXForRangeStmt>(S)) {
      R.Info.Kind = "for";
      R.Body = RF->getBody();
    }
    Out.Loops.push_back(R);
  }
}

} // namespace

Summary DivergenceAnalysis::Impl::analyze(const FunctionDecl *FD,
                                          const std::vector<Val> &Args,
                                          const BlockShape &Shape,
                                          FunctionVerdicts *Out) {
  ContextKey Key{FD, {}};
  for (const Val &A : Args)
    Key.Params.push_back(A.L);
  if (!Out) {
    auto It = Summaries.find(Key);
    if (It != Summaries.end())
      return It->second;
    if (InProgress.count(Key)) {
      // Recursion: assume the worst for the result.
      Summary S;
      S.Return = Val::divergent(cause({Cause::Source,
                                       "a recursive call to `" +
                                           FD->getNameAsString() + "`",
                                       nullptr, 0, nullptr}));
      S.ParamWrites.assign(FD->getNumParams(), S.Return);
      return S;
    }
  }
  InProgress.insert(Key);
  FunctionRun Run(*this, FD, Args, Shape);
  Summary S = Run.run();
  InProgress.erase(Key);
  if (Out) {
    Out->FD = FD;
    Run.collect(*Out);
    return S;
  }
  Summaries[Key] = S;
  // Join this context's verdicts into the device function's.
  FunctionVerdicts V;
  V.FD = FD;
  Run.collect(V);
  DeviceContexts[FD].insert(Key.Params);
  auto &Joined = DeviceVerdicts[FD];
  if (!Joined.FD) {
    Joined = V;
  } else {
    for (size_t I = 0; I < Joined.Branches.size() && I < V.Branches.size(); ++I)
      if (V.Branches[I].Info.Level > Joined.Branches[I].Info.Level)
        Joined.Branches[I].Info = V.Branches[I].Info;
    for (size_t I = 0; I < Joined.Loops.size() && I < V.Loops.size(); ++I)
      if (V.Loops[I].Info.Level > Joined.Loops[I].Info.Level)
        Joined.Loops[I].Info = V.Loops[I].Info;
  }
  Joined.Contexts = DeviceContexts[FD].size();
  return S;
}

DivergenceAnalysis::DivergenceAnalysis(ASTContext &Ctx)
    : P(std::make_unique<Impl>(Ctx)) {}
DivergenceAnalysis::~DivergenceAnalysis() = default;

FunctionVerdicts DivergenceAnalysis::analyzeKernel(const FunctionDecl *FD,
                                                   const BlockShape &Shape) {
  FunctionVerdicts Out;
  std::vector<Val> Args(FD->getNumParams()); // Kernel parameters: uniform.
  P->analyze(FD, Args, Shape, &Out);
  return Out;
}

std::vector<FunctionVerdicts> DivergenceAnalysis::deviceFunctions() const {
  std::vector<FunctionVerdicts> Out;
  for (auto &[FD, V] : P->DeviceVerdicts)
    Out.push_back(V);
  std::sort(Out.begin(), Out.end(),
            [&](const FunctionVerdicts &A, const FunctionVerdicts &B) {
              return P->SM.isBeforeInTranslationUnit(A.FD->getLocation(),
                                                     B.FD->getLocation());
            });
  return Out;
}

} // namespace warpwise
