//===- SplitPlanner.h - Deciding branch splitting ---------------*- C++ -*-===//
//
// The planner weighs a SplitCandidate (the texts of each form, filled by the
// split's forms in src/transform/Split*) under the run's SplitSettings (the
// form asked for, forcing, rules/split.json): the split reads the run's
// wishes through these, not through the driver's option types.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_PLANNER_H
#define WARPWISE_SPLIT_PLANNER_H

#include "warpwise/Plan.h"

#include "clang/Tooling/Core/Replacement.h"

#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
}

namespace warpwise {

/// rules/split.json: where each form pays, and the adaptive form's
/// run-time policy (which warpwise's runtime carries).
struct SplitPolicy {
  /// The literal form is applied up to this compute capability ("3.7")...
  std::string LiteralProfitableUpToCc = "3.7";
  /// ...when the CF'09 formula predicts at least this speedup.
  double MinPredictedSpeedup = 1.05;
  double KernelLaunchOverheadUs = 5;
  /// The compact form only on request, unless this is set.
  bool CompactApplyAutomatically = false;
  std::string CompactMeasured;
  struct Adaptive {
    double ListedWarpCost = 1.5;
    double MinSavedWarpFraction = 0.05;
    unsigned RecheckEvery = 32;
    double HeavyGridMargin = 1.25;
    /// Each launch also a measured dispatch against the original, where the
    /// dispatch runs; else only where a directive or the configuration
    /// forces `dispatch` for the kernel.
    bool MeasuredDispatch = false;
  } Adaptive;
};

/// The policy of the rules/split.json this binary carries, read once.
const SplitPolicy &splitPolicy();

/// The run's wishes for one kernel's split.
struct SplitSettings {
  /// "" (the planner chooses), "literal", "compact", "adaptive" or "none".
  std::string Form;
  /// Apply a legal candidate without the profitability checks.
  bool Force = false;
  /// What forced it, and what chose Form when a directive or the
  /// configuration did (empty for --split-form).
  std::string ForcedBy, FormBy;
  const SplitPolicy *Policy = &splitPolicy();

  /// The settings \p PC carries for the kernel it is working on (its
  /// --split-form entry and its directives applied).
  static SplitSettings of(const PlanContext &PC);
  /// Who asked for \p AskedForm, as a decision's reason names it: the
  /// directive or configuration entry, `--split-form <form>`, or what
  /// forced the candidate.
  std::string askedFor(llvm::StringRef AskedForm) const;
};

/// The form --split-form \p Spec asks for \p Kernel: the one form for all
/// kernels, its entry in KERNEL=FORM[,...], or "" (the planner decides).
std::string splitFormFor(llvm::StringRef Spec, llvm::StringRef Kernel);

/// A split candidate as the planner weighs it: the texts of each form, or
/// why a form does not apply.
struct SplitCandidate {
  const clang::FunctionDecl *Kernel = nullptr;
  const BranchInfo *Branch = nullptr;
  unsigned Line = 0;
  std::string File;      ///< Normalised path of the kernel's file.
  unsigned InsertAt = 0; ///< Where the two new kernels go (after the original).
  std::string Kernels;   ///< Their text.
  std::vector<clang::tooling::Replacement> Launches;
  /// The compact form, or why it does not apply.
  std::string CompactKernels;
  /// What the compact launches need at file scope: the line that includes
  /// warpwise's runtime (its list pool), unless the file has it; measured
  /// with the kernels, written once per file.
  std::string CompactPrelude;
  unsigned PreludeAt = 0; ///< File scope, before the kernel's declaration.
  std::vector<clang::tooling::Replacement> CompactLaunches;
  std::string CompactProblem;
  /// The adaptive form (the original kernel with the heavy threads of mixed
  /// warps listed, a heavy kernel over the list, the host choosing per
  /// launch), or why it does not apply; its prelude (the runtime's include,
  /// for the dispatch) goes in once per file, at PreludeAt.
  std::string AdaptiveKernels;
  std::string AdaptivePrelude;
  std::vector<clang::tooling::Replacement> AdaptiveLaunches;
  std::string AdaptiveProblem;
  /// Each adaptive launch is also a measured dispatch between a split pair
  /// and the original kernel: where the dispatch runs, rules/split.json or
  /// a directive or the configuration asks for it, and nothing disables it.
  bool AdaptiveMeasured = false;
  /// The condition or the code before it loads from memory: which threads
  /// take the heavy side is run-time data.
  bool DataDependent = false;
  bool HeavyIsElse = true;
};

/// Which form, if any, to apply to \p C. The adaptive form by default where
/// it applies and pays (the heavy side costs an occupancy step and which
/// threads take it is run-time data); the literal form where CF'09 measured
/// it paying (old architectures), with the CF'09 formula on ptxas's
/// registers; the compact form on request; any form \p S forces.
Decision planSplit(const PlanContext &PC, const SplitCandidate &C,
                   const SplitSettings &S, const char *Transform);

} // namespace warpwise

#endif
