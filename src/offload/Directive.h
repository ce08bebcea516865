//===- Directive.h - What an OpenMP loop directive says ---------*- C++ -*-===//
//
// The directive model of offload: a KernelPlan records what one worksharing
// directive and its clauses say (private, firstprivate, reduction, map,
// collapse) and the canonical loop nest it covers (LoopLevel), and what the
// nest does with each variable it names (by value, private, a reduction, a
// mapped array). The readers below fill it step by step; each returns false
// with the plan's Refusal set at the first thing that keeps the loop on the
// host, in the order the checks are made (the first reason is the one
// reported). The extents of arrays (DataExtents.h), the dependence test
// (Dependence.h) and the data regions (DataRegions.h) complete the plan.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_DIRECTIVE_H
#define WARPWISE_OFFLOAD_DIRECTIVE_H

#include "LoopUses.h"
#include "OffloadAst.h"

#include "clang/AST/StmtOpenMP.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpwise {
namespace offload {

/// One canonical loop: `for (Var = Lb; Var Cmp Ub; Var += Step)`.
struct LoopLevel {
  const clang::ForStmt *For = nullptr;
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Lb = nullptr, *Ub = nullptr, *Step = nullptr;
  clang::BinaryOperatorKind Cmp = clang::BO_LT; ///< As if written `Var Cmp Ub`.
  bool Decreasing = false;
  bool UnitStep = false;
  /// A triangular level made parallel by loop swap (`for (j2 = j1 + c;
  /// ...)` or `for (j = 0; j <= i + c; ...)`, c a constant, the outer level
  /// increasing): the grid runs it over the hull of its ranges, from
  /// HullFrom + HullOffset (the outer level's first value, HullFrom its
  /// lower bound) or up to HullUbFrom + HullUbOffset (its last value, its
  /// upper bound minus one for `<`), and each thread outside its own range
  /// (Lb and Ub as written, in the outer index) does nothing.
  const clang::Expr *HullFrom = nullptr, *HullUbFrom = nullptr;
  long long HullOffset = 0, HullUbOffset = 0;
};

enum class MapKind { None, To, From, ToFrom, Alloc };

/// One dimension of the box a kernel writes an array over (WrittenBox):
/// the range of grid level Level, or (Level -1) that of an inner loop,
/// from Lb up to Ub (`<`, or `<=` where Inclusive) as written; the host
/// evaluates an inner loop's at the launch.
struct BoxDim {
  int Level = -1;
  std::string Lb, Ub;
  bool Inclusive = false;
};

/// A loop after the store's that reads the box back (`for (p = 0; p < nr;
/// p++) A[r][q][p] = sum[r][q][p];`): its variable subscripts dimension Dim
/// of the box, from Lb up to Ub (`<`, or `<=` where Inclusive) as written.
/// The reads are of values the thread wrote only where that range is inside
/// the box's, which the launch checks (otherwise the array is copied in).
struct BoxRead {
  size_t Dim = 0;
  std::string Lb, Ub;
  bool Inclusive = false;
  unsigned Line = 0;
};

/// A shared array of the nest, as its device copy is made.
struct MappedArray {
  const clang::VarDecl *Var = nullptr;
  std::string Name;
  clang::QualType DeviceType; ///< The pointer type of the device copy.
  /// The array dimensions below the pointer as written (`N` in
  /// `double a[M][N]`), so that the kernel's types follow the macros the
  /// program is built with; and the element type.
  std::vector<std::string> InnerDims;
  clang::QualType Element;
  /// The element type as one macro spells it (`DATA_TYPE`), or "".
  std::string ElementText;
  std::string Offset = "0", Count;        ///< In units of *Name.
  const clang::Expr *CountExpr = nullptr; ///< Count's expression, if any.
  /// A malloc's element count is kept in `ww_extent_NAME`, declared right
  /// after the malloc (CaptureAt), so that later changes to the variables
  /// of its size, or other variables of the same names, do not matter.
  unsigned CaptureAt = 0;
  /// The outermost dimension as written, and its value, for an array
  /// declared with one (-1: none known).
  std::string Dim0Text;
  long long Dim0Value = -1;
  std::string CaptureText;
  /// CountExpr means at the loop what it meant at the malloc (its variables
  /// are not written after it): a bound can be compared with it.
  bool CountStable = true;
  std::string ExtentFrom; ///< "its map clause", "its declaration", ...
  std::vector<const clang::Expr *> ExtentExprs;
  bool Read = false, Written = false, WrittenInFull = false;
  /// Not empty: the kernel writes every element of this box (one entry per
  /// dimension, outermost first), and touches no other element: only the
  /// box need come back, and nothing need go in (proveWrittenBoxes).
  std::vector<BoxDim> WrittenBox;
  /// Loops after the store that read the box back (BoxRead).
  std::vector<BoxRead> BoxReads;
  bool PassedToCall = false;
  MapKind Map = MapKind::None;
};

struct ReductionVar {
  const clang::VarDecl *Var = nullptr;
  std::string Op; ///< ww_omp_plus, ww_omp_times, ww_omp_min, ww_omp_max.
  std::string Identity;
};

/// One directive: what it says, the nest it covers, and, once planned, the
/// kernel it becomes (Refusal empty) or why it stays on the host.
struct KernelPlan {
  const clang::OMPExecutableDirective *Directive = nullptr;
  const clang::FunctionDecl *Function = nullptr;
  std::string Name, PragmaText;
  unsigned Line = 0, Column = 0;
  std::vector<LoopLevel> Levels; ///< Outermost first; the grid's dims.
  bool Swapped = false;
  /// Consecutive rows (outer grid level) each thread runs: above 1 for a
  /// stencil that reads neighbouring rows (RowBlocking.h).
  unsigned RowsPerThread = 1;
  const clang::Stmt *Body = nullptr; ///< The innermost body run per iteration.
  std::vector<const clang::VarDecl *> ByValue, Private;
  std::vector<MappedArray> Arrays;
  std::vector<ReductionVar> Reductions;
  /// The file's functions the nest calls, directly or through others.
  std::set<const clang::FunctionDecl *> DeviceFunctions;
  std::vector<std::string> Notes;
  std::string Refusal; ///< Why it stays on the host; empty when offloaded.
  /// A `parallel` region holding several worksharing loops: no kernel of its
  /// own; its loops (Members) are kernels one after another.
  bool Group = false;
  std::vector<KernelPlan *> Members;
  /// A member's parallel directive, whose clauses apply to it too.
  const clang::OMPExecutableDirective *Enclosing = nullptr;
  bool Hidden = false; ///< A member of a refused group: said by the group.
  /// The nest's atomic updates, which the kernel's copy of the body makes
  /// CUDA's (an element's: atomicAdd; a scalar's: the thread's own copy).
  std::vector<UseCollector::AtomicUpdate> Atomics;
  std::string SwapNote;
};

/// What the clauses say beyond what goes into the plan itself.
struct ClauseSet {
  unsigned Collapse = 1;
  std::set<const clang::VarDecl *> Private, Firstprivate;
  /// The array section a map clause gives a variable (an ArraySectionExpr).
  std::map<const clang::VarDecl *, const clang::Expr *> MapSection;
  std::map<const clang::VarDecl *, MapKind> MapKinds;
};

/// Reads the header of \p For into \p L. False, with \p Refusal saying why,
/// when it is not `i = lb; i < ub (<=, >, >=, !=); i++ (i--, i += s, ...)`
/// over an integer, or its body changes what the header uses.
bool readCanonicalLoop(const OffloadSource &Src, const clang::ForStmt *For,
                       LoopLevel &L, std::string &Refusal);

/// The directive's place and pragma text; false when it is stand-alone,
/// comes from a macro, or a preprocessor conditional crosses its loop.
bool readDirectiveHead(const OffloadSource &Src, KernelPlan &P);

enum class LoopForm { Loop, Group, Refused };
/// The worksharing loop of \p P's directive and the clauses that apply to
/// it (a `parallel` around one `for`: both's; a group member: its region's
/// too). Group: a `parallel` region of something else than one loop, to be
/// planned as a group of loops.
LoopForm selectLoop(KernelPlan &P, const clang::OMPLoopDirective *&Loop,
                    std::vector<const clang::OMPClause *> &Clauses);

/// Reads \p Clauses: private, firstprivate and map into \p C, reductions and
/// notes (clauses with no GPU counterpart) into \p P.
bool readClauses(clang::ASTContext &Ctx,
                 const std::vector<const clang::OMPClause *> &Clauses,
                 KernelPlan &P, ClauseSet &C);

/// The `Collapse` perfectly nested canonical loops of \p Loop, rectangular;
/// P.Levels and P.Body.
bool readNest(const OffloadSource &Src, KernelPlan &P,
              const clang::OMPLoopDirective *Loop, unsigned Collapse);

/// What device code cannot have in the nest (\p U: its uses): a construct
/// of U.Problems, a break out of an iteration, a change of a loop variable
/// or of a bound.
bool checkNestBody(const OffloadSource &Src, KernelPlan &P,
                   const UseCollector &U);

/// The functions device code may call: those defined in the file, without
/// host globals, I/O or unsupported constructs, transitively; and CUDA's
/// math. checkCalls keeps a nest's callees in P.DeviceFunctions.
class DeviceCode {
public:
  explicit DeviceCode(clang::ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}
  bool callable(const clang::FunctionDecl *F, std::string &Why,
                std::set<const clang::FunctionDecl *> &Seen);
  /// The calls of the nest (\p U): each callable; P.DeviceFunctions.
  bool checkCalls(KernelPlan &P, const UseCollector &U);

private:
  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
};

/// The atomic updates of the nest (\p U): kept for the kernel's body; a
/// shared scalar updated only atomically becomes a `+` reduction.
bool readAtomics(KernelPlan &P, const UseCollector &U);

/// Maps a shared array or pointer of the nest (its extent, its direction):
/// false with P.Refusal set when it cannot be.
using ArrayMapper = std::function<bool(KernelPlan &P, const clang::VarDecl *V,
                                       const UseCollector &U)>;

/// What each variable the nest names from outside becomes: private, by
/// value, a reduction, or an array mapped by \p MapArray.
bool classifyVariables(KernelPlan &P, const UseCollector &U, const ClauseSet &C,
                       const ArrayMapper &MapArray);

} // namespace offload
} // namespace warpwise

#endif
