//===- SplitSettings.h - What steers the branch split -----------*- C++ -*-===//
//
// The branch split and its planner read the run's wishes through
// SplitSettings (the form asked for, whether profitability is skipped, who
// asked) and rules/split.json through SplitPolicy, not the driver's option
// types: the driver fills the TransformContext, and the split takes what it
// needs from it here, once per kernel.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_SETTINGS_H
#define WARPWISE_SPLIT_SETTINGS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace warpwise {

struct TransformContext;

/// rules/split.json: where each form pays, and the adaptive form's
/// run-time policy (which warpwise's run-time support carries).
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

  /// The settings \p TC carries for the kernel it is working on (its
  /// --split-form entry and its directives applied).
  static SplitSettings of(const TransformContext &TC);
  /// Who asked for \p AskedForm, as a decision's reason names it: the
  /// directive or configuration entry, `--split-form <form>`, or what
  /// forced the candidate.
  std::string askedFor(llvm::StringRef AskedForm) const;
};

/// The form --split-form \p Spec asks for \p Kernel: the one form for all
/// kernels, its entry in KERNEL=FORM[,...], or "" (the planner decides).
std::string splitFormFor(llvm::StringRef Spec, llvm::StringRef Kernel);

} // namespace warpwise

#endif
