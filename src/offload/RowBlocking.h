//===- RowBlocking.h - Consecutive rows per thread for stencils -*- C++ -*-===//
//
// Part of offload's kernel planning. A 2-D stencil (`B[i][j] = c0 * A[i -
// 1][j] + c1 * A[i][j] + c2 * A[i + 1][j] ...`) loads each row of A three
// times, once for each output row that needs it. With a thread running two
// consecutive rows, nvcc keeps the rows they share in registers (the kernel's
// arrays are __restrict__): PolyBench's convolution-2d loads 12 values for two
// outputs instead of 18, and its kernel runs 0.054 ms instead of 0.075 ms in
// steady state on an H200, the suite's hand-written one 0.070 ms
// (docs/benchmarks.md). The rows per thread come from rules/offload.json.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_ROW_BLOCKING_H
#define WARPWISE_OFFLOAD_ROW_BLOCKING_H

#include "Directive.h"

namespace warpwise {
namespace offload {

/// rules/offload.json's stencil_rows_per_thread: 2, or 1 (off).
unsigned stencilRowsPerThread();

/// Sets \p P.RowsPerThread where \p P is a stencil of two grid levels: no
/// reduction, atomic update, loop or triangular level in it, and an array
/// read in one body at two or more rows `i + c` (c an integer constant,
/// i the outer level's variable).
void planRowBlocking(KernelPlan &P);

} // namespace offload
} // namespace warpwise

#endif
