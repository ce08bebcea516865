//===- RefillShape.h - A kernel's item loop, as the refill reads it -*- C++ -*-===//
//
// What the work refill's matching (WorkRefill.cpp) finds in a kernel and its
// text generation (RefillText.cpp) writes the refill kernel and launches from.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_REFILL_SHAPE_H
#define WARPWISE_REFILL_SHAPE_H

#include "SplitLaunch.h"

#include "warpwise/Transform.h"

#include <string>
#include <vector>

namespace clang {
class CompoundStmt;
class DeclStmt;
class Expr;
class FunctionDecl;
class IfStmt;
class Stmt;
class VarDecl;
} // namespace clang

namespace warpwise {

/// `[pre] T i = blockIdx.x * blockDim.x + threadIdx.x; [between]
/// if (i < n) { prologue; loop; epilogue }` or the same with
/// `if (i >= n) return;` and the rest of the body, or with no guard.
struct RefillShape {
  const clang::FunctionDecl *FD = nullptr;
  const clang::CompoundStmt *Body = nullptr;
  const clang::DeclStmt *ItemDecl = nullptr;
  const clang::VarDecl *Item = nullptr;
  const clang::IfStmt *Guard = nullptr; ///< Null: every item is in range.
  bool GuardReturns = false;            ///< `if (i >= n) return;`.
  const clang::Expr *Bound = nullptr;   ///< `n` of `i < n`.
  /// Run once per thread, before the item: declarations that do not depend
  /// on the item.
  std::vector<const clang::Stmt *> Pre;
  /// Run per item before the loop (declarations hoisted), the loop, and
  /// after it.
  std::vector<const clang::Stmt *> Prologue, Epilogue;
  const clang::Stmt *Loop = nullptr;
  const LoopInfo *Verdict = nullptr;
};

/// The texts the rewrite is made of, filled by refillKernelText.
struct RefillText {
  std::string Kernel;  ///< `<k>_ww_refill`'s definition.
  std::string Problem; ///< Why the text cannot be written, or "".
};

/// The definition of `<k>_ww_refill` (named \p NewName) for \p S, or why it
/// cannot be written (a declaration that cannot be hoisted, a macro).
RefillText refillKernelText(const TransformContext &TC, const RefillShape &S,
                            const std::string &NewName);

/// The launch \p L as the host's choice between the refill kernel and the
/// original, braced; \p Tag is the decision's name for its comment. With
/// \p Measured, the measured dispatch times the two and picks (the
/// original whenever it picks version 0).
std::string refillLaunch(llvm::StringRef MainText, const LaunchSite &L,
                         const std::string &Tag, bool Measured);

} // namespace warpwise

#endif
