//===- offload.cuh - warpwise offload's run-time support, API 1 -*- CUDA -*-===//
//
// What the files `warpwise offload` writes call at run time: the CUDA error
// check around each call and the optional kernel timing
// (-DWARPWISE_OFFLOAD_TIMING) (omp_support.cuh: also the disjointness test of
// two host ranges, the grid size and the block reduction with its
// operators), and --fmad=false's rounded products (omp_rounded.cuh).
// warpwise writes this header, with its parts inlined, as
// warpwise_offload.cuh beside each output with an offloaded loop, and the
// output includes it with one line:
//
//   #include "warpwise_offload.cuh"
//
// Outputs use only the names below, all beginning with ww_omp_ or WW_OMP_. A
// later warpwise keeps them working (it may change what is behind them), so
// that an output never needs to change when the support does; a different
// API would get new names, and WARPWISE_OFFLOAD_API says which this header
// provides. tests/runtime/omp_support_test.cu compiles it with nvcc and runs
// it on the CPU executor.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_CUH
#define WARPWISE_OFFLOAD_CUH

/// The API version: WW_OMP_CHECK, WW_OMP_TIME_BEGIN, WW_OMP_TIME_END,
/// ww_omp_disjoint, ww_omp_blocks, ww_omp_block_reduce with ww_omp_plus,
/// ww_omp_times, ww_omp_min and ww_omp_max, ww_omp_fmul and ww_omp_dmul.
#define WARPWISE_OFFLOAD_API 1

#include "omp_support.cuh"
#include "omp_rounded.cuh"

#endif // WARPWISE_OFFLOAD_CUH
