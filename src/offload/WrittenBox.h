//===- WrittenBox.h - The box of an array a kernel writes -----*- C++ -*-===//
//
// Part of offload's data planner. A stencil writes the inside of its output
// (`for (i = 1; i < n - 1; i++) for (j = 1; j < m - 1; j++) B[i][j] = ...`):
// the border keeps the host's values, so the whole array went to the device
// only so that it could come back unchanged. Where a kernel writes every
// element of a box and touches no element outside it, the region copies
// out just the box and copies nothing in (DataRegions.cpp decides, the
// emitter copies the box that the launch ran over).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_WRITTEN_BOX_H
#define WARPWISE_OFFLOAD_WRITTEN_BOX_H

#include "Directive.h"

namespace warpwise {
namespace offload {

/// Sets WrittenBox of \p P's arrays (of one or two dimensions) where:
/// - one store `a[x][y] = e` (e not reading a), at the top of the body or
///   of an inner loop at the top of the body, comes before any other
///   mention of a; each subscript is the variable of a grid level or of
///   such an inner loop, each used once, every loop with a unit step
///   upwards (`<` or `<=`), a grid level not run over a hull;
/// - every other mention of a is an element with the same subscripts,
///   inside the same inner loops (so, within the box);
/// - the bounds of those inner loops are integer arithmetic on integer
///   variables declared before the directive and not written in it, so
///   that the host computes the same box at the launch.
void proveWrittenBoxes(const OffloadSource &Src, KernelPlan &P);

} // namespace offload
} // namespace warpwise

#endif
