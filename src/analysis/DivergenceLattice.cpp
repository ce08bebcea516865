//===- DivergenceLattice.cpp - Joins of values, causes in words -----------===//
#include "DivergenceLattice.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/StringRef.h"

#include <set>
#include <vector>

namespace warpwise {
namespace divergence {

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

Val opaque(Val V) {
  V.Linear = V.L <= Uniformity::BlockUniform;
  V.Coef = 0;
  V.Const.reset();
  V.BaseMul32 = false;
  return V;
}

Val combineLevels(const Val &A, const Val &B) {
  Val R;
  R.L = join(A.L, B.L);
  R.Why = B.L > A.L ? B.Why : A.Why;
  R.Linear = R.L <= Uniformity::BlockUniform;
  R.BaseMul32 = false;
  return R;
}

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

} // namespace divergence
} // namespace warpwise
