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
#include "warpwise/Plan.h"
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

/// A byte range a decision rewrote, in the file (normalised absolute path)
/// it is in: the main file's and a header's offsets are not comparable.
struct ClaimedRange {
  std::string File;
  unsigned Begin = 0, End = 0;
  bool overlaps(const std::string &F, unsigned B, unsigned E) const {
    return File == F && B < End && Begin < E;
  }
};

/// What a transformation reads and keeps while it runs on one translation
/// unit: the planners' part (Plan.h), the files and texts it edits, the
/// ranges earlier decisions claimed, and what steers its candidates. It
/// implements the planners' measurements, since it knows where each edit
/// goes.
struct TransformContext : PlanContext {
  TransformContext(clang::ASTContext &Ctx, const std::string &File,
                   const std::string &Display, llvm::StringRef Contents,
                   const FileAnalysis &Analysis, const ArchLimits &Arch,
                   const CostTable &Costs, CompileFeedback *Feedback,
                   DiagnosticLog &Log, std::vector<ClaimedRange> &Claimed,
                   bool Force = false, std::string SplitForm = {},
                   std::string CurrentKernel = {}, unsigned CurrentLine = 0,
                   bool DebugCrash = false, bool FmadFalse = false)
      : PlanContext(Ctx, Analysis, Arch, Costs, Feedback, Force,
                    std::move(SplitForm)),
        File(File), Display(Display), Contents(Contents), Log(Log),
        Claimed(Claimed), CurrentKernel(std::move(CurrentKernel)),
        CurrentLine(CurrentLine), DebugCrash(DebugCrash),
        FmadFalse(FmadFalse) {}

  const std::string &File;    ///< Absolute path, as clang saw it.
  const std::string &Display; ///< As the user gave it.
  llvm::StringRef Contents;   ///< The bytes being rewritten.
  DiagnosticLog &Log;
  /// Byte ranges already rewritten by an earlier decision; a candidate
  /// inside one is left to that decision.
  std::vector<ClaimedRange> &Claimed;
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
  /// Whether the measured dispatch is among the transformations run on this
  /// file: a transformation that keeps the original beside its rewrite and
  /// rewrites the launches itself (the refill) then times the two there.
  bool MeasuredDispatch = false;
  /// Which files are the user's (the main file and, by --header-filter,
  /// project headers). Null: the main file only.
  const SourceScope *Scope = nullptr;
  /// The edits earlier transformations made to this translation unit: a
  /// later one measures its candidate on top of them.
  std::vector<clang::tooling::Replacement> Applied = {};
  /// The directives in the source and the configuration's kernel settings
  /// (Steering.h); null: nothing steers.
  SteeringRules *Steering = nullptr;

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

  // The planners' measurements (Plan.h), of the edits on top of Applied.
  std::optional<std::map<std::string, KernelStats>>
  measure(const std::vector<clang::tooling::Replacement> &Edits,
          const std::string &NvArch, std::string &Error,
          bool NeedCode = true) const override;
  std::optional<std::pair<KernelStats, KernelStats>>
  measureCandidate(const std::vector<clang::tooling::Replacement> &Edits,
                   const std::string &Kernel, std::string &Failure,
                   bool NeedCode = true) const override;
  std::optional<std::string>
  contractionChange(const std::vector<clang::tooling::Replacement> &Edits,
                    const clang::FunctionDecl *FD) const override;
  std::optional<std::string> splitContractionChange(
      const std::vector<clang::tooling::Replacement> &Edits,
      const std::string &Kernel,
      const std::vector<std::vector<std::string>> &RunTogether) const override;

  /// What measure() says of \p BeforeEdits and of \p AfterEdits (a
  /// candidate and the state it is compared with), compiled side by side.
  MeasuredPair
  measureBoth(const std::vector<clang::tooling::Replacement> &BeforeEdits,
              const std::vector<clang::tooling::Replacement> &AfterEdits,
              const std::string &NvArch, bool NeedCode = true) const override;
  MeasuredPair
  measureOnEarlier(const std::vector<clang::tooling::Replacement> &Edits,
                   const std::string &NvArch,
                   bool NeedCode = true) const override;
  /// The texts \p Edits make of the main file (\p Main) and of the headers
  /// they edit (\p Headers); false with \p Error when they do not apply.
  bool textsWith(const std::vector<clang::tooling::Replacement> &Edits,
                 std::string &Main, std::map<std::string, std::string> &Headers,
                 std::string &Error) const;
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
/// The transformations a session runs when neither --transforms nor the
/// configuration names them: all but those applied only on request.
std::vector<std::string> defaultTransforms();
/// Instantiates the transformation called \p Name, or nullptr.
std::unique_ptr<Transform> createTransform(const std::string &Name);

} // namespace warpwise

#endif
