//===- SideEffects.h - What evaluating an expression changes ----*- C++ -*-===//
//
// One notion of "side effect" for every transformation that duplicates,
// reorders or selects expressions: assignments, increments, and calls to
// functions not known to be pure. Constructors and conversions (dim3's) and
// the builtin-variable accessors behind threadIdx.x are not effects.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SIDE_EFFECTS_H
#define WARPWISE_SIDE_EFFECTS_H

namespace clang {
class FunctionDecl;
class Stmt;
} // namespace clang

namespace warpwise {

/// Math and bit intrinsics, `const`/`pure` functions, builtin accessors.
bool isPureCallee(const clang::FunctionDecl *F);

/// Whether evaluating \p S could change anything (so evaluating it twice, or
/// not at all, could differ from evaluating it once).
bool hasEffects(const clang::Stmt *S);

} // namespace warpwise

#endif
