//===- RefillPlanner.h - Deciding the work refill ---------------*- C++ -*-===//
#ifndef WARPWISE_REFILL_PLANNER_H
#define WARPWISE_REFILL_PLANNER_H

#include "warpwise/Plan.h"

#include "clang/Tooling/Core/Replacement.h"

namespace clang {
class FunctionDecl;
class Stmt;
} // namespace clang

namespace warpwise {

/// A kernel whose item loop may be refilled, with the edits that do it (the
/// legality checks have passed).
struct RefillCandidate {
  const clang::FunctionDecl *FD = nullptr;
  const clang::Stmt *Loop = nullptr;
  std::string Where; ///< "the while loop at line 21 of `dec2zero`".
  std::string Proof; ///< What the legality checks established.
  /// Why the trip count is data-dependent ("its condition loads `v[x]`"),
  /// or "" when the loop's lanes differ only through the item index.
  std::string DataDependence;
  /// What the loop's body steps by constants, when that is all it does and
  /// its condition tests it (`v[x]--` of `while (v[x] > 0)`); "" otherwise.
  std::string StepsOnly;
  /// The divergence analysis' verdict on the loop's exit.
  bool Divergent = false;
  std::string NewKernel; ///< `<k>_ww_refill`.
  /// Whether the launches time the refill against the original and run the
  /// faster (the measured dispatch is among the transformations run, and
  /// nothing disables it for this kernel).
  bool Measured = false;
  std::vector<clang::tooling::Replacement> Edits;
};

/// The iterations an active lane of \p Loop's refill kernel runs between
/// two rounds of the warp's bookkeeping: rules/refill.json's chunk_work over
/// the loop's cost per iteration (its operators, calls counted as call_cost),
/// rounded to a power of two within [chunk_min, chunk_max]. Cheap bodies get
/// long chunks, which spread the bookkeeping's cost; costly ones short
/// chunks, which leave a lane whose item ends inside one idle for less.
unsigned refillChunk(const clang::Stmt *Loop);

/// The fewest idle lanes (done with their item, more items left) for which a
/// warp takes items from the counter while others are still busy
/// (rules/refill.json min_idle_lanes): fewer wait a chunk more, so that the
/// counter's atomicAdd and the new items' prologues serve several lanes.
unsigned refillMinIdleLanes();

/// Profitability: forced, applied after the contraction check alone;
/// otherwise the loop must be divergent with a data-dependent trip count,
/// and ptxas's registers for the refill kernel must keep the original's
/// occupancy (within rules/refill.json's allowance) at every launch block
/// size. The reason states the warp-utilisation model.
Decision planRefill(const PlanContext &PC,
                    const std::vector<clang::tooling::Replacement> &Applied,
                    const RefillCandidate &C,
                    const char *Transform);

} // namespace warpwise

#endif
