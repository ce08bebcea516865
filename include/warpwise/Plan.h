//===- Plan.h - What a planner reads, asks and decides ----------*- C++ -*-===//
//
// A planner (src/plan/*Planner) weighs one candidate a transformation found
// and returns a Decision. It reads the analysis, the target, the cost model
// and the run's settings, and asks for measurements of the candidate's
// edits (nvcc's statistics, whether the floating-point rounding changes);
// how those edits reach the files is the transformation's business
// (TransformContext in Transform.h implements the measurements).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_PLAN_H
#define WARPWISE_PLAN_H

#include "warpwise/Analysis.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace warpwise {

/// One planner decision, applied or declined, with the reason a person reads.
struct Decision {
  std::string Transform;
  std::string Kernel;
  /// The file the candidate is in, as a person reads it: empty for the main
  /// file, else the project header's display path (see SourceScope).
  std::string File;
  unsigned Line = 0;
  bool Applied = false;
  std::string Form; ///< e.g. "compact" for a branch split.
  std::string Reason;
  /// The diagnostic id of the decision (WW4001 applied fuse, WW3002
  /// declined fission, ...).
  std::string Code;
  /// An applied decision's name, `<transform>.<kernel>.<n>`: in the comment
  /// it leaves in the code and in the report, so that one finds the other.
  std::string Id;
  /// The measurements that justified an applied decision (registers,
  /// occupancy, SASS instructions), for its comment in the code.
  std::string Measured;
};

class CompileFeedback;
struct CostTable;
struct KernelStats;

/// What the planners read of a translation unit and of the run, and the
/// measurements they ask for.
struct PlanContext {
  PlanContext(clang::ASTContext &Ctx, const FileAnalysis &Analysis,
              const ArchLimits &Arch, const CostTable &Costs,
              CompileFeedback *Feedback, bool Force, std::string SplitForm)
      : Ctx(Ctx), Analysis(Analysis), Arch(Arch), Costs(Costs),
        Feedback(Feedback), Force(Force), SplitForm(std::move(SplitForm)) {}
  virtual ~PlanContext();

  clang::ASTContext &Ctx;
  const FileAnalysis &Analysis;
  const ArchLimits &Arch;
  const CostTable &Costs;
  CompileFeedback *Feedback; ///< nullptr without a toolkit.
  /// --force-transforms: apply every legal candidate, skipping the
  /// profitability checks (never the legality ones).
  bool Force = false;
  /// --split-form: "" (the planner chooses), "literal", "none".
  std::string SplitForm;
  /// --meld-form: "auto" (the execution model chooses between the merged
  /// and the branch-free form), "merged" or "branch-free".
  std::string MeldForm = "auto";
  /// What made Force true, as the decisions name it: the option, or the
  /// directive or configuration entry that forced this candidate.
  std::string ForcedBy = "--force-transforms";
  /// What chose SplitForm or MeldForm when a directive or the configuration
  /// did ("" for the command line's --split-form / --meld-form).
  std::string FormBy = {};

  /// Who asked for \p Form: the directive or configuration entry, the
  /// option ("--split-form compact"), or what forced the candidate.
  std::string formSource(llvm::StringRef Option, llvm::StringRef Form) const {
    if (!FormBy.empty())
      return FormBy;
    if ((Option == "split-form" ? SplitForm : MeldForm) == Form)
      return ("--" + Option + " " + Form).str();
    return ForcedBy;
  }

  /// Compiles the translation unit with the earlier rewrites of this pass
  /// and \p Edits on top of them, each edit in the file it names (the main
  /// file's text, and headers in their place), and reports nvcc's
  /// statistics per kernel. Every measurement a planner makes starts from
  /// the earlier rewrites: what it decides is written on top of them.
  /// Without \p NeedCode the planner reads only ptxas's numbers (registers,
  /// spills, stack and shared bytes), and the instruction counts and code
  /// are left empty (CompileFeedback::measure: nvdisasm does not run).
  virtual std::optional<std::map<std::string, KernelStats>>
  measure(const std::vector<clang::tooling::Replacement> &Edits,
          const std::string &NvArch, std::string &Error,
          bool NeedCode = true) const = 0;

  /// What measure() says of \p BeforeEdits and of \p AfterEdits (a
  /// candidate and the state it is compared with), compiled side by side.
  struct MeasuredPair {
    std::optional<std::map<std::string, KernelStats>> Before, After;
    std::string BeforeError, AfterError;
  };
  virtual MeasuredPair
  measureBoth(const std::vector<clang::tooling::Replacement> &BeforeEdits,
              const std::vector<clang::tooling::Replacement> &AfterEdits,
              const std::string &NvArch, bool NeedCode = true) const = 0;
  /// The earlier rewrites of this pass without \p Edits (Before) and
  /// with them (After), compiled side by side: a candidate's register and
  /// instruction guards compare what the file is now with what it would
  /// be. The same pair as contractionChange's, so each is compiled once.
  virtual MeasuredPair
  measureOnEarlier(const std::vector<clang::tooling::Replacement> &Edits,
                   const std::string &NvArch, bool NeedCode = true) const = 0;

  /// \p Kernel's statistics compiled for the target with the earlier
  /// rewrites, and with \p Edits on top of them. std::nullopt with
  /// \p Failure, the end of a decision's reason: "nvcc failed on the
  /// candidate (...); not rewritten", "`k` is missing from nvcc's output;
  /// declined".
  virtual std::optional<std::pair<KernelStats, KernelStats>>
  measureCandidate(const std::vector<clang::tooling::Replacement> &Edits,
                   const std::string &Kernel, std::string &Failure,
                   bool NeedCode = true) const = 0;

  /// Legality under nvcc's default -fmad=true: whether nvcc rounds the
  /// floating-point arithmetic of every function in the file the same way
  /// with \p Edits on top of the earlier rewrites as without them
  /// (SassFp.h). std::nullopt when it does, or when it cannot differ (the
  /// program is built with -fmad=false, \p FD's file computes no floating
  /// point); else the end of a decision's reason ("nvcc rounds ... ;
  /// declined").
  virtual std::optional<std::string>
  contractionChange(const std::vector<clang::tooling::Replacement> &Edits,
                    const clang::FunctionDecl *FD) const = 0;

  /// The same for a split: \p Kernel as nvcc compiled it before \p Edits,
  /// against each group of \p RunTogether (the kernels that, together, run
  /// the original's threads on one path the rewrite may take: the if- and
  /// the else-kernel; the adaptive kernel alone) after them. Every
  /// floating-point operation of the original must have its counterpart in
  /// the group and the other way round.
  virtual std::optional<std::string> splitContractionChange(
      const std::vector<clang::tooling::Replacement> &Edits,
      const std::string &Kernel,
      const std::vector<std::vector<std::string>> &RunTogether) const = 0;
};

} // namespace warpwise

#endif
