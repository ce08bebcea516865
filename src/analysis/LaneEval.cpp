//===- LaneEval.cpp - Integer expressions evaluated thread by thread ------===//
#include "LaneEval.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace warpwise {

using namespace clang;

std::optional<int64_t> integerConstantValue(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent() ||
      !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  return std::nullopt;
}

namespace {

/// `OP X` as the model computes it; nothing (and \p Why) for an operator
/// it does not evaluate.
std::optional<int64_t> applyUnary(UnaryOperatorKind Op, int64_t X,
                                  const char *&Why) {
  switch (Op) {
  case UO_Minus:
    return -X;
  case UO_Plus:
    return X;
  case UO_Not:
    return ~X;
  case UO_LNot:
    return X == 0;
  default:
    Why = "an operator";
    return std::nullopt;
  }
}

/// `X OP Y` as the model computes it (both operands evaluated); nothing
/// (and \p Why) for a division by zero or an operator it does not evaluate.
std::optional<int64_t> applyBinary(BinaryOperatorKind Op, bool Unsigned,
                                   int64_t X, int64_t Y, const char *&Why) {
  switch (Op) {
  case BO_Add:
    return X + Y;
  case BO_Sub:
    return X - Y;
  case BO_Mul:
    return X * Y;
  case BO_Div:
  case BO_Rem:
    if (!Y) {
      Why = "a division by zero";
      return std::nullopt;
    }
    if (Op == BO_Div)
      return Unsigned ? int64_t(uint64_t(X) / uint64_t(Y)) : X / Y;
    return Unsigned ? int64_t(uint64_t(X) % uint64_t(Y)) : X % Y;
  case BO_And:
    return X & Y;
  case BO_Or:
    return X | Y;
  case BO_Xor:
    return X ^ Y;
  case BO_Shl:
    return Y >= 0 && Y < 63 ? X << Y : 0;
  case BO_Shr:
    return Y >= 0 && Y < 63 ? X >> Y : 0;
  case BO_LT:
    return Unsigned ? uint64_t(X) < uint64_t(Y) : X < Y;
  case BO_GT:
    return Unsigned ? uint64_t(X) > uint64_t(Y) : X > Y;
  case BO_LE:
    return Unsigned ? uint64_t(X) <= uint64_t(Y) : X <= Y;
  case BO_GE:
    return Unsigned ? uint64_t(X) >= uint64_t(Y) : X >= Y;
  case BO_EQ:
    return X == Y;
  case BO_NE:
    return X != Y;
  case BO_LAnd:
    return X && Y;
  case BO_LOr:
    return X || Y;
  default:
    Why = "an operator";
    return std::nullopt;
  }
}

bool unsignedOperands(const BinaryOperator *B) {
  return B->getLHS()->getType()->isUnsignedIntegerType() ||
         B->getRHS()->getType()->isUnsignedIntegerType();
}

/// A local variable eval() reads through its initialiser: never written
/// after it, not a parameter, a reference or volatile.
bool readsInitialiser(const VarDecl *V,
                      const std::set<const VarDecl *> &Written) {
  return !isa<ParmVarDecl>(V) && V->getInit() && !Written.count(V) &&
         !V->getType()->isReferenceType() &&
         !V->getType().isVolatileQualified();
}

} // namespace

LaneEval::LaneEval(ASTContext &Ctx, const FunctionDecl *FD,
                   const FunctionDecl *Instance, unsigned Threads)
    : Ctx(Ctx), Instance(Instance), Threads(Threads) {
  Written = writtenVariables(FD->getBody());
}

std::optional<int64_t> LaneEval::fail(const std::string &Why) {
  if (Missing.empty())
    Missing = Why;
  return std::nullopt;
}

IntegerWrap LaneEval::wrapOf(QualType T) const {
  IntegerWrap W;
  if (T->isBooleanType()) {
    W.Boolean = true;
  } else if (T->isIntegerType() && !T->isDependentType()) {
    W.Bits = Ctx.getTypeSize(T);
    W.Signed = T->isSignedIntegerType();
  }
  return W;
}

int64_t IntegerWrap::operator()(int64_t V) const {
  if (Boolean)
    return V != 0;
  if (Bits < 64) {
    uint64_t Mask = (uint64_t(1) << Bits) - 1;
    uint64_t U = uint64_t(V) & Mask;
    if (Signed && (U >> (Bits - 1)))
      return int64_t(U | ~Mask);
    return int64_t(U);
  }
  return V;
}

std::optional<int64_t> LaneEval::eval(const Expr *E, unsigned Depth) {
  if (Depth > 32)
    return fail("nested too deeply");
  std::optional<int64_t> V = evalRaw(E, Depth);
  if (!V)
    return V;
  // Wrap to the expression's type, as the program computes it.
  return wrapOf(E->getType())(*V);
}

std::optional<int64_t> LaneEval::evalVariable(const DeclRefExpr *R,
                                              unsigned Depth) {
  if (auto *P = dyn_cast<NonTypeTemplateParmDecl>(R->getDecl())) {
    const TemplateArgumentList *Args =
        Instance ? Instance->getTemplateSpecializationArgs() : nullptr;
    if (Args && P->getDepth() == 0 && P->getIndex() < Args->size() &&
        (*Args)[P->getIndex()].getKind() == TemplateArgument::Integral)
      return (*Args)[P->getIndex()].getAsIntegral().getExtValue();
    return fail("template parameter `" + P->getNameAsString() + "`");
  }
  if (auto *EC = dyn_cast<EnumConstantDecl>(R->getDecl()))
    return EC->getInitVal().getExtValue();
  auto *V = dyn_cast<VarDecl>(R->getDecl());
  if (!V)
    return fail("`" + R->getNameInfo().getAsString() + "`");
  auto It = Env.find(V);
  if (It != Env.end())
    return It->second;
  if (readsInitialiser(V, Written))
    return eval(V->getInit(), Depth + 1);
  if (auto K = integerConstantValue(Ctx, R))
    return K;
  return fail("`" + V->getNameAsString() + "`");
}

std::optional<int64_t> LaneEval::evalRaw(const Expr *E, unsigned Depth) {
  E = E->IgnoreParens();
  std::string Obj, Comp;
  if (builtinVariable(E, Obj, Comp)) {
    if (Obj == "threadIdx" && Comp == "x") {
      if (Lane < 0)
        return fail("`threadIdx.x`");
      return Lane;
    }
    if (Obj == "threadIdx")
      return 0; // One-dimensional blocks.
    if (Obj == "blockDim" && Comp == "x")
      return Threads;
    if (Obj == "blockDim")
      return 1;
    if (Obj == "blockIdx" && Comp == "x")
      return Block;
    if (Obj == "blockIdx")
      return 0;
    return fail("`" + Obj + "." + Comp + "`");
  }
  if (auto *C = dyn_cast<CastExpr>(E))
    return eval(C->getSubExpr(), Depth + 1);
  if (auto *IL = dyn_cast<IntegerLiteral>(E))
    return IL->getValue().getSExtValue();
  if (auto *BL = dyn_cast<CXXBoolLiteralExpr>(E))
    return BL->getValue() ? 1 : 0;
  if (auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return eval(S->getReplacement(), Depth + 1);
  if (auto *R = dyn_cast<DeclRefExpr>(E))
    return evalVariable(R, Depth);
  const char *Why = nullptr;
  if (auto *U = dyn_cast<UnaryOperator>(E)) {
    auto A = eval(U->getSubExpr(), Depth + 1);
    if (!A)
      return A;
    if (auto V = applyUnary(U->getOpcode(), *A, Why))
      return V;
    return fail(Why);
  }
  if (auto *CO = dyn_cast<ConditionalOperator>(E)) {
    auto Cnd = eval(CO->getCond(), Depth + 1);
    if (!Cnd)
      return Cnd;
    return eval(*Cnd ? CO->getTrueExpr() : CO->getFalseExpr(), Depth + 1);
  }
  if (auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->isAssignmentOp() || B->getOpcode() == BO_Comma)
      return fail("an assignment");
    auto A = eval(B->getLHS(), Depth + 1);
    if (!A)
      return A;
    if (B->getOpcode() == BO_LAnd && !*A)
      return 0;
    if (B->getOpcode() == BO_LOr && *A)
      return 1;
    auto C = eval(B->getRHS(), Depth + 1);
    if (!C)
      return C;
    if (auto V = applyBinary(B->getOpcode(), unsignedOperands(B), *A, *C, Why))
      return V;
    return fail(Why);
  }
  if (auto K = integerConstantValue(Ctx, E))
    return K;
  if (isa<CallExpr>(E))
    return fail("a call");
  if (isa<ArraySubscriptExpr>(E) ||
      (isa<UnaryOperator>(E) &&
       cast<UnaryOperator>(E)->getOpcode() == UO_Deref))
    return fail("a value read from memory");
  return fail("an expression the model does not evaluate");
}

// --- Every thread at once ---------------------------------------------------

std::optional<LaneValues> LaneEval::evalLanes(const Expr *E, unsigned Depth) {
  // A value no thread index reaches is every thread's: eval() takes the same
  // path in each of them. Missing is not this question's to set.
  std::string SavedMissing = Missing;
  int64_t SavedLane = Lane;
  Lane = -1;
  std::optional<int64_t> Uniform = eval(E, Depth);
  Lane = SavedLane;
  Missing = SavedMissing;
  if (Uniform)
    return LaneValues{Uniform, {}};
  if (Depth > 32)
    return std::nullopt;
  std::optional<LaneValues> V = lanesRaw(E, Depth);
  if (!V)
    return V;
  IntegerWrap Wrap = wrapOf(E->getType());
  if (V->Uniform)
    V->Uniform = Wrap(*V->Uniform);
  for (int64_t &X : V->PerLane)
    X = Wrap(X);
  return V;
}

std::optional<LaneValues> LaneEval::lanesRaw(const Expr *E, unsigned Depth) {
  E = E->IgnoreParens();
  std::string Obj, Comp;
  if (builtinVariable(E, Obj, Comp)) {
    if (Obj != "threadIdx" || Comp != "x")
      return std::nullopt; // The others are uniform: answered, or failed.
    LaneValues V;
    V.PerLane.resize(Threads);
    for (unsigned T = 0; T < Threads; ++T)
      V.PerLane[T] = T;
    return V;
  }
  if (auto *C = dyn_cast<CastExpr>(E))
    return evalLanes(C->getSubExpr(), Depth + 1);
  if (auto *S = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return evalLanes(S->getReplacement(), Depth + 1);
  if (auto *R = dyn_cast<DeclRefExpr>(E)) {
    // Only a variable read through its initialiser can depend on the
    // thread; every other name eval() answers is uniform.
    auto *V = dyn_cast<VarDecl>(R->getDecl());
    if (V && !Env.count(V) && readsInitialiser(V, Written))
      return evalLanes(V->getInit(), Depth + 1);
    return std::nullopt;
  }
  return lanesOperator(E, Depth);
}

std::optional<LaneValues> LaneEval::lanesOperator(const Expr *E,
                                                  unsigned Depth) {
  const char *Why = nullptr;
  if (auto *U = dyn_cast<UnaryOperator>(E)) {
    auto A = evalLanes(U->getSubExpr(), Depth + 1);
    if (!A)
      return A;
    LaneValues Out;
    if (A->Uniform) {
      Out.Uniform = applyUnary(U->getOpcode(), *A->Uniform, Why);
      return Out.Uniform ? std::optional<LaneValues>(Out) : std::nullopt;
    }
    Out.PerLane.resize(Threads);
    for (unsigned T = 0; T < Threads; ++T) {
      auto V = applyUnary(U->getOpcode(), A->PerLane[T], Why);
      if (!V)
        return std::nullopt;
      Out.PerLane[T] = *V;
    }
    return Out;
  }
  std::optional<LaneValues> Cnd, A, B;
  auto *CO = dyn_cast<ConditionalOperator>(E);
  auto *BO = dyn_cast<BinaryOperator>(E);
  if (CO) {
    if (!(Cnd = evalLanes(CO->getCond(), Depth + 1)))
      return std::nullopt;
    // Each thread evaluates only the arm it takes; both are asked here, so
    // an arm that fails in some thread sends the caller thread by thread.
    if (!(A = evalLanes(CO->getTrueExpr(), Depth + 1)) ||
        !(B = evalLanes(CO->getFalseExpr(), Depth + 1)))
      return std::nullopt;
  } else if (BO && !BO->isAssignmentOp() && BO->getOpcode() != BO_Comma) {
    // Likewise the right of `&&` and `||`: with both sides evaluated in
    // every thread, `X && Y` is what the short circuit gives.
    if (!(A = evalLanes(BO->getLHS(), Depth + 1)) ||
        !(B = evalLanes(BO->getRHS(), Depth + 1)))
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  LaneValues Out;
  Out.PerLane.resize(Threads);
  for (unsigned T = 0; T < Threads; ++T) {
    if (CO) {
      Out.PerLane[T] = Cnd->at(T) ? A->at(T) : B->at(T);
      continue;
    }
    auto V = applyBinary(BO->getOpcode(), unsignedOperands(BO), A->at(T),
                         B->at(T), Why);
    if (!V)
      return std::nullopt;
    Out.PerLane[T] = *V;
  }
  return Out;
}

} // namespace warpwise
