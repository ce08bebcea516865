//===- IfConvert.h - Branch-free form with speculated stores ----*- C++ -*-===//
//
// The branch-free form of a divergent branch tree whose leaves only store
// (issue #14, item 2): every condition is evaluated once, and each stored
// location gets one unconditional store of the value it ends up with:
//
//   if (d) { if (p) swap(s[i], s[j]); } else { if (q) swap(s[i], s[j]); }
//   =>  bool c0 = d, c1 = p, c2 = q;  auto o0 = s[i], o1 = s[j];
//       s[i] = c0 ? (c1 ? o1 : o0) : (c2 ? o1 : o0);   (and s[j] alike)
//
// A store the original did not make writes back the value the location
// holds. That is only the same program when nothing else could write the
// location meanwhile: each location must be one the same thread already
// reads in the same barrier interval, under the same guard (so a racing
// writer would already make the original racy), with no volatile or atomic
// access, and every path that stores must store the same locations in the
// same order (so two locations that turn out to be one are harmless).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_IF_CONVERT_H
#define WARPWISE_IF_CONVERT_H

#include "../plan/MergeOutcome.h"
#include "warpwise/Costs.h"

#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class IfStmt;
} // namespace clang

namespace warpwise {

SpeculationOutcome speculateStores(clang::ASTContext &Ctx,
                                   const clang::FunctionDecl *FD,
                                   const clang::IfStmt *If,
                                   const CostTable &Costs);

} // namespace warpwise

#endif
