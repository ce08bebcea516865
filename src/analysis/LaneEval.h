//===- LaneEval.h - Integer expressions evaluated thread by thread -*- C++
//-*-===//
//
// The execution model asks, for a branch, which threads of a block reach it
// and which way each goes (warpMixing, guardPacking): it evaluates the
// branch's condition and the conditions around it for every thread, at every
// iteration of the loops around it. LaneEval is that evaluator.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_ANALYSIS_LANEEVAL_H
#define WARPWISE_ANALYSIS_LANEEVAL_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpwise {

/// The value of \p E when clang can fold it to an integer constant.
std::optional<int64_t> integerConstantValue(clang::ASTContext &Ctx,
                                            const clang::Expr *E);

/// Every thread's value of one expression: one value where all agree.
struct LaneValues {
  std::optional<int64_t> Uniform;
  std::vector<int64_t> PerLane; ///< Used when Uniform is empty.
  int64_t at(size_t Lane) const { return Uniform ? *Uniform : PerLane[Lane]; }
};

/// A value as a variable of an integer type holds it (64-bit arithmetic
/// wrapped to the type's width and signedness; a bool is 0 or 1).
struct IntegerWrap {
  bool Boolean = false;
  unsigned Bits = 64;
  bool Signed = false;
  int64_t operator()(int64_t V) const;
};

/// Thread-by-thread evaluation of integer expressions of a kernel's body
/// (threadIdx.x is the lane, blockIdx.x the block, blockDim.x the block
/// size; the other dimensions are 1 wide).
class LaneEval {
public:
  LaneEval(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
           const clang::FunctionDecl *Instance, unsigned Threads);

  std::map<const clang::VarDecl *, int64_t> Env; ///< Loop variables.
  int64_t Lane = -1;   ///< threadIdx.x; -1 while evaluating uniform values.
  int64_t Block = 0;   ///< blockIdx.x.
  std::string Missing; ///< What stopped the first failed evaluation.

  /// \p E's value in thread Lane (or a value no thread's index changes,
  /// when Lane is -1), wrapped to \p E's type as the program computes it.
  std::optional<int64_t> eval(const clang::Expr *E, unsigned Depth = 0);

  /// \p E's value in every thread of the block at once, or nothing where
  /// some thread's eval() would fail (the caller then goes thread by
  /// thread, which says why). Where it answers, it gives what eval() gives
  /// in each thread: the parts no thread index reaches are evaluated once,
  /// the rest element by element, and a part a thread would skip (the right
  /// of `&&`, a `?:` arm) answers only if it evaluates in every thread.
  /// Leaves Lane and Missing as they were.
  std::optional<LaneValues> evalLanes(const clang::Expr *E, unsigned Depth = 0);

private:
  std::optional<int64_t> fail(const std::string &Why);
  std::optional<int64_t> evalRaw(const clang::Expr *E, unsigned Depth);
  std::optional<int64_t> evalVariable(const clang::DeclRefExpr *R,
                                      unsigned Depth);
  std::optional<LaneValues> lanesRaw(const clang::Expr *E, unsigned Depth);
  std::optional<LaneValues> lanesOperator(const clang::Expr *E, unsigned Depth);
  IntegerWrap wrapOf(clang::QualType T) const;

  clang::ASTContext &Ctx;
  const clang::FunctionDecl *Instance;
  unsigned Threads;
  std::set<const clang::VarDecl *> Written;
};

} // namespace warpwise

#endif
