//===- BranchSplit.cpp - Branch splitting with launch rewriting -----------===//
//
// The run over a file's kernels: each kernel's candidate (SplitCandidate),
// its launches (SplitLaunch), the text of each form (SplitLiteral,
// SplitCompact, SplitAdaptive), the planner's choice (plan/SplitPlanner),
// and the edits of the chosen form. The forms' run-time support is
// warpwise's runtime (src/runtime/warpwise), which a rewritten file includes
// with one line (warpwise/Runtime.h).
//
//===----------------------------------------------------------------------===//
#include "BranchSplit.h"

#include "../analysis/MemoryAccess.h"
#include "../plan/SplitPlanner.h"
#include "Candidates.h"
#include "SplitAdaptive.h"
#include "SplitCompact.h"
#include "SplitLiteral.h"
#include "SplitText.h"

#include "warpwise/Embedded.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

namespace warpwise {

using namespace clang;

namespace {

/// One run of the split over a file: what its kernels share (the alias
/// facts of the launches, whether the file includes the runtime yet).
class SplitRun {
public:
  SplitRun(TransformContext &TC, std::vector<Decision> &Decisions,
           std::vector<Change> &Changes, const char *Name)
      : TC(TC), Decisions(Decisions), Changes(Changes), Name(Name),
        Facts(collectAliasFacts(TC.Ctx)) {}
  void kernel(const FunctionDecl *FD);

private:
  void report(const SplitBranch &B, const Decision &D, const char *Code);
  void decline(const SplitBranch &B, Decision D, const std::string &Why);
  SplitCandidate candidate(const SplitBranch &B,
                           const std::vector<const CUDAKernelCallExpr *> &Calls,
                           const std::vector<LaunchSite> &Sites);
  void apply(const SplitBranch &B, const SplitCandidate &C, Decision &D);

  TransformContext &TC;
  std::vector<Decision> &Decisions;
  std::vector<Change> &Changes;
  const char *Name;
  AliasFacts Facts;
  /// Where an applied split of this run wrote the runtime's include (-1:
  /// none yet): a later kernel below it sees it (launches follow their
  /// kernel), one above it gets its own.
  unsigned RuntimeAddedAt = -1u;
};

void SplitRun::report(const SplitBranch &B, const Decision &D,
                      const char *Code) {
  TC.Log.report(Code, Severity::Remark, B.Shown, B.Line, B.Column,
                std::string(Name) + ": " + D.Reason);
}

void SplitRun::decline(const SplitBranch &B, Decision D,
                       const std::string &Why) {
  D.Reason = "if-else at line " + std::to_string(B.Line) + " of `" + B.Name +
             "` is divergent, but it cannot be split: " + Why;
  report(B, D, "WW3003");
  Decisions.push_back(D);
}

/// The texts of every form for \p B, or why a form does not apply.
SplitCandidate
SplitRun::candidate(const SplitBranch &B,
                    const std::vector<const CUDAKernelCallExpr *> &Calls,
                    const std::vector<LaunchSite> &Sites) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  SplitCandidate C;
  C.Kernel = B.Kernel;
  C.Branch = B.Verdict;
  C.Line = B.Line;
  C.File = B.File;
  C.InsertAt = B.End;
  C.HeavyIsElse = B.HeavyIsElse;
  C.DataDependent = B.ReadsMemory;
  C.Kernels = literalKernels(TC, B);
  for (const LaunchSite &L : Sites)
    C.Launches.push_back(tooling::Replacement(TC.File, L.Begin, L.Length,
                                              literalLaunch(B, L)));
  // The runtime's include goes at file scope, before the declaration that
  // holds the kernel (and its comment) or the file's first macro, so that
  // launches outside the kernel's namespace see it; none where the file (as
  // written, or with an earlier rewrite, or from an older warpwise's pasted
  // parts) has it above.
  C.PreludeAt = runtimeIncludeAt(TC, B.Kernel, B.Text);
  C.CompactProblem = compactProblem(TC, B, Calls);
  if (C.CompactProblem.empty()) {
    C.CompactPrelude = runtimeVisibleAt(TC, B.Kernel->getLocation(), B.File,
                                        C.PreludeAt, "ww_list_pool")
                           ? ""
                           : runtimeIncludeLine();
    C.CompactKernels = compactKernels(TC, B);
    for (const LaunchSite &L : Sites)
      C.CompactLaunches.push_back(tooling::Replacement(
          TC.File, L.Begin, L.Length, compactLaunch(B, L)));
  }
  std::set<const Stmt *> Returns;
  C.AdaptiveProblem = adaptiveProblem(TC, B, Returns);
  if (C.AdaptiveProblem.empty()) {
    C.AdaptivePrelude = runtimeVisibleAt(TC, B.Kernel->getLocation(), B.File,
                                         C.PreludeAt, "ww_adaptive_begin")
                            ? ""
                            : runtimeIncludeLine();
    C.AdaptiveKernels = adaptiveKernels(TC, B, Returns);
    // The measured dispatch, where it runs, times the adaptive split against
    // the original at each launch: by rules/split.json, or where a directive
    // or the configuration forces `dispatch` for the kernel.
    Steer Dispatch = TC.steer("dispatch", B.Kernel, SourceLocation());
    C.AdaptiveMeasured =
        TC.MeasuredDispatch && !Dispatch.disabled() &&
        (splitPolicy().Adaptive.MeasuredDispatch || Dispatch.forced());
    llvm::StringRef MainText = SM.getBufferData(SM.getMainFileID());
    for (const LaunchSite &L : Sites)
      C.AdaptiveLaunches.push_back(tooling::Replacement(
          TC.File, L.Begin, L.Length,
          adaptiveLaunch(MainText, B, L, C.AdaptiveMeasured)));
  }
  return C;
}

/// The edits of the form \p D applied: the runtime's include (once per
/// file), the new kernels after the original with the decision's comment
/// heading them, and the launches.
void SplitRun::apply(const SplitBranch &B, const SplitCandidate &C,
                     Decision &D) {
  bool Compact = D.Form == "compact", Adaptive = D.Form == "adaptive";
  TC.takeDecisionId(D, "WW4003", B.Text);
  std::string Comment =
      "\n\n" +
      TC.decisionComment(D, "split `" + D.Kernel + "` (" +
                                (D.Form.empty() ? "literal" : D.Form) +
                                " form)");
  Change Ch;
  Ch.Description = "split of `" + D.Kernel + "` at line " +
                   std::to_string(B.Line) +
                   (D.File.empty() ? "" : " of " + D.File);
  const std::string &Prelude = Compact    ? C.CompactPrelude
                               : Adaptive ? C.AdaptivePrelude
                                          : std::string();
  if (!Prelude.empty() && RuntimeAddedAt > C.PreludeAt) {
    Ch.Edits.push_back(tooling::Replacement(B.File, C.PreludeAt, 0, Prelude));
    RuntimeAddedAt = C.PreludeAt;
  }
  Ch.Edits.push_back(tooling::Replacement(
      B.File, C.InsertAt, 0,
      Comment + (Compact    ? C.CompactKernels
                 : Adaptive ? C.AdaptiveKernels
                            : C.Kernels)));
  const auto &L = Compact    ? C.CompactLaunches
                  : Adaptive ? C.AdaptiveLaunches
                             : C.Launches;
  Ch.Edits.insert(Ch.Edits.end(), L.begin(), L.end());
  Changes.push_back(Ch);
}

void SplitRun::kernel(const FunctionDecl *FD) {
  // This kernel's --split-form, for the planner.
  TransformContext KTC = TC;
  KTC.SplitForm = splitFormFor(TC.SplitForm, FD->getName());
  if (KTC.SplitForm == "none")
    return;
  std::optional<SplitBranch> Found = findSplitBranch(TC, FD);
  if (!Found)
    return;
  SplitBranch &B = *Found;
  Decision D;
  D.Transform = Name;
  D.Kernel = B.Name;
  D.Line = B.Line;
  D.File = TC.decisionFileOf(FD->getLocation());
  // The decision's name, in every comment its code carries; taken only
  // when it is applied.
  B.Tag = "WW4003 " + TC.nextDecisionId(Name, B.Name, B.Text);
  Steer Steering = TC.steer(Name, FD, B.If->getBeginLoc());
  if (Steering.disabled()) {
    D.Reason = "if-else at line " + std::to_string(B.Line) + " of `" + B.Name +
               "`: disabled by " + Steering.Source + "; not considered";
    report(B, D, "WW3003");
    Decisions.push_back(D);
    return;
  }
  SteerScope Steered(KTC, Steering, Name);
  // Legal, every launch rewritable, the text outside macros.
  std::vector<const CUDAKernelCallExpr *> Calls;
  std::vector<LaunchSite> Sites;
  std::string Problem = splitProblem(TC, B, Facts);
  if (Problem.empty())
    Problem = findLaunchSites(TC, B, Calls, Sites);
  if (Problem.empty() && !readSplitText(TC, B))
    Problem = "part of the kernel is written with macros";
  if (Problem.empty())
    findPrefixReturns(TC, B);
  if (!Problem.empty())
    return decline(B, D, Problem);
  SplitCandidate C = candidate(B, Calls, Sites);
  D = planSplit(KTC, C, SplitSettings::of(KTC), Name);
  D.File = TC.decisionFileOf(FD->getLocation());
  if (Facts.Used.count(FD) && Facts.Why.count(FD))
    D.Reason += " (legal because " + Facts.Why.at(FD) + ")";
  if (D.Applied)
    apply(B, C, D);
  report(B, D, D.Applied ? "WW4003" : "WW3003");
  // Launches are rewritten in this file only; a kernel with external
  // linkage can be launched from another translation unit, which keeps
  // launching the original (left in place for that reason).
  if (D.Applied && FD->isExternallyVisible())
    TC.Log.report(diag::LaunchedElsewhere, Severity::Note, B.Shown,
                  TC.Ctx.getSourceManager().getExpansionLineNumber(
                      FD->getLocation()),
                  0,
                  "`" + D.Kernel +
                      "` has external linkage, so other files may launch "
                      "it: its original definition stays, and launches "
                      "from other files run it unsplit (declare it "
                      "`static` if this file is its only launcher)");
  Decisions.push_back(D);
}

} // namespace

void BranchSplit::run(TransformContext &TC, std::vector<Decision> &Decisions,
                      std::vector<Change> &Changes) {
  if (TC.SplitForm == "none")
    return;
  SplitRun Run(TC, Decisions, Changes, name());
  for (const FunctionDecl *FD : deviceCodeDefinitions(TC.Ctx, false, TC.Scope))
    Run.kernel(FD);
}

} // namespace warpwise
