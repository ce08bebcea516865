//===- Transform.h - The interface every transformation implements -*- C++ -*-//
//
// A transformation is one class in one file pair, like a clang-tidy check: it
// finds its candidates in an analysed translation unit, asks the planner for a
// decision on each, and turns accepted decisions into Changes. It never
// writes files.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_TRANSFORM_H
#define WARPWISE_TRANSFORM_H

#include "warpwise/Analysis.h"
#include "warpwise/Diagnostics.h"
#include "warpwise/Edits.h"
#include "warpwise/SourceScope.h"
#include "warpwise/Steering.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
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

/// A byte range a decision rewrote, in the file (normalised absolute path)
/// it is in: the main file's and a header's offsets are not comparable.
struct ClaimedRange {
  std::string File;
  unsigned Begin = 0, End = 0;
  bool overlaps(const std::string &F, unsigned B, unsigned E) const {
    return File == F && B < End && Begin < E;
  }
};

struct TransformContext {
  clang::ASTContext &Ctx;
  const std::string &File;    ///< Absolute path, as clang saw it.
  const std::string &Display; ///< As the user gave it.
  llvm::StringRef Contents;   ///< The bytes being rewritten.
  const FileAnalysis &Analysis;
  const ArchLimits &Arch;
  const CostTable &Costs;
  CompileFeedback *Feedback; ///< nullptr without a toolkit.
  DiagnosticLog &Log;
  /// Byte ranges already rewritten by an earlier decision; a candidate
  /// inside one is left to that decision.
  std::vector<ClaimedRange> &Claimed;
  /// --force-transforms: apply every legal candidate, skipping the
  /// profitability checks (never the legality ones).
  bool Force = false;
  /// --split-form: "" (the planner chooses), "literal", "none".
  std::string SplitForm;
  /// The candidate a transformation is working on, where it says so: named
  /// by the internal-error diagnostic (WW1012) when the transformation
  /// crashes.
  std::string CurrentKernel;
  unsigned CurrentLine = 0;
  /// Testing hook (WARPWISE_DEBUG_CRASH=<transformation>): the
  /// transformation crashes deliberately at its first candidate, or after
  /// its run when it has no such hook.
  bool DebugCrash = false;
  /// --fmad=false: the program is built without fma contraction, so
  /// fuse/meld may select a product apart from the add that consumes it.
  bool FmadFalse = false;
  /// Which files are the user's (the main file and, by --header-filter,
  /// project headers). Null: the main file only.
  /// --meld-form: "auto" (the execution model chooses between the merged
  /// and the branch-free form), "merged" or "branch-free".
  std::string MeldForm = "auto";
  const SourceScope *Scope = nullptr;
  /// The edits earlier transformations made to this translation unit: a
  /// later one measures its candidate on top of them.
  std::vector<clang::tooling::Replacement> Applied = {};
  /// The directives in the source and the configuration's kernel settings
  /// (Steering.h); null: nothing steers.
  SteeringRules *Steering = nullptr;
  /// What made Force true, as the decisions name it: the option, or the
  /// directive or configuration entry that forced this candidate.
  std::string ForcedBy = "--force-transforms";
  /// What chose SplitForm or MeldForm when a directive or the configuration
  /// did ("" for the command line's --split-form / --meld-form).
  std::string FormBy = {};

  /// Applied decisions' names taken so far in this file, by
  /// `<transform>.<kernel>` (shared by the passes of one rewrite); null:
  /// names are not kept.
  std::map<std::string, unsigned> *DecisionIds = nullptr;
  /// The name the next applied decision of \p Transform on \p Kernel will
  /// take: `<transform>.<kernel>.<n>`, n past any in \p Text (a file
  /// rewritten before carries its names).
  std::string nextDecisionId(llvm::StringRef Transform, llvm::StringRef Kernel,
                             llvm::StringRef Text) const;
  /// Gives the applied \p D that name and its diagnostic \p Code.
  void takeDecisionId(Decision &D, const char *Code, llvm::StringRef Text);
  /// The comment \p D leaves in the code: `// warpwise WW4001 fuse.k.1:
  /// <What>; <what was measured>`. No line numbers: the rewrite moves lines.
  std::string decisionComment(const Decision &D, llvm::StringRef What) const;

  /// What the directives and the configuration say about \p Transform on
  /// the candidate at \p Candidate (invalid: the kernel as a whole) in
  /// \p FD.
  Steer steer(llvm::StringRef Transform, const clang::FunctionDecl *FD,
              clang::SourceLocation Candidate) const;
  /// Who asked for \p Form: the directive or configuration entry, the
  /// option ("--split-form compact"), or what forced the candidate.
  std::string formSource(llvm::StringRef Option, llvm::StringRef Form) const {
    if (!FormBy.empty())
      return FormBy;
    if ((Option == "split-form" ? SplitForm : MeldForm) == Form)
      return ("--" + Option + " " + Form).str();
    return ForcedBy;
  }

  /// The normalised absolute path of the file \p Loc's expansion is in:
  /// what every Replacement of an edit there is keyed by.
  std::string fileOf(clang::SourceLocation Loc) const;
  /// The text of that file, which the offsets of \p Loc count into.
  llvm::StringRef textOf(clang::SourceLocation Loc) const;
  /// The file a diagnostic about \p Loc names: Display for the main file,
  /// a header's display path otherwise.
  std::string displayOf(clang::SourceLocation Loc) const;
  /// Decision::File for \p Loc: empty in the main file.
  std::string decisionFileOf(clang::SourceLocation Loc) const;
  /// True when [Begin, End) of \p File overlaps a claimed range.
  bool claimed(const std::string &InFile, unsigned Begin, unsigned End) const;

  /// Compiles the translation unit with \p Edits applied, each to the file
  /// it names (the main file's text, and headers in their place), and
  /// reports nvcc's statistics per kernel; no edits measure the original.
  std::optional<std::map<std::string, KernelStats>>
  measure(const std::vector<clang::tooling::Replacement> &Edits,
          const std::string &NvArch, std::string &Error) const;

  /// \p Kernel's statistics compiled for the target with the earlier
  /// rewrites (Applied), and with \p Edits on top of them. std::nullopt with
  /// \p Failure, the end of a decision's reason: "nvcc failed on the
  /// candidate (...); not rewritten", "`k` is missing from nvcc's output;
  /// declined".
  std::optional<std::pair<KernelStats, KernelStats>>
  measureCandidate(const std::vector<clang::tooling::Replacement> &Edits,
                   const std::string &Kernel, std::string &Failure) const;

  /// Legality under nvcc's default -fmad=true: whether nvcc rounds the
  /// floating-point arithmetic of every function in the file the same way
  /// with \p Edits on top of the earlier rewrites as without them
  /// (SassFp.h). std::nullopt when it does, or when it cannot differ (the
  /// program is built with -fmad=false, \p FD's file computes no floating
  /// point); else the end of a decision's reason ("nvcc rounds ... ;
  /// declined").
  std::optional<std::string>
  contractionChange(const std::vector<clang::tooling::Replacement> &Edits,
                    const clang::FunctionDecl *FD) const;

  /// The same for a split: \p Kernel as nvcc compiled it before \p Edits,
  /// against each group of \p RunTogether (the kernels that, together, run
  /// the original's threads on one path the rewrite may take: the if- and
  /// the else-kernel; the adaptive kernel alone) after them. Every
  /// floating-point operation of the original must have its counterpart in
  /// the group and the other way round.
  std::optional<std::string> splitContractionChange(
      const std::vector<clang::tooling::Replacement> &Edits,
      const std::string &Kernel,
      const std::vector<std::vector<std::string>> &RunTogether) const;
};

/// The line a transformation writes where its decision's comment goes,
/// before the decision is made; fillDecisionMark replaces it.
constexpr const char *DecisionMark = "// warpwise: @decision@";
/// Replaces DecisionMark in \p Text with \p Comment; false when absent.
bool fillDecisionMark(std::string &Text, llvm::StringRef Comment);

/// Applies a candidate's forced verdict to a TransformContext for as long
/// as it lives: Force, the form and who asked for them.
class SteerScope {
public:
  SteerScope(TransformContext &TC, const Steer &S, llvm::StringRef Transform);
  ~SteerScope();

private:
  TransformContext &TC;
  bool Force;
  std::string ForcedBy, FormBy, SplitForm, MeldForm;
};

/// Crashes deliberately (a null store); for the WARPWISE_DEBUG_CRASH hook.
[[noreturn]] void crashForTesting();

class Transform {
public:
  virtual ~Transform();
  virtual const char *name() const = 0;
  virtual void run(TransformContext &TC, std::vector<Decision> &Decisions,
                   std::vector<Change> &Changes) = 0;
};

/// Names of the transformations this build provides.
std::vector<std::string> availableTransforms();
/// Instantiates the transformation called \p Name, or nullptr.
std::unique_ptr<Transform> createTransform(const std::string &Name);

} // namespace warpwise

#endif
