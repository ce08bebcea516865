//===- DataRegions.h - Where device data lives and what crosses -*- C++ -*-===//
//
// The second half of offload's data planner (seed 002's transfer
// reduction): consecutive offloaded loops of one block, and host loops
// whose bodies are only offloaded loops and statements that touch none of
// their data (time-step loops), share one data Region. Its arrays are
// allocated on the device once before it and copied back once after it;
// per array the region decides whether it is copied in (not when the first
// kernel to touch it writes all of it first) and out (not when the host
// never reads it again, or it is mapped `to`/`alloc`), and which pairs of
// arrays not proven separate are checked for overlap at run time.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_DATA_REGIONS_H
#define WARPWISE_OFFLOAD_DATA_REGIONS_H

#include "DataExtents.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace warpwise {
namespace offload {

class CallerExtents;

/// One statement of a region: an offloaded directive (a group's loops
/// count as its kernels), or a host loop around offloaded directives.
struct Unit {
  const clang::Stmt *S = nullptr;
  std::vector<KernelPlan *> Kernels; ///< In source order.
  bool InLoop = false;               ///< A host loop around kernels.
  /// Buffer swaps in the host loop: the device copies swap with them.
  std::vector<const SwapTriple *> Swaps;
};

using ArrayPair = std::pair<const clang::VarDecl *, const clang::VarDecl *>;

/// Statements whose kernels share their device data, and what crosses the
/// bus around them.
struct Region {
  std::vector<Unit> Units;
  const clang::Stmt *First = nullptr, *Last = nullptr;
  bool InsideBlock = false; ///< Prologue/epilogue inside the launch block.
  unsigned Index = 0;       ///< 1, 2, ... in the file: ww_dINDEX_a.
  std::vector<const clang::VarDecl *> Arrays; ///< In first-use order.
  /// Per array: copied in, copied out.
  std::map<const clang::VarDecl *, std::pair<bool, bool>> CopyInOut;
  std::map<const clang::VarDecl *, std::string> Why;
  /// Arrays only one kernel touches, over a box (MappedArray::WrittenBox):
  /// that kernel's view of them. Nothing goes in; the box comes back.
  std::map<const clang::VarDecl *, const MappedArray *> Boxes;
  /// Arrays not proven to be separate objects (pointer parameters, map
  /// clauses): the pairs whose host ranges are compared before the
  /// device path is taken.
  std::vector<ArrayPair> AliasPairs;
};

/// Each array of \p R, as the first kernel to use it maps it.
std::map<const clang::VarDecl *, const MappedArray *> arraysOf(const Region &R);
/// The kernels of \p R's units, in order.
std::vector<KernelPlan *> kernelsOf(const Region &R);
/// An array two of \p Ks map with different extents (sections), or null:
/// one device copy cannot serve both.
const clang::VarDecl *extentConflict(const std::vector<KernelPlan *> &Ks);
/// The arrays \p U's kernels map.
std::set<const clang::VarDecl *> mappedVars(const Unit &U);
/// The variables an extent of \p Ks' arrays is computed from.
std::set<const clang::VarDecl *>
extentVars(const std::vector<KernelPlan *> &Ks);
/// Arrays the translation cannot prove to be separate objects: a pointer
/// that is not its own malloc's (a parameter, a section of a map clause).
/// Two of them, or one and another array, may overlap; where one of the
/// pair is written, separate device copies would lose writes.
std::vector<ArrayPair> aliasPairs(const std::vector<KernelPlan *> &Ks);

/// Groups the offloaded directives of one function into regions, and
/// decides each region's copies.
class RegionPlanner {
public:
  /// Plans a directive (once; later calls return the same plan).
  using PlanFn =
      std::function<KernelPlan &(const clang::OMPExecutableDirective *)>;
  /// Every call in the file, for the arrays the function's callers pass.
  using CallersFn = std::function<CallerExtents &()>;
  RegionPlanner(const OffloadSource &Src, const FunctionData &Fn, PlanFn Plan,
                CallersFn Callers, std::vector<Region> &Regions)
      : Src(Src), Fn(Fn), Plan(std::move(Plan)), Callers(std::move(Callers)),
        Regions(Regions) {}

  /// Plans the directives under \p S as the walk meets them, and appends
  /// the regions of the offloaded ones to Regions.
  void walk(const clang::Stmt *S, bool InHostLoop);

  /// Touches none of the device data \p Mapped, cannot reach it through a
  /// call or a pointer, and cannot leave the region early.
  static bool inert(const clang::Stmt *S,
                    const std::set<const clang::VarDecl *> &Mapped);

private:
  void walkCompound(const clang::CompoundStmt *C, bool InHostLoop);
  /// \p S as a region's statement: an offloaded directive or a host loop
  /// around offloaded directives; none when it is neither.
  std::optional<Unit> unitOf(const clang::Stmt *S);
  /// Whether everything the region head's prologue names (the arrays, the
  /// captured counts, the variables of map sections) is declared before
  /// offset \p Head.
  bool declaredBefore(const std::vector<KernelPlan *> &Ks, unsigned Head);
  /// Decides the copies of \p R and appends it to Regions.
  void finishRegion(Region &R, bool InHostLoop);
  /// Every reference to \p V in the function is inside \p R, V's own
  /// malloc, or free(V): the host never sees its contents.
  bool usedOnlyIn(const clang::VarDecl *V, const Region &R);
  /// Why the host never reads \p V, copied out by \p R, after the region
  /// ("" when it may): a local used only in it, or a parameter used only in
  /// it whose callers only free their array after the call.
  std::string unreadAfter(const clang::VarDecl *V, const Region &R);

  const OffloadSource &Src;
  const FunctionData &Fn;
  PlanFn Plan;
  CallersFn Callers;
  std::vector<Region> &Regions;
};

} // namespace offload
} // namespace warpwise

#endif
