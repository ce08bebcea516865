//===- KernelEmitter.h - The CUDA text of offloaded loops -------*- C++ -*-===//
//
// The kernel emitter of offload: every piece of CUDA text the translation
// writes comes from here. A plan becomes a __global__ kernel (one thread per
// iteration, grid-stride, the body copied with its atomic updates made
// CUDA's, a block reduction per reduction variable) and a launch block (the
// iteration counts from the bounds, the grid, the partials combined on the
// host); a data region becomes its prologue (cudaMalloc, copies in) and
// epilogue (copies out, cudaFree), guarded by an overlap check where its
// arrays are not proven separate. The run-time support the outputs need
// (WW_OMP_CHECK, the block reduction, ...) is src/runtime/offload, which
// warpwise writes beside each output as warpwise_offload.cuh; the preamble
// includes it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_KERNEL_EMITTER_H
#define WARPWISE_OFFLOAD_KERNEL_EMITTER_H

#include "DataRegions.h"

#include "clang/AST/PrettyPrinter.h"

#include <memory>
#include <string>

namespace warpwise {
namespace offload {

class KernelEmitter {
public:
  /// \p BlockSize: the threads per block of a one-dimensional loop;
  /// \p RoundProducts: each floating-point product of a kernel body
  /// rounded on its own (--fmad=false, RoundedProducts.h).
  KernelEmitter(const OffloadSource &Src, unsigned BlockSize,
                bool RoundProducts = false);

  /// The head of an output with kernels: its comment, the line that
  /// includes the run-time support (and for a C input, `restrict` as CUDA
  /// spells it).
  static std::string preamble(bool IsC);

  /// The __global__ kernel of \p P, with a comment naming its pragma.
  std::string kernelText(const KernelPlan &P) const;
  /// The block that replaces \p P's loop: the iteration counts, the launch,
  /// the reductions' partials combined on the host; for a region inside
  /// the block (Region::InsideBlock), its data too.
  std::string launchText(const KernelPlan &P, const Region &R) const;
  /// Device copies of \p R's arrays and partials, and the copies in.
  std::string prologue(const Region &R) const;
  /// The copies out and the frees of \p R.
  std::string epilogue(const Region &R) const;
  /// Before a region's first statement (not InsideBlock): its comment, the
  /// overlap check, the prologue.
  std::string regionHead(const Region &R) const;
  /// After its last statement: the epilogue, and the host path where the
  /// arrays overlap.
  std::string regionTail(const Region &R) const;
  /// `const size_t ww_extent_a = ...;`, kept right after a's malloc.
  std::string extentCapture(const MappedArray &A) const;
  /// After a host buffer swap: the device copies swap as well.
  std::string deviceSwap(const Region &R, const SwapTriple &T) const;

  /// \p T printed as the program spells it (with \p Name declared).
  std::string typeText(clang::QualType T, llvm::StringRef Name = "") const;
  /// \p V's type as declared (with \p Name), through the one macro that
  /// spells it where one does (`DATA_TYPE alpha`); qualifiers dropped
  /// unless \p KeepQualifiers.
  std::string varTypeText(const clang::VarDecl *V, llvm::StringRef Name = "",
                          bool KeepQualifiers = false) const;
  /// `ww_d1_a`: \p V's device copy in region \p R.
  static std::string deviceName(const Region &R, const clang::VarDecl *V);

private:
  /// `double (*a)[N]`: the device copy's pointer type with \p Name, its
  /// inner dimensions spelled as the program spells them.
  /// A triangular level's hull bound in host code: `(From) + Offset`.
  std::string hullText(const clang::Expr *From, long long Offset) const;
  std::string pointerText(const MappedArray &A, llvm::StringRef Name) const;
  /// The thread-index type of a level: 64-bit for a 64-bit loop variable.
  std::string counterType(const LoopLevel &L) const;
  /// The kernel's parameters: arrays, values, the levels' bounds, partials.
  std::vector<std::string> kernelParams(const KernelPlan &P) const;
  /// \p P's body as the kernel runs it: atomic updates made CUDA's, inner
  /// `omp simd` pragmas commented out.
  std::string kernelBody(const KernelPlan &P) const;
  /// For a loop whose variable or comparison is unsigned: the variable's
  /// type as C spells it, which its bounds are converted to; else "".
  std::string boundType(const LoopLevel &L) const;
  /// ww_lbK, ww_ubK, ww_stK and the iteration count ww_nK of each level.
  std::string iterationCounts(const KernelPlan &P, std::string &Cond) const;
  /// The block and grid of \p P's launch.
  std::string gridText(const KernelPlan &P) const;
  /// The launch's arguments, as kernelParams lists them.
  std::vector<std::string> launchArgs(const KernelPlan &P,
                                      const Region &R) const;
  /// After \p P's launch: the box each array it alone writes (Region::Boxes)
  /// was written over, in `<device name>_box`.
  std::string boxAssignments(const KernelPlan &P, const Region &R) const;
  /// The copy back of that box of \p A (device copy \p D), if not empty.
  std::string boxCopyOut(const MappedArray &A, const std::string &D) const;
  std::string boxCopyOut3D(const MappedArray &A, const std::string &D) const;
  /// Before \p P's launch: the copy in of an array whose box is read back
  /// (MappedArray::BoxReads) where a read may fall outside the box.
  std::string boxCopyIn(const KernelPlan &P, const Region &R) const;
  /// How many times \p R copies \p A across (in, out), 0-2, for the page
  /// lock: 0 where its size is known here and too small to gain.
  unsigned copiesOf(const Region &R, const MappedArray &A) const;
  /// rules/offload.json's pin_min_copied_bytes: an array whose copies of a
  /// region move at least this many bytes is page-locked around them.
  static unsigned long long pinMinCopiedBytes();
  /// The run-time check that \p R's arrays not proven separate are apart.
  std::string aliasCondition(const Region &R) const;
  /// The region as the input has it, pragmas included: what runs on the
  /// host when its arrays overlap.
  std::string fallbackText(const Region &R) const;

  const OffloadSource &Src;
  clang::ASTContext &Ctx;
  unsigned BlockSize;
  bool RoundProducts;
  std::unique_ptr<clang::PrintingPolicy> Policy;
};

} // namespace offload
} // namespace warpwise

#endif
