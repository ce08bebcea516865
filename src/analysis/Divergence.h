//===- Divergence.h - Thread/warp/block/grid uniformity ---------*- C++ -*-===//
//
// An AST-level divergence analysis in the spirit of Sampaio et al. (seed 001):
// every value gets a level in the lattice uniform < block-uniform <
// warp-uniform < divergent, from data dependences (threadIdx, atomics, loads
// at divergent addresses, ...) and sync dependences (a variable assigned
// under a non-uniform branch, or in a loop with a non-uniform exit, and
// declared outside it). C's scoping tells which variables can be seen after a
// join: a variable declared inside a divergent region cannot, so assigning it
// there does not make it divergent.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DIVERGENCE_H
#define WARPWISE_DIVERGENCE_H

#include "warpwise/Analysis.h"

#include <map>
#include <memory>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace warpwise {

/// What the launches in the file prove about a kernel's block shape.
struct BlockShape {
  bool Known = false;          ///< Every launch has a constant block shape.
  bool OneDimensional = false; ///< blockDim.y == blockDim.z == 1 everywhere.
  bool XMultipleOf32 = false;  ///< blockDim.x % 32 == 0 everywhere.
  bool XYMultipleOf32 = false; ///< blockDim.x * blockDim.y % 32 == 0.
  std::string Evidence;        ///< "the 2 launches at lines 40, 52".
};

struct BranchRecord {
  const clang::Stmt *S = nullptr;
  const clang::Stmt *Then = nullptr, *Else = nullptr;
  BranchInfo Info;
};

struct LoopRecord {
  const clang::Stmt *S = nullptr;
  const clang::Stmt *Body = nullptr;
  LoopInfo Info;
};

struct FunctionVerdicts {
  const clang::FunctionDecl *FD = nullptr;
  std::vector<BranchRecord> Branches;
  std::vector<LoopRecord> Loops;
  /// Local variables, in declaration order.
  std::vector<VariableInfo> Variables;
  unsigned Contexts = 0;
};

class DivergenceAnalysis {
public:
  explicit DivergenceAnalysis(clang::ASTContext &Ctx);
  ~DivergenceAnalysis();

  /// Analyses kernel \p FD (parameters uniform) and the __device__ functions
  /// it calls; returns the kernel's own verdicts.
  FunctionVerdicts analyzeKernel(const clang::FunctionDecl *FD,
                                 const BlockShape &Shape);

  /// Verdicts of every __device__ function reached from the kernels analysed
  /// so far, joined over their calling contexts.
  std::vector<FunctionVerdicts> deviceFunctions() const;

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace warpwise

#endif
