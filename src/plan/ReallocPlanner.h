//===- ReallocPlanner.h - Deciding thread reallocation ----------*- C++ -*-===//
#ifndef WARPWISE_REALLOC_PLANNER_H
#define WARPWISE_REALLOC_PLANNER_H

#include "warpwise/Plan.h"

#include "clang/Tooling/Core/Replacement.h"

namespace clang {
class IfStmt;
class FunctionDecl;
} // namespace clang

namespace warpwise {

/// A partner guard whose threads may be packed, with the edits that do it
/// (the legality checks have passed).
struct ReallocCandidate {
  const clang::IfStmt *If = nullptr;
  const clang::FunctionDecl *FD = nullptr;
  std::string Where; ///< "the partner guard `ixj > tid` at line 43".
  std::string Proof; ///< What the legality checks established.
  std::vector<clang::tooling::Replacement> Edits;
};

/// Profitability of packing one partner guard: the execution model counts
/// the warps that issue the guarded work before and after, per template
/// instantiation and launch block size; ptxas guards occupancy and spills.
Decision planRealloc(const PlanContext &PC, const ReallocCandidate &C,
                     const char *Transform);

} // namespace warpwise

#endif
