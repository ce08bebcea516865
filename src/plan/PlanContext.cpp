//===- PlanContext.cpp - What a planner reads and asks --------------------===//
#include "warpwise/Plan.h"

namespace warpwise {

// The measurements are the transformation context's (Transform.h); this is
// PlanContext's one out-of-line member, the home of its vtable.
PlanContext::~PlanContext() = default;

} // namespace warpwise
