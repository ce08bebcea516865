//===- SideEffects.cpp - What evaluating an expression changes ------------===//
#include "SideEffects.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <set>
#include <string>

namespace warpwise {

using namespace clang;

bool isPureCallee(const FunctionDecl *F) {
  if (!F)
    return false;
  if (F->hasAttr<ConstAttr>() || F->hasAttr<PureAttr>())
    return true;
  if (F->getName().starts_with("__fetch_builtin"))
    return true; // threadIdx.x and friends.
  static const std::set<std::string> Pure = {
      "sqrtf",    "sqrt",       "rsqrtf",      "expf",
      "exp",      "exp2f",      "logf",        "log",
      "log2f",    "sinf",       "cosf",        "tanf",
      "sin",      "cos",        "powf",        "pow",
      "fabsf",    "fabs",       "floorf",      "floor",
      "ceilf",    "ceil",       "roundf",      "truncf",
      "fmaf",     "fma",        "fminf",       "fmaxf",
      "fmin",     "fmax",       "min",         "max",
      "abs",      "__expf",     "__logf",      "__sinf",
      "__cosf",   "__fdividef", "__saturatef", "__popc",
      "__clz",    "__ffs",      "__mul24",     "__float2int_rn",
      "copysignf"};
  return Pure.count(F->getNameAsString()) > 0;
}

bool hasEffects(const Stmt *S) {
  if (!S)
    return false;
  if (auto *B = dyn_cast<BinaryOperator>(S))
    if (B->isAssignmentOp())
      return true;
  if (auto *U = dyn_cast<UnaryOperator>(S))
    if (U->isIncrementDecrementOp())
      return true;
  if (auto *C = dyn_cast<CallExpr>(S))
    if (!isPureCallee(C->getDirectCallee()))
      return true;
  for (const Stmt *Child : S->children())
    if (hasEffects(Child))
      return true;
  return false;
}

} // namespace warpwise
