//===- MergePlanner.cpp - Deciding fusion and melding ---------------------===//
//
// Measured on an H100 (issue #5): fusing a branch that is divergent inside
// warps paid 1.37x-1.51x; the same fusion on a warp-uniform condition lost
// (0.76x-0.90x), and nvcc's own hoisting and if-conversion change with small
// source changes. So a candidate is applied only when (1) the condition is
// divergent within warps, (2) the sides are similar enough, and (3) nvcc's
// output confirms it: no occupancy step lost, no new spills, and fewer SASS
// instructions in the affected kernels.
//
//===----------------------------------------------------------------------===//
#include "MergePlanner.h"
#include "PlanText.h"

#include "warpwise/Costs.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "warpwise/ExecutionModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace warpwise {

namespace {

/// The model's prediction for one candidate over every case it runs in
/// (template instantiation x block size).
struct Prediction {
  double Worst = 1, Best = 1;
  std::string Text; ///< For the remark.
  bool MemoryBound = false;
};

} // namespace

/// Predicts the speedup of the code around the branch (its innermost loop's
/// body, or the function's body) from the execution model.
static Prediction predictMerge(const PlanContext &PC, const MergeCandidate &C,
                               const MergeOutcome &M,
                               const std::vector<const KernelInfo *> &Kernels,
                               double AfterMixed, double AfterUniform,
                               const std::string &FormName) {
  const CostTable &K = PC.Costs;
  Prediction P;
  // The rest of the loop body (or function body) the branch runs in.
  IssueCounter Counter(PC.Ctx, K);
  const clang::Stmt *Around = enclosingLoopBody(C.FD, C.If);
  double Whole = Counter.slots(Around);
  double Region = Counter.slots(C.If);
  double Rest = std::max(Whole - Region, 0.0);
  // The branch as written (also when it could not be merged).
  IssueCounter Sides(PC.Ctx, K);
  double Cond = Sides.exprSlots(C.If->getCond());
  double Then = Sides.slots(C.If->getThen()),
         Else = Sides.slots(C.If->getElse());
  bool Predicated =
      Sides.predicated(C.If->getThen()) && Sides.predicated(C.If->getElse());
  double BeforeMixed =
      Cond + (Predicated ? 0 : K.IssueSlots.Branch + K.DivergedBranch) + Then +
      Else;
  double BeforeUniform = Cond + K.IssueSlots.Branch + 0.5 * (Then + Else);
  // Which warps disagree: lane by lane per case, else the assumption.
  struct Case {
    std::string Name;
    double Mixed;
    std::string Basis;
  };
  std::vector<Case> Cases;
  std::vector<const clang::FunctionDecl *> Instances;
  if (auto *FTD = C.FD->getDescribedFunctionTemplate()) {
    for (const clang::FunctionDecl *Spec : FTD->specializations())
      Instances.push_back(Spec);
  }
  if (Instances.empty())
    Instances.push_back(nullptr);
  const KernelInfo *Own = nullptr;
  for (const KernelInfo *KI : Kernels)
    if (KI->Name == C.FD->getNameAsString())
      Own = KI;
  for (const clang::FunctionDecl *Inst : Instances) {
    std::vector<unsigned> Sizes;
    std::string Name = C.FD->getNameAsString();
    if (Own) {
      Sizes = blockSizesFor(PC.Analysis, *Own,
                            Inst ? kernelSymbolName(PC.Ctx, Inst) : "");
    } else {
      for (const KernelInfo *KI : Kernels)
        for (unsigned T : blockSizesFor(PC.Analysis, *KI, ""))
          Sizes.push_back(T);
      std::sort(Sizes.begin(), Sizes.end());
      Sizes.erase(std::unique(Sizes.begin(), Sizes.end()), Sizes.end());
    }
    if (Sizes.empty())
      Sizes.push_back(256);
    if (Inst) {
      std::string Args;
      if (const auto *TA = Inst->getTemplateSpecializationArgs())
        for (unsigned I = 0; I < TA->size(); ++I) {
          if ((*TA)[I].getKind() != clang::TemplateArgument::Integral)
            continue;
          Args += (Args.empty() ? "" : ", ") +
                  llvm::toString((*TA)[I].getAsIntegral(), 10);
        }
      Name += "<" + Args + ">";
    }
    for (unsigned T : Sizes) {
      WarpMix Mix = warpMixing(PC.Ctx, C.FD, Inst, C.If, T);
      Case K2;
      K2.Name = Name + " at " + std::to_string(T) + " threads";
      if (Mix.Known) {
        K2.Mixed = Mix.Fraction;
        K2.Basis = Mix.Basis;
      } else {
        K2.Mixed = K.DataDependentMixed;
        K2.Basis = "assumed, the condition depends on " + Mix.Basis;
      }
      Cases.push_back(K2);
    }
  }
  // Straight-line code bound by memory traffic gains nothing from issue.
  if (Around == C.FD->getBody()) {
    TrafficEstimate T = kernelTraffic(PC.Ctx, C.FD, K);
    if (T.Memory >= T.Issue) {
      P.MemoryBound = true;
      P.Worst = P.Best = 1;
      P.Text = "model: `" + C.FD->getNameAsString() +
               "` is bound by memory traffic, not issue (" + T.Basis + ": " +
               formatNumber(T.Memory, "%.0f") +
               " slot-equivalents per warp "
               "against " +
               formatNumber(T.Issue, "%.0f") +
               " issue slots), so issue saved there does not shorten it";
      return P;
    }
  }
  P.Worst = 1e9;
  P.Best = 0;
  std::string Detail;
  for (const Case &Cs : Cases) {
    double Before =
        Cs.Mixed * BeforeMixed + (1 - Cs.Mixed) * BeforeUniform + Rest;
    double After = Cs.Mixed * AfterMixed + (1 - Cs.Mixed) * AfterUniform + Rest;
    double S = After > 0 ? Before / After : 1;
    P.Worst = std::min(P.Worst, S);
    P.Best = std::max(P.Best, S);
    if (Cases.size() <= 6 || &Cs == &Cases.front() || &Cs == &Cases.back())
      Detail += std::string(Detail.empty() ? "" : "; ") + Cs.Name + ": " +
                formatPercent(100 * Cs.Mixed) + " of warps mixed (" + Cs.Basis +
                "), predicted " + formatNumber(S, "%.2f") + "x";
  }
  P.Text = "model (" + FormName + "): issue slots per warp " +
           formatNumber(BeforeMixed, "%.0f") + " -> " +
           formatNumber(AfterMixed, "%.0f") + " where lanes disagree, " +
           formatNumber(BeforeUniform, "%.0f") + " -> " +
           formatNumber(AfterUniform, "%.0f") + " where they agree, " +
           formatNumber(Rest, "%.0f") + " around it; " + Detail;
  if (M.LostUnrolling)
    P.Text += "; " + std::to_string(M.LostUnrolling) +
              " merged loop(s) that nvcc unrolled before get selected bounds "
              "and run as loops";
  for (const std::string &A : M.Assumptions)
    P.Text += "; " + A;
  return P;
}

namespace {

/// One candidate's planning: how each form reads in a reason, the form the
/// execution model picks and what nvcc makes of it, one step at a time.
/// Each step that declines the candidate gives D its reason and returns
/// false.
class MergePlan {
public:
  MergePlan(const PlanContext &PC, const MergeCandidate &C,
            const MergeOutcome &M, const SpeculationOutcome *BF,
            const char *Transform)
      : PC(PC), C(C), M(M), BF(BF) {
    D.Transform = Transform;
    D.Kernel = C.FD->getNameAsString();
    D.Line = C.Branch ? C.Branch->Line
                      : PC.Ctx.getSourceManager().getExpansionLineNumber(
                            C.If->getBeginLoc());
    D.Form = "";
    Where = "if-else at line " + std::to_string(D.Line);
  }
  /// The decision; \p Text receives the replacement of the applied form.
  Decision decide(std::string &Text);

private:
  /// Divergent, and legal to rewrite in at least one form.
  bool legal();
  /// Shape, Sim, BFShape and MergedForm.
  void describe();
  Decision forced(std::string &Text);
  /// The kernels the branch runs in: its own, or every kernel of the file
  /// when it sits in a __device__ function.
  std::vector<const KernelInfo *> kernelsRunningIt() const;
  /// The execution model decides whether it pays, and which form
  /// (Form, Candidate); ptxas below only guards registers, spills and
  /// occupancy.
  bool predict();
  /// The file compiled with and without this one rewrite: no occupancy step
  /// lost, no new spills, and nvcc's code changes (Regs, Sass).
  bool compiledGuards();
  /// compiledGuards() for one kernel, \p Before and \p After the rewrite.
  bool kernelGuards(const KernelInfo &K, const KernelStats &Before,
                    const KernelStats &After);
  /// The candidate's edit: \p Replacement in place of the if statement.
  clang::tooling::Replacement edit(const std::string &Replacement) const {
    return clang::tooling::Replacement(C.File, C.Begin, C.End - C.Begin,
                                       Replacement);
  }
  /// The edit of \p Chosen (M.Text or BF->Text) for the floating-point
  /// comparison: with the merged callees' bodies replaced by themselves, so
  /// that their lines count as rewritten (the branch's lanes now compute
  /// them in the merged text).
  std::vector<clang::tooling::Replacement>
  comparedEdits(const std::string &Chosen) const {
    std::vector<clang::tooling::Replacement> E = {edit(Chosen)};
    if (&Chosen == &M.Text)
      for (const auto &[Offset, Body] : M.CalleeBodies)
        E.push_back(
            clang::tooling::Replacement(C.File, Offset, Body.size(), Body));
    return E;
  }

  const PlanContext &PC;
  const MergeCandidate &C;
  const MergeOutcome &M;
  const SpeculationOutcome *BF;
  Decision D;
  std::string Where;
  bool CanBranchFree = false;
  /// --meld-form branch-free: only that form is considered.
  bool OnlyBranchFree = false;
  /// How the merged form reads in a reason: its shape, its similarity, and
  /// its Decision::Form (meld, partial or full); and the branch-free form's.
  std::string Shape, Sim, MergedForm, BFShape;
  std::vector<const KernelInfo *> Kernels;
  Prediction P;
  std::string Form;                       ///< The form predict() picked.
  const std::string *Candidate = nullptr; ///< Its text.
  std::string Regs, Sass;
};

bool MergePlan::legal() {
  if (!C.Branch) {
    D.Reason = Where + " of `" + D.Kernel +
               "`: no divergence verdict (the analysis follows the calls "
               "from this file's kernels, and none of them reaches it); not "
               "rewritten";
    return false;
  }
  if (C.Branch->Level != Uniformity::Divergent) {
    D.Reason = Where + " is " + uniformityName(C.Branch->Level) + " (" +
               C.Branch->Reason +
               "): each warp runs one side only, so merging would add "
               "selects without saving issue slots (measured 0.76x-0.90x on "
               "H100); declined";
    return false;
  }
  CanBranchFree = BF && BF->OK;
  if (PC.MeldForm == "branch-free" && BF && !BF->OK) {
    D.Reason = Where +
               " is divergent, but cannot be made branch-free "
               "(" +
               PC.formSource("meld-form", "branch-free") + "): " + BF->Refusal;
    return false;
  }
  OnlyBranchFree = PC.MeldForm == "branch-free" && CanBranchFree;
  if (!M.OK && !CanBranchFree) {
    D.Reason = Where + " is divergent, but cannot be merged: " + M.Refusal;
    if (BF)
      D.Reason += "; nor made branch-free: " + BF->Refusal;
    return false;
  }
  return true;
}

void MergePlan::describe() {
  Shape = std::to_string(M.Matched) + " statement pair" +
          (M.Matched == 1 ? "" : "s") + " merged" +
          (M.MeldedRegions ? " (" + std::to_string(M.MeldedRegions) +
                                 " of them control-flow regions)"
                           : "") +
          ", " + std::to_string(M.GuardedA) + " then- and " +
          std::to_string(M.GuardedB) + " else-statements kept under guards, " +
          std::to_string(M.Selects) + " operand selects";
  Sim = M.OK ? "similarity " + formatNumber(M.similarity()) + " (saves " +
                   formatNumber(M.Saved, "%.0f") + " of " +
                   formatNumber(M.Total, "%.0f") + " cost units)"
             : "not mergeable (" + M.Refusal + ")";
  BFShape = CanBranchFree
                ? "branch-free form: " + std::to_string(BF->Locations) +
                      " location(s) stored unconditionally, " +
                      std::to_string(BF->Conditions) +
                      " condition(s) evaluated once; store speculation is "
                      "legal because " +
                      BF->Proof
                : "";
  MergedForm =
      M.MeldedRegions ? "meld" : (M.GuardedA + M.GuardedB ? "partial" : "full");
}

Decision MergePlan::forced(std::string &Text) {
  bool Merged = M.OK && !OnlyBranchFree;
  const std::string &Chosen = Merged ? M.Text : BF->Text;
  // Forced or not, the results must stay bit-identical.
  if (auto Why = PC.contractionChange(comparedEdits(Chosen), C.FD)) {
    D.Reason = Where + " is divergent; " + Sim + "; but " + *Why;
    return D;
  }
  D.Applied = true;
  D.Form = Merged ? MergedForm : "branch-free";
  Text = Chosen;
  D.Reason = Where + " is divergent; " + Sim + "; " +
             (Merged ? Shape : BFShape) + "; applied because of " +
             PC.ForcedBy + " (profitability was not checked)";
  return D;
}

std::vector<const KernelInfo *> MergePlan::kernelsRunningIt() const {
  std::vector<const KernelInfo *> Running;
  for (const KernelInfo &K : PC.Analysis.Kernels)
    if (K.Name == D.Kernel)
      Running.push_back(&K);
  if (Running.empty())
    for (const KernelInfo &K : PC.Analysis.Kernels)
      Running.push_back(&K);
  return Running;
}

bool MergePlan::predict() {
  const CostTable &K = PC.Costs;
  bool CanMerge =
      M.OK && !OnlyBranchFree && M.similarity() >= K.SimilarityThreshold;
  if (!CanMerge && !CanBranchFree) {
    D.Reason = Where + " is divergent; " + Sim + " is below the threshold " +
               formatNumber(K.SimilarityThreshold) + " (" + K.Source + "); " +
               Shape + "; declined";
    return false;
  }
  Kernels = kernelsRunningIt();
  bool UseBranchFree = false;
  std::string Models;
  if (CanMerge) {
    double AfterMixed =
        M.IssueCond + M.AfterShared + M.AfterGuardedA + M.AfterGuardedB +
        M.AfterGuards * (K.IssueSlots.Branch + K.DivergedBranch) +
        M.AfterLoopIterations * K.LoopIteration;
    double AfterUniform = M.IssueCond + M.AfterShared +
                          0.5 * (M.AfterGuardedA + M.AfterGuardedB) +
                          M.AfterGuards * K.IssueSlots.Branch +
                          M.AfterLoopIterations * K.LoopIteration;
    P = predictMerge(PC, C, M, Kernels, AfterMixed, AfterUniform,
                     M.MeldedRegions ? "meld" : "fuse");
    Models = P.Text;
  }
  if (CanBranchFree) {
    Prediction PB =
        predictMerge(PC, C, M, Kernels, BF->Issue, BF->Issue, "branch-free");
    // The better worst case, then the better best case. (Whether the kernel
    // is memory-bound does not depend on the form.)
    const double Eps = 1e-9;
    UseBranchFree = !CanMerge || PB.Worst > P.Worst + Eps ||
                    (PB.Worst >= P.Worst - Eps && PB.Best > P.Best + Eps);
    if (UseBranchFree)
      P = PB;
    if (PB.Text != Models)
      Models += std::string(Models.empty() ? "" : "; ") + PB.Text;
  }
  Form = UseBranchFree ? "branch-free" : MergedForm;
  Candidate = UseBranchFree ? &BF->Text : &M.Text;
  if (UseBranchFree)
    Shape = BFShape;
  else if (CanBranchFree)
    Shape += "; the " + BFShape + ", predicted to gain less";
  else if (BF && !BF->OK && M.MeldedRegions)
    Shape += "; no branch-free form (" + BF->Refusal + ")";
  if (P.MemoryBound) {
    D.Reason = Where + " is divergent; " + Sim + "; " + Models + "; declined";
    return false;
  }
  if (P.Worst < K.MaxPredictedLoss || P.Best < K.MinPredictedGain) {
    D.Reason = Where + " is divergent; " + Sim + "; " + Models +
               "; declined: " +
               (P.Worst < K.MaxPredictedLoss
                    ? "a case is predicted below " +
                          formatNumber(K.MaxPredictedLoss) + "x"
                    : "no case is predicted to gain " +
                          formatNumber(K.MinPredictedGain) + "x") +
               " (" + K.Source + ")";
    return false;
  }
  P.Text = Models;
  return true;
}

bool MergePlan::kernelGuards(const KernelInfo &K, const KernelStats &Before,
                             const KernelStats &After) {
  std::vector<unsigned> Sizes = K.BlockSizes;
  if (Sizes.empty())
    Sizes.push_back(K.BlockSize ? K.BlockSize : 256);
  // Every instantiation at every block size it may be launched with: a
  // template whose small instantiation crosses a step while the large one
  // does not still loses occupancy there.
  std::vector<KernelStats> InstB = compiledInstances(Before),
                           InstA = compiledInstances(After);
  unsigned MinB = ~0u, MaxB = 0, MinA = ~0u, MaxA = 0;
  for (const KernelStats &IB : InstB) {
    const KernelStats *IA = sameInstance(InstA, IB);
    std::string What = "`" + K.Name + "`";
    if (InstB.size() > 1)
      What = "`" + instanceName(IB.Mangled) + "`";
    if (!IA) {
      D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                 " is missing from nvcc's output for the candidate; "
                 "declined";
      return false;
    }
    MinB = std::min(MinB, IB.Registers);
    MaxB = std::max(MaxB, IB.Registers);
    MinA = std::min(MinA, IA->Registers);
    MaxA = std::max(MaxA, IA->Registers);
    for (unsigned Threads : blockSizesFor(PC.Analysis, K, IB.Mangled)) {
      OccupancyResult OB =
          computeOccupancy(PC.Arch, {IB.Registers, Threads, K.StaticShared});
      OccupancyResult OA =
          computeOccupancy(PC.Arch, {IA->Registers, Threads, K.StaticShared});
      if (OA.Percent < OB.Percent) {
        D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                   " registers " + std::to_string(IB.Registers) + " -> " +
                   std::to_string(IA->Registers) + ", occupancy " +
                   formatPercent(OB.Percent) + " -> " +
                   formatPercent(OA.Percent) + " at " +
                   std::to_string(Threads) + " threads on " + PC.Arch.smName() +
                   ": merging would cost an occupancy step (as seed 001's "
                   "div3 did); declined";
        return false;
      }
    }
    if (IA->SpillBytes > IB.SpillBytes) {
      D.Reason = Where + " is divergent; " + Sim + "; but " + What +
                 " would spill (" + std::to_string(IB.SpillBytes) + " -> " +
                 std::to_string(IA->SpillBytes) + " bytes); declined";
      return false;
    }
  }
  if (InstB.empty())
    return true;
  auto Range = [](unsigned Lo, unsigned Hi) {
    return Lo == Hi ? std::to_string(Lo)
                    : std::to_string(Lo) + ".." + std::to_string(Hi);
  };
  std::string Threads;
  for (unsigned T : Sizes)
    Threads += (Threads.empty() ? "" : ", ") + std::to_string(T);
  std::string R = "`" + K.Name + "` registers " + Range(MinB, MaxB) + " -> " +
                  Range(MinA, MaxA);
  if (InstB.size() > 1)
    R += " over " + std::to_string(InstB.size()) + " instantiations";
  if (InstB.size() == 1 && Sizes.size() == 1) {
    OccupancyResult OB = computeOccupancy(
        PC.Arch, {InstB[0].Registers, Sizes[0], K.StaticShared});
    OccupancyResult OA =
        computeOccupancy(PC.Arch, {MaxA, Sizes[0], K.StaticShared});
    R += ", occupancy " + formatPercent(OB.Percent) + " -> " +
         formatPercent(OA.Percent) + " at " + Threads + " threads on " +
         PC.Arch.smName();
  } else {
    R += ", no occupancy step lost at " + Threads + " threads on " +
         PC.Arch.smName();
  }
  Regs += (Regs.empty() ? "" : "; ") + R;
  return true;
}

bool MergePlan::compiledGuards() {
  if (!PC.Feedback || !PC.Feedback->available()) {
    D.Reason = Where + " is divergent; " + Sim + "; " + P.Text +
               "; declined because the register guard needs ptxas and "
               "cuobjdump, and " +
               feedbackUnavailable(PC.Feedback);
    return false;
  }
  std::string NvArch = PtxasRunner::nvccArchFor(PC.Arch);
  // Side by side; the original's error first, as when compiled in turn.
  PlanContext::MeasuredPair Measured =
      PC.measureOnEarlier({edit(*Candidate)}, NvArch);
  auto &Before = Measured.Before, &After = Measured.After;
  std::string Error = Before ? Measured.AfterError : Measured.BeforeError;
  if (!Before || !After) {
    D.Reason = Where + ": nvcc failed on the " +
               std::string(Before ? "candidate" : "original") + " (" + Error +
               "); not rewritten";
    return false;
  }
  unsigned InsBefore = 0, InsAfter = 0, BraBefore = 0, BraAfter = 0;
  for (const KernelInfo *K : Kernels) {
    auto B = Before->find(K->Name), A = After->find(K->Name);
    if (B == Before->end() || A == After->end())
      continue;
    InsBefore += B->second.Instructions;
    InsAfter += A->second.Instructions;
    BraBefore += B->second.Branches;
    BraAfter += A->second.Branches;
    if (!kernelGuards(*K, B->second, A->second))
      return false;
  }
  Sass = "SASS instructions " + std::to_string(InsBefore) + " -> " +
         std::to_string(InsAfter) + ", branches " + std::to_string(BraBefore) +
         " -> " + std::to_string(BraAfter);
  // The same instruction and branch counts: nvcc already shares that work,
  // and the rewrite would change the source without changing the machine
  // code.
  if (InsAfter == InsBefore && BraAfter == BraBefore) {
    D.Reason = Where + " is divergent; " + Sim + "; " + P.Text +
               "; but nvcc's code is the same size (" + Sass +
               "): it already shares that work; declined";
    return false;
  }
  return true;
}

Decision MergePlan::decide(std::string &Text) {
  if (!legal())
    return D;
  describe();
  if (PC.Force)
    return forced(Text);
  if (!predict() || !compiledGuards())
    return D;
  if (auto Why = PC.contractionChange(comparedEdits(*Candidate), C.FD)) {
    D.Reason = Where + " is divergent; " + Sim + "; " + P.Text + "; " + Sass +
               "; but " + *Why;
    return D;
  }
  D.Applied = true;
  D.Form = Form;
  D.Measured = Regs + "; " + Sass;
  Text = *Candidate;
  D.Reason = Where + " is divergent (" + C.Branch->Reason + "); " + Sim + "; " +
             Shape + "; " + P.Text + "; " + Regs + "; " + Sass + "; applied";
  return D;
}

} // namespace

Decision planMerge(const PlanContext &PC, const MergeCandidate &C,
                   const MergeOutcome &M, const SpeculationOutcome *BF,
                   const char *Transform, std::string &Text) {
  return MergePlan(PC, C, M, BF, Transform).decide(Text);
}

} // namespace warpwise
