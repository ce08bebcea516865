//===- DivergenceLattice.h - Values and causes of the divergence analysis -===//
//
// The abstract value the divergence analysis gives every expression: a level
// in the lattice uniform < block-uniform < warp-uniform < divergent, the
// affine facts that let `(base + threadIdx.x) / 32` be proven warp-uniform,
// and the cause chain that the remarks spell out ("`k` depends on
// `threadIdx.x` through `tid`"). Internal to the analysis: the per-function
// evaluator (DivergenceFunction.h) and the kernel-level driver
// (Divergence.cpp) share it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DIVERGENCE_LATTICE_H
#define WARPWISE_DIVERGENCE_LATTICE_H

#include "warpwise/Analysis.h"

#include <optional>
#include <string>

namespace clang {
class VarDecl;
} // namespace clang

namespace warpwise {
namespace divergence {

inline Uniformity join(Uniformity A, Uniformity B) { return A > B ? A : B; }

/// Why a value has its level: a builtin, an atomic, a variable (whose own
/// cause follows), or the branch a variable was assigned under.
struct Cause {
  enum Kind { Source, Var, Control } K = Source;
  std::string Text; ///< "`threadIdx.x`", "the divergent `if` at line 12".
  const clang::VarDecl *V = nullptr;
  unsigned Line = 0;
  const Cause *Next = nullptr; ///< For Var: the variable's own cause.
};

/// The abstract value of an expression.
struct Val {
  Uniformity L = Uniformity::Uniform;
  /// Value = Base + Coef * threadIdx.x with Base at most block-uniform.
  bool Linear = true;
  long Coef = 0;
  bool BaseMul32 = true;     ///< Base is a multiple of 32.
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
Val joinVals(const Val &A, const Val &B);

/// \p V's level and cause, without the affine facts: the value is not a
/// known linear function of the thread index any more (a load, a cast to a
/// non-integer, a member).
Val opaque(Val V);

/// Max of the operands' levels, the cause of the strongest one.
Val combineLevels(const Val &A, const Val &B);

/// The cause chain \p C of a value at level \p L, in words: "`k` (line 38)
/// depends on `threadIdx.x` through `tid` (line 30)".
std::string explain(const Cause *C, Uniformity L);

} // namespace divergence
} // namespace warpwise

#endif
