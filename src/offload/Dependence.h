//===- Dependence.h - Whether the iterations of a nest are apart -*- C++
//-*-===//
//
// The dependence test of offload: the iterations of the parallel loop(s) of
// a plan may run at once only when no two of them touch one element that
// either writes. The test reads the subscripts as written: every array the
// nest writes is accessed through full subscripts only, and each parallel
// loop variable owns one subscript position that is the same expression in
// every access (`a[i][j - 1]` and `a[i][j]` stay in row i), or the
// flattened `a[i * n + j]` with j running over [0, n). Atomic updates may
// touch any element. Anything else is a possible race or dependence, and
// the loop stays on the host with the reason.
//
// Seed 002's parallel loop swap asks the same of a nest with the inner loop
// made parallel too: trySwap interchanges a row-outer nest when every
// (i, j) iteration touches its own elements.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_DEPENDENCE_H
#define WARPWISE_OFFLOAD_DEPENDENCE_H

#include "Directive.h"

#include <string>

namespace warpwise {
namespace offload {

/// Whether the iterations of \p P's parallel levels touch separate
/// elements of every array the nest writes (P.Arrays with Written); false
/// with \p Why saying which access may race.
bool parallelIndependent(const OffloadSource &Src, const KernelPlan &P,
                         std::string &Why);

/// Whether every (\p I, \p J) iteration of the nest of \p P, \p Inner being
/// J's loop, touches its own elements of the arrays P writes (a[i][j],
/// a[i * E + j] with j in [0, E)); false with \p Why. With \p Ordered
/// (every iteration has j >= i, or every one j <= i), an array may also be
/// written at both a[i][j] and a[j][i]: covariance's symmetric result.
bool swapIndependent(const OffloadSource &Src, const KernelPlan &P,
                     const clang::VarDecl *I, const clang::VarDecl *J,
                     const LoopLevel &Inner, std::string &Why,
                     bool Ordered = false);

/// Seed 002's parallel loop swap of a one-level plan whose body is one
/// inner loop that runs along rows: the inner loop becomes the grid's x
/// (P.Levels gets it, P.Swapped) when swapIndependent; P.SwapNote says what
/// was done, or why a strided nest was not swapped.
void trySwap(const OffloadSource &Src, KernelPlan &P);

} // namespace offload
} // namespace warpwise

#endif
