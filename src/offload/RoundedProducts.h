//===- RoundedProducts.h - Kernel products nvcc cannot contract -*- C++ -*-===//
//
// `warpwise offload --fmad=false`: the OpenMP build on the host rounds every
// product before the add that uses it (x86-64 without -mfma has no fused
// multiply-add), nvcc contracts `a*b + c` into one FMA by default. Written
// as `__fmul_rn(a, b)` (`__dmul_rn` for double), a kernel's product is
// rounded on its own under any nvcc flags, so the kernel computes what the
// host computes. `x *= e` becomes `x = __fmul_rn(x, e)`. The functions the
// kernels call are compiled for both sides: theirs round through functions
// that are the intrinsics on the device and the plain product on the host.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_ROUNDED_PRODUCTS_H
#define WARPWISE_OFFLOAD_ROUNDED_PRODUCTS_H

#include "OffloadAst.h"

#include <string>
#include <vector>

namespace warpwise {
namespace offload {

/// One change of the body's text: [Begin, End) becomes Text.
struct TextEdit {
  unsigned Begin = 0, End = 0;
  std::string Text;
};

/// Why a product of \p Body cannot be written apart ("" when every one
/// can): one partly inside a macro's text, of a type other than float or
/// double, in an atomic update or a constant expression, or `x *= e` with
/// side effects.
std::string productProblem(const OffloadSource &Src, const clang::Stmt *Body);

/// The edits that round each floating-point product of \p Body on its own:
/// with the intrinsics in a kernel; in a function compiled for both sides
/// (\p HostAndDevice), with ww_omp_fmul and ww_omp_dmul (offload's run-time
/// support, src/runtime/offload/omp_rounded.cuh), which round on the device
/// and multiply as written on the host.
std::vector<TextEdit> roundedProducts(const OffloadSource &Src,
                                      const clang::Stmt *Body,
                                      bool HostAndDevice = false);

/// The comment an output gets where the functions kernels call have their
/// products rounded by ww_omp_fmul and ww_omp_dmul.
std::string productFunctionsNote();

/// Whether \p S holds a floating-point product (for the functions a kernel
/// calls, which keep nvcc's contraction).
bool hasFloatProduct(const clang::Stmt *S);

} // namespace offload
} // namespace warpwise

#endif
