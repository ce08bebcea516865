//===- FissionPlanner.h - Deciding loop fission -----------------*- C++ -*-===//
#ifndef WARPWISE_FISSION_PLANNER_H
#define WARPWISE_FISSION_PLANNER_H

#include "warpwise/Plan.h"

namespace clang {
class FunctionDecl;
}

namespace warpwise {

struct FissionCandidate {
  const clang::FunctionDecl *Kernel;
  unsigned Line;
  std::string File;    ///< Normalised path of the file the loop is in.
  unsigned Begin, End; ///< Byte range of the loop in that file.
  unsigned Loops;      ///< How many loops it becomes.
  /// Facts from outside the kernel the legality proof used (alias facts
  /// from the host), quoted in the remark; empty if none.
  std::string HostFacts;
  /// For a loop nest split as a whole, its inner loops split too ("inner
  /// loop at line 41"); empty for one loop.
  std::string Nest;
};

/// Applies a legal fission only when ptxas shows the kernel reaching a higher
/// occupancy step without new spills (issue #4: fission that crossed no step
/// lost 3-7% on an H100).
Decision planFission(const PlanContext &PC, const FissionCandidate &C,
                     const std::string &Replacement, const char *Transform);

} // namespace warpwise

#endif
