//===- DivergenceExpr.cpp - Levels of expressions -------------------------===//
//
// FunctionRun's expressions: builtin variables (threadIdx, blockIdx, ...),
// the affine arithmetic that proves a warp index warp-uniform, calls (warp
// collectives, atomics, and __device__ functions through their summaries),
// loads, and assignments to variables, arrays and through parameters.
//
//===----------------------------------------------------------------------===//
#include "DivergenceFunction.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

namespace warpwise {
namespace divergence {

using namespace clang;

// --- Assignments ------------------------------------------------------------

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
    const Cause *W =
        P.cause({Cause::Source,
                 "`" + Name + "`, uniform within each warp because blockDim.x" +
                     std::string(Comp == "z" ? " * blockDim.y" : "") +
                     " is a multiple of 32 in " + Shape.Evidence,
                 nullptr, 0, nullptr});
    return Val::level(Uniformity::WarpUniform, W);
  }
  return Val::divergent(C);
}

// --- Arithmetic, operators and calls ----------------------------------------

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
      bool ShapeOK =
          Shape.Known && (Shape.OneDimensional || Shape.XMultipleOf32);
      std::string Expr =
          "a warp index (a multiple of 32 plus `threadIdx.x`, " +
          std::string(Op == BO_Div ? "divided by " : "shifted right by ") +
          std::to_string(Op == BO_Div ? *D : *B.Const) + ")";
      if (ShapeOK) {
        R = Val::level(Uniformity::WarpUniform,
                       P.cause({Cause::Source,
                                Expr + ", uniform within each warp because " +
                                    (Shape.OneDimensional
                                         ? "blocks are one-dimensional"
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
      return Val::divergent(
          Source("`" + Name + "` (line " + std::to_string(Line) + ")"));
    return Val::level(Uniformity::WarpUniform,
                      Source("`" + Name + "`, the same in every lane"));
  }
  if (N == "__syncthreads_count" || N == "__syncthreads_and" ||
      N == "__syncthreads_or")
    return Val::level(
        Uniformity::BlockUniform,
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
    return Val::divergent(
        Source("`" + Name + "` (line " + std::to_string(Line) + ")"));
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
          W.Why = P.cause(
              {Cause::Source,
               "a write by `" + Name + "` (line " + std::to_string(Line) + ")",
               nullptr, Line, nullptr});
        if (localArray(A) || isa<DeclRefExpr>(A) || isa<MemberExpr>(A))
          assign(A, W, C);
      }
      Val R = Sm.Return;
      if (R.L != Uniformity::Uniform && (!R.Why || R.Why->Text.empty()))
        R.Why = Source("the result of `" + Name + "`");
      else if (R.L != Uniformity::Uniform)
        R.Why = P.cause(
            {Cause::Source,
             "the result of `" + Name + "` (line " + std::to_string(Line) +
                 "), which " +
                 (R.Why->K == Cause::Source ? "depends on " + R.Why->Text
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

// --- Expressions by kind ----------------------------------------------------
//
// eval() dispatches on the kind of expression; each kind with more than a
// line of rules has its own function below.

Val FunctionRun::eval(const Expr *E) {
  if (!E)
    return Val();
  E = E->IgnoreParens();
  bool Matched;
  Val B = evalBuiltinVar(E, Matched);
  if (Matched)
    return B;
  if (std::optional<Val> Literal = evalLiteral(E))
    return *Literal;
  if (auto *Cast = dyn_cast<CastExpr>(E)) {
    Val V = eval(Cast->getSubExpr());
    QualType T = Cast->getType();
    if (!T->isIntegerType() && !T->isPointerType())
      V = opaque(V);
    return V;
  }
  if (auto *Ref = dyn_cast<DeclRefExpr>(E))
    return evalDeclRef(Ref);
  if (auto *A = dyn_cast<ArraySubscriptExpr>(E))
    return evalSubscript(A);
  if (auto *U = dyn_cast<UnaryOperator>(E))
    return evalUnary(U);
  if (auto *B = dyn_cast<BinaryOperator>(E))
    return evalBinary(B);
  if (auto *CO = dyn_cast<ConditionalOperator>(E))
    return evalConditional(CO);
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
  return evalParts(E);
}

/// Literals: integer, character and bool ones are known constants; the
/// others (floats, strings, nullptr, sizeof) are uniform but not affine.
/// Nothing when \p E is no literal.
std::optional<Val> FunctionRun::evalLiteral(const Expr *E) const {
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
  return std::nullopt;
}

/// A named value: a local variable's level so far (with the variable in
/// the cause chain), an enumerator's or warpSize's constant, a __shared__
/// variable (block-uniform), or a global (one value for the grid).
Val FunctionRun::evalDeclRef(const DeclRefExpr *Ref) {
  const ValueDecl *D = Ref->getDecl();
  if (auto *EC = dyn_cast<EnumConstantDecl>(D))
    return Val::constant(EC->getInitVal().getSExtValue());
  auto *Var = dyn_cast<VarDecl>(D);
  if (!Var)
    return Val();
  if (Var->getName() == "warpSize")
    return Val::constant(32);
  if (Var->hasLocalStorage()) {
    auto It = Vars.find(Var);
    Val V = It == Vars.end() ? Val() : It->second;
    if (V.L != Uniformity::Uniform) {
      Val R = V;
      R.Why = P.cause({Cause::Var, "", Var, P.line(Var->getLocation()), V.Why});
      return R;
    }
    return V;
  }
  if (Var->hasAttr<CUDASharedAttr>())
    return Val::level(
        Uniformity::BlockUniform,
        P.cause({Cause::Source,
                 "`__shared__` variable `" + Var->getNameAsString() + "`",
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

/// `a[i]`: an element of a local array is as uniform as the array and the
/// index; a load from memory is as uniform as its address.
Val FunctionRun::evalSubscript(const ArraySubscriptExpr *A) {
  Val Index = eval(A->getIdx());
  if (localArray(A->getBase())) {
    Val Elem = eval(A->getBase());
    Val R = combineLevels(Elem, Index);
    if (R.L != Uniformity::Uniform && Index.L >= Elem.L)
      R.Why = Index.Why;
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

/// ++/-- assign their operand; & of a variable is the same address in every
/// thread; unary minus keeps the affine facts, the others drop them.
Val FunctionRun::evalUnary(const UnaryOperator *U) {
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

/// `c ? t : f` is a branch of its own (recorded like an if, for the
/// report), and its arms are evaluated under its condition.
Val FunctionRun::evalConditional(const ConditionalOperator *CO) {
  Val Cond = eval(CO->getCond());
  recordCond(CO, Cond);
  if (Seen.insert(CO).second)
    Order.push_back(CO);
  Control.push_back({CO, Cond.L, Cond.Why, false, false});
  Val T = eval(CO->getTrueExpr());
  Val F = eval(CO->getFalseExpr());
  Control.pop_back();
  Val R = combineLevels(combineLevels(T, F), Cond);
  if (T.Const && F.Const && *T.Const == *F.Const &&
      Cond.L == Uniformity::Uniform)
    R.Const = T.Const;
  return R;
}

/// Everything else (constructors, init lists, lambdas, ...): as uniform as
/// its parts.
Val FunctionRun::evalParts(const Expr *E) {
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

} // namespace divergence
} // namespace warpwise
