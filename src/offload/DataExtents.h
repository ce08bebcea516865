//===- DataExtents.h - How much of each array the device needs -*- C++ -*-===//
//
// The first half of offload's data planner: each shared array or pointer
// of a nest becomes a MappedArray with the type of its device copy and its
// extent, from a map clause's section, the array's declaration, or the one
// malloc/calloc of the pointer in the function (its element count kept in
// `ww_extent_NAME` where the malloc runs); and, for the copy-in decision,
// whether the nest writes every element before reading any
// (proveFullWrites). A pointer whose extent is not known keeps the loop on
// the host with a refusal that says which map clause would give it.
//
// Buffers the host swaps between time steps (`t = a; a = b; b = t;`) are
// found here too (FunctionData::Swaps): their extents must agree, and the
// data regions (DataRegions.h) swap their device copies with them.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_DATA_EXTENTS_H
#define WARPWISE_OFFLOAD_DATA_EXTENTS_H

#include "Directive.h"

#include <memory>
#include <string>
#include <vector>

namespace warpwise {
namespace offload {

class CallerExtents;

/// `t = a; a = b; b = t;` (t may be declared there): the host swapping
/// two buffers between time steps.
struct SwapTriple {
  const clang::Stmt *S1 = nullptr, *S2 = nullptr, *S3 = nullptr;
  const clang::VarDecl *A = nullptr, *B = nullptr;
};

/// What the planner knows of the function being translated: its buffer
/// swaps and where each of its variables is written.
struct FunctionData {
  const clang::FunctionDecl *F = nullptr;
  std::vector<SwapTriple> Swaps;
  WrittenVars Writes;

  /// Starts on \p Fn: finds its swaps and its writes.
  void reset(clang::ASTContext &Ctx, const clang::FunctionDecl *Fn);
  /// The swap \p S is a statement of, or null.
  const SwapTriple *swapOf(const clang::Stmt *S) const {
    for (const SwapTriple &T : Swaps)
      if (T.S1 == S || T.S2 == S || T.S3 == S)
        return &T;
    return nullptr;
  }
};

/// The swaps of pointer buffers in the blocks of \p S, appended to \p Out.
void findSwaps(const clang::ASTContext &Ctx, const clang::Stmt *S,
               std::vector<SwapTriple> &Out);

/// The assignments of \p V in \p Body (a swap's aside; `V++` counts), and
/// the value of the last: `V = e` or V's initialiser. \p SwapDecls: a
/// declaration that is a swap's statement is set aside too.
const clang::Expr *assignmentsOf(const FunctionData &Fn,
                                 const clang::Stmt *Body,
                                 const clang::VarDecl *V, bool SwapDecls,
                                 unsigned &N);

/// The block the allocation \p Call is a statement of, its own statement
/// (\p Child; not under an if), or null.
const clang::Stmt *allocationBlock(clang::ASTContext &Ctx,
                                   const clang::Expr *Call,
                                   const clang::Stmt *&Child);

/// The dimensions of \p V's type as written, outermost first, through one
/// pointer (`double (*p)[N]`), spelled through macros (spelledExpr); \p
/// Element gets the type below them and \p ElementText the macro that
/// spells it (`DATA_TYPE`), if one does.
std::vector<std::string> writtenDims(const clang::VarDecl *V,
                                     const clang::ASTContext &Ctx,
                                     bool &Pointer, clang::QualType &Element,
                                     std::string &ElementText);

/// Maps the shared arrays of plans in one function.
class ExtentPlanner {
public:
  ExtentPlanner(const OffloadSource &Src, FunctionData &Fn);
  ~ExtentPlanner();
  /// --whole-program: external functions' callers are followed too.
  void setWholeProgram(bool On) { WholeProgram = On; }

  /// \p V as a device copy: its type, and the extent its declaration gives
  /// (an array, or an array parameter); false for what cannot be mapped.
  bool mapArray(KernelPlan &P, const clang::VarDecl *V, MappedArray &A);
  /// The extent of pointer \p V from its one malloc or calloc in the
  /// function, before the directive, in a block that contains it; of a
  /// pointer parameter, from the calls of the function (CallerExtents).
  bool extentFromMalloc(KernelPlan &P, const clang::VarDecl *V, MappedArray &A);
  /// The normalised allocation text of \p V's one malloc (swaps aside), or
  /// "" when it has not exactly one.
  std::string mallocText(const clang::VarDecl *V);
  /// The shared array or pointer \p V of \p P's nest (\p U: the nest's
  /// uses, \p C: its clauses) as P.Arrays gets it: mapArray, the uses, the
  /// map clause's direction and section, or else the malloc's extent.
  bool mapShared(KernelPlan &P, const clang::VarDecl *V, const UseCollector &U,
                 const ClauseSet &C);
  /// Every call in the file (built on first use).
  CallerExtents &callers();

private:
  bool sectionExtent(KernelPlan &P, const clang::Expr *Section,
                     const UseCollector &U, MappedArray &A);
  bool extentFromCallers(KernelPlan &P, const clang::ParmVarDecl *V,
                         MappedArray &A, std::string &Why);
  const OffloadSource &Src;
  clang::ASTContext &Ctx;
  FunctionData &Fn;
  /// Built on the first pointer parameter: every call in the file.
  std::unique_ptr<CallerExtents> Callers;
  bool WholeProgram = false;
};

/// An array the loop writes at every index of its extent, before any read,
/// need not be copied in: sets WrittenInFull of \p P's arrays where
/// `a[i] = ...` (or a[i][j]) is at the top of the body, the loop (and an
/// inner loop) running over exactly [0, extent).
void proveFullWrites(const OffloadSource &Src, KernelPlan &P);

} // namespace offload
} // namespace warpwise

#endif
