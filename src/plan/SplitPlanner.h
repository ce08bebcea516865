//===- SplitPlanner.h - Deciding branch splitting ---------------*- C++ -*-===//
#ifndef WARPWISE_SPLIT_PLANNER_H
#define WARPWISE_SPLIT_PLANNER_H

#include "../transform/SplitCandidate.h"
#include "../transform/SplitSettings.h"

namespace warpwise {

/// Which form, if any, to apply to \p C. The adaptive form by default where
/// it applies and pays (the heavy side costs an occupancy step and which
/// threads take it is run-time data); the literal form where CF'09 measured
/// it paying (old architectures), with the CF'09 formula on ptxas's
/// registers; the compact form on request; any form \p S forces.
Decision planSplit(TransformContext &TC, const SplitCandidate &C,
                   const SplitSettings &S, const char *Transform);

} // namespace warpwise

#endif
