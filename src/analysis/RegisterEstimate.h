//===- RegisterEstimate.h - Live-value register pressure --------*- C++ -*-===//
//
// A proxy for ptxas's register count: the peak, over the statements of a
// function, of the 32-bit registers needed by the variables live across the
// statement (Clang's CFG liveness) plus the temporaries of its expression.
// 64-bit values count 2; small local arrays are assumed to live in registers.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_REGISTER_ESTIMATE_H
#define WARPWISE_REGISTER_ESTIMATE_H

#include "warpwise/Analysis.h"

#include <memory>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace warpwise {

class RegisterEstimator {
public:
  RegisterEstimator(clang::ASTContext &Ctx, const clang::FunctionDecl *FD);
  ~RegisterEstimator();

  /// The whole function.
  RegionPressure whole() const;
  /// The statements inside \p Region (a branch side, a loop body).
  RegionPressure region(const clang::Stmt *Region) const;

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace warpwise

#endif
