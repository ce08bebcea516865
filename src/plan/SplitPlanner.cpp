//===- SplitPlanner.cpp - Deciding branch splitting -----------------------===//
#include "SplitPlanner.h"
#include "PlanText.h"

#include "warpwise/Embedded.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/SmallVector.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace warpwise {

namespace {

SplitPolicy readSplitPolicy() {
  SplitPolicy P;
  nlohmann::json Rules =
      nlohmann::json::parse(findEmbeddedFile("split.json"), nullptr, false);
  if (!Rules.is_object())
    return P;
  P.LiteralProfitableUpToCc =
      Rules.value("literal_profitable_up_to_cc", P.LiteralProfitableUpToCc);
  P.MinPredictedSpeedup =
      Rules.value("min_predicted_speedup", P.MinPredictedSpeedup);
  P.KernelLaunchOverheadUs =
      Rules.value("kernel_launch_overhead_us", P.KernelLaunchOverheadUs);
  P.CompactApplyAutomatically =
      Rules.value("compact_apply_automatically", P.CompactApplyAutomatically);
  P.CompactMeasured = Rules.value("compact_measured", P.CompactMeasured);
  nlohmann::json A = Rules.value("adaptive", nlohmann::json::object());
  if (!A.is_object())
    return P;
  P.Adaptive.ListedWarpCost =
      A.value("listed_warp_cost", P.Adaptive.ListedWarpCost);
  P.Adaptive.MinSavedWarpFraction =
      A.value("min_saved_warp_fraction", P.Adaptive.MinSavedWarpFraction);
  P.Adaptive.RecheckEvery = A.value("recheck_every", P.Adaptive.RecheckEvery);
  P.Adaptive.HeavyGridMargin =
      A.value("heavy_grid_margin", P.Adaptive.HeavyGridMargin);
  P.Adaptive.MeasuredDispatch =
      A.value("measured_dispatch", P.Adaptive.MeasuredDispatch);
  return P;
}

} // namespace

const SplitPolicy &splitPolicy() {
  static const SplitPolicy Policy = readSplitPolicy();
  return Policy;
}

SplitSettings SplitSettings::of(const PlanContext &PC) {
  SplitSettings S;
  S.Form = PC.SplitForm;
  S.Force = PC.Force;
  S.ForcedBy = PC.ForcedBy;
  S.FormBy = PC.FormBy;
  return S;
}

std::string SplitSettings::askedFor(llvm::StringRef AskedForm) const {
  if (!FormBy.empty())
    return FormBy;
  if (Form == AskedForm)
    return ("--split-form " + AskedForm).str();
  return ForcedBy;
}

std::string splitFormFor(llvm::StringRef Spec, llvm::StringRef Kernel) {
  if (!Spec.contains('='))
    return Spec.str();
  llvm::SmallVector<llvm::StringRef> Parts;
  Spec.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    auto [Name, Form] = P.trim().split('=');
    if (Name.trim() == Kernel)
      return Form.trim().str();
  }
  return "";
}


namespace {

using clang::tooling::Replacement;

/// " (the largest of N instantiations)" for a template measured in several.
std::string largestNote(const KernelStats &S) {
  return S.Instances.size() > 1
             ? " (the largest of " + std::to_string(S.Instances.size()) +
                   " instantiations)"
             : std::string();
}

/// The literal form as ptxas measured it: its kernels' registers and
/// occupancies and the CF'09 formula's prediction, or why not (Formula).
struct LiteralMeasure {
  std::string Formula;
  double Predicted = 0;
  double ThenOcc = 0, ElseOcc = 0; ///< Percent; 0: not measured.
  unsigned ThenRegs = 0, ElseRegs = 0;
};

/// The edits of \p C's \p Form, and the groups of kernels that run the
/// original's threads together on one path the rewritten program may take.
std::pair<std::vector<clang::tooling::Replacement>,
          std::vector<std::vector<std::string>>>
formEdits(const SplitCandidate &C, const std::string &Kernel,
          const std::string &Form) {
  using clang::tooling::Replacement;
  std::vector<Replacement> R;
  std::vector<std::vector<std::string>> Groups;
  const std::vector<Replacement> *Launches = &C.Launches;
  if (Form == "literal") {
    R.push_back(Replacement(C.File, C.InsertAt, 0, C.Kernels));
    Groups = {{Kernel + "_ww_then", Kernel + "_ww_else"}};
  } else if (Form == "compact") {
    if (!C.CompactPrelude.empty())
      R.push_back(Replacement(C.File, C.PreludeAt, 0, C.CompactPrelude));
    R.push_back(Replacement(C.File, C.InsertAt, 0, C.CompactKernels));
    Launches = &C.CompactLaunches;
    Groups = {{Kernel + "_ww_light", Kernel + "_ww_heavy"}};
  } else {
    if (!C.AdaptivePrelude.empty())
      R.push_back(Replacement(C.File, C.PreludeAt, 0, C.AdaptivePrelude));
    R.push_back(Replacement(C.File, C.InsertAt, 0, C.AdaptiveKernels));
    Launches = &C.AdaptiveLaunches;
    // The host runs, per launch, the adaptive kernel (the original's code
    // for warps that stay whole, its heavy threads listed for the heavy
    // kernel) or the light kernel with the heavy one.
    Groups = {{Kernel + "_ww_adaptive", Kernel + "_ww_heavy"},
              {Kernel + "_ww_light", Kernel + "_ww_heavy"}};
  }
  R.insert(R.end(), Launches->begin(), Launches->end());
  return {R, Groups};
}

/// One candidate's planning: measurements shared by the forms' decisions.
class SplitPlan {
public:
  SplitPlan(const PlanContext &PC, const SplitCandidate &C,
            const SplitSettings &S, const char *Transform)
      : PC(PC), C(C), S(S), P(*S.Policy) {
    D.Transform = Transform;
    D.Kernel = C.Kernel->getNameAsString();
    D.Line = C.Line;
    D.Form = "literal";
    Where = "if-else at line " + std::to_string(C.Line) + " of `" + D.Kernel +
            "` is divergent (" +
            (C.Branch ? C.Branch->Reason : std::string("?")) + ")";
    Threads = 256;
    for (const KernelInfo &K : PC.Analysis.Kernels)
      if (K.Name == D.Kernel && K.BlockSize)
        Threads = K.BlockSize;
  }
  Decision decide();

private:
  bool feedback() const { return PC.Feedback && PC.Feedback->available(); }
  bool oldTarget() const;
  void measureOriginal();
  void measureLiteral();
  /// ptxas on the edits of \p Form (formEdits), for nvcc's oldest target.
  std::optional<std::map<std::string, KernelStats>>
  measureForm(const std::string &Form, std::string &Arch, std::string &Error);
  Decision compact();
  std::string compactFacts(Decision &K, double &Light, double &Orig);
  Decision adaptive(bool Forced);
  bool adaptivePays(Decision &A, std::string &Facts);
  bool adaptiveKernelsFit(Decision &A, bool Forced, std::string &Facts);
  Decision literalForced();
  Decision byDefault();
  Decision literalByFormula();

  const PlanContext &PC;
  const SplitCandidate &C;
  const SplitSettings &S;
  const SplitPolicy &P;
  Decision D;
  std::string Where;
  unsigned Threads;
  /// The original kernel as compiled from the file as it is: a template
  /// kernel is no longer instantiated once its launches go to the new
  /// kernels. For a template, its largest instantiation.
  std::optional<KernelStats> Original;
  std::string OriginalError;
  LiteralMeasure Literal;
};

bool SplitPlan::oldTarget() const {
  const std::string &MaxCc = P.LiteralProfitableUpToCc;
  unsigned MaxMajor = std::stoi(MaxCc.substr(0, MaxCc.find('.')));
  unsigned MaxMinor = std::stoi(MaxCc.substr(MaxCc.find('.') + 1));
  return PC.Arch.Major < MaxMajor ||
         (PC.Arch.Major == MaxMajor && PC.Arch.Minor <= MaxMinor);
}

void SplitPlan::measureOriginal() {
  if (!feedback())
    return;
  // The literal form, which measureLiteral measures next, is compiled
  // beside the original: its answer waits in CompileFeedback's memory.
  // The split's forms are weighed by registers alone (the contraction
  // check has the code listed where it compares it).
  PlanContext::MeasuredPair Measured =
      PC.measureOnEarlier(formEdits(C, D.Kernel, "literal").first,
                          PtxasRunner::nvccArchFor(PC.Arch),
                          /*NeedCode=*/false);
  auto &Before = Measured.Before;
  OriginalError = Measured.BeforeError;
  if (Before && Before->count(D.Kernel))
    Original = Before->at(D.Kernel);
}

// The CF'09 formula, with each side's run time taken as equal (the paper's
// worked example): S = (2 / rho_min) / (1 / rho_if + 1 / rho_else).
void SplitPlan::measureLiteral() {
  LiteralMeasure &L = Literal;
  if (!feedback()) {
    L.Formula = "no ptxas feedback (" + feedbackUnavailable(PC.Feedback) + ")";
    return;
  }
  std::string Arch, Error;
  auto Stats = measureForm("literal", Arch, Error);
  if (!Original)
    Error = OriginalError.empty()
                ? "the original kernel is missing from nvcc's output"
                : OriginalError;
  const std::string Then = D.Kernel + "_ww_then", Else = D.Kernel + "_ww_else";
  if (!Stats || !Original || !Stats->count(Then) || !Stats->count(Else)) {
    L.Formula = "nvcc could not measure the split kernels (" + Error + ")";
    return;
  }
  auto Occ = [&](unsigned Registers) {
    return computeOccupancy(PC.Arch, {Registers, Threads, 0}).Percent / 100.0;
  };
  double Rmin = Occ(Original->Registers);
  L.ThenRegs = Stats->at(Then).Registers;
  L.ElseRegs = Stats->at(Else).Registers;
  double R1 = Occ(L.ThenRegs), R2 = Occ(L.ElseRegs);
  L.ThenOcc = 100 * R1;
  L.ElseOcc = 100 * R2;
  if (Rmin > 0 && R1 > 0 && R2 > 0)
    L.Predicted = (2 / Rmin) / (1 / R1 + 1 / R2);
  L.Formula = "registers " + std::to_string(Original->Registers) +
              largestNote(*Original) + " -> " + std::to_string(L.ThenRegs) +
              " (if-kernel) and " + std::to_string(L.ElseRegs) +
              " (else-kernel) on " + Arch + ", occupancy on " +
              PC.Arch.smName() + " " + formatPercent(100 * Rmin) + " -> " +
              formatPercent(100 * R1) + " and " + formatPercent(100 * R2) +
              " at " + std::to_string(Threads) +
              " threads; CF'09 formula (equal side times, launch overhead "
              "ignored) predicts " +
              formatNumber(L.Predicted, "%.2f") + "x";
  if (Arch != PC.Arch.smName())
    L.Formula += " (registers measured for " + Arch +
                 ", the oldest target nvcc 13 compiles)";
}

std::optional<std::map<std::string, KernelStats>>
SplitPlan::measureForm(const std::string &Form, std::string &Arch,
                       std::string &Error) {
  Arch = PtxasRunner::nvccArchFor(PC.Arch);
  return PC.measure(formEdits(C, D.Kernel, Form).first, Arch, Error,
                    /*NeedCode=*/false);
}

/// The compact form's registers and occupancies (\p Light, \p Orig: the
/// light kernel's and the original's occupancy), or "no ptxas feedback";
/// sets \p K's reason when nvcc fails (then returns "").
std::string SplitPlan::compactFacts(Decision &K, double &Light, double &Orig) {
  if (!feedback())
    return "no ptxas feedback";
  std::string Arch, Error;
  auto Stats = measureForm("compact", Arch, Error);
  const std::string LightK = D.Kernel + "_ww_light",
                    HeavyK = D.Kernel + "_ww_heavy";
  if (!Stats || !Stats->count(LightK) || !Stats->count(HeavyK) || !Original) {
    K.Reason = Where + "; nvcc could not compile the " +
               (Original ? "compact form (" + Error
                         : "original (" + OriginalError) +
               "); not split";
    return "";
  }
  auto Occ = [&](const std::string &Name, unsigned long Smem) {
    return computeOccupancy(PC.Arch, {Stats->at(Name).Registers, Threads, Smem})
        .Percent;
  };
  Orig = computeOccupancy(PC.Arch, {Original->Registers, Threads, 0}).Percent;
  Light = Occ(LightK, 132);
  double Heavy = Occ(HeavyK, 0);
  return "registers " + std::to_string(Original->Registers) +
         largestNote(*Original) + " -> " +
         std::to_string(Stats->at(LightK).Registers) +
         " (light kernel, with the compaction) and " +
         std::to_string(Stats->at(HeavyK).Registers) +
         " (heavy kernel); occupancy " + formatPercent(Orig) + " -> " +
         formatPercent(Light) + " and " + formatPercent(Heavy) + " at " +
         std::to_string(Threads) + " threads on " + PC.Arch.smName();
}

// The compact form, for the generations where the literal one loses.
Decision SplitPlan::compact() {
  Decision K = D;
  K.Form = "compact";
  if (!C.CompactProblem.empty()) {
    K.Reason = Where + "; the compact form does not apply: " +
               C.CompactProblem + "; not split";
    return K;
  }
  double Light = 0, Orig = 0;
  std::string Facts = compactFacts(K, Light, Orig);
  if (Facts.empty())
    return K;
  if (S.Form == "compact" || S.Force) {
    K.Applied = true;
    K.Measured = Facts;
    K.Reason = Where + "; " + Facts +
               "; compact split applied because it "
               "was forced (" +
               S.askedFor("compact") + ")";
    return K;
  }
  if (!P.CompactApplyAutomatically) {
    K.Reason = Where + "; " + Facts +
               "; the compact form is legal here, "
               "but it is applied only on request (--split-form compact): " +
               P.CompactMeasured + "; not split";
    return K;
  }
  if (Light <= Orig) {
    K.Reason = Where + "; " + Facts +
               "; the light side gains no occupancy "
               "by leaving the heavy one, so the compact form has nothing to "
               "win; not split";
    return K;
  }
  K.Applied = true;
  K.Measured = Facts;
  K.Reason = Where + "; " + Facts +
             "; compact split applied: on H100 it "
             "measured 2x-8x when 1-25% of the threads take the heavy side "
             "and about 1.0x at 75-100% (the share is not known before run "
             "time); the grid is assumed to be at least one wave of blocks, "
             "below which two kernels lose";
  return K;
}

/// Unless forced: the adaptive form is chosen where which threads take the
/// heavy side is run-time data and the heavy side alone costs an occupancy
/// step more than the light side. Sets \p Facts, or \p A's reason (false).
bool SplitPlan::adaptivePays(Decision &A, std::string &Facts) {
  if (!C.DataDependent) {
    A.Reason = Where + "; which threads take the heavy side follows from "
                       "the thread indices alone, not from data, so the "
                       "adaptive form is not chosen (--split-form "
                       "adaptive forces it); not split";
    return false;
  }
  const LiteralMeasure &L = Literal;
  if (!L.ThenRegs || !L.ElseRegs) {
    A.Reason = Where + "; " + L.Formula +
               ", so warpwise cannot show that the heavy side costs an "
               "occupancy step; not split";
    return false;
  }
  double Light = C.HeavyIsElse ? L.ThenOcc : L.ElseOcc;
  double Heavy = C.HeavyIsElse ? L.ElseOcc : L.ThenOcc;
  unsigned LightRegs = C.HeavyIsElse ? L.ThenRegs : L.ElseRegs;
  unsigned HeavyRegs = C.HeavyIsElse ? L.ElseRegs : L.ThenRegs;
  Facts = std::string("the light (") + (C.HeavyIsElse ? "then" : "else") +
          ") side alone needs " + std::to_string(LightRegs) + " registers (" +
          formatPercent(Light) +
          " occupancy), the heavy "
          "side " +
          std::to_string(HeavyRegs) + " (" + formatPercent(Heavy) + ") on " +
          PC.Arch.smName() + " at " + std::to_string(Threads) + " threads";
  if (Heavy >= Light) {
    A.Reason = Where + "; " + Facts +
               ": the heavy side costs no occupancy step more than the "
               "light one, so taking it out of mixed warps frees little; "
               "not split";
    return false;
  }
  return true;
}

/// With ptxas: the three kernels compile, and (unless forced) listing the
/// heavy threads costs the original no occupancy step. Adds their
/// registers to \p Facts, or sets \p A's reason (false).
bool SplitPlan::adaptiveKernelsFit(Decision &A, bool Forced,
                                   std::string &Facts) {
  if (!feedback() || !Original)
    return true;
  std::string Arch, Error;
  auto Stats = measureForm("adaptive", Arch, Error);
  const std::string InPlace = D.Kernel + "_ww_adaptive",
                    LightK = D.Kernel + "_ww_light",
                    HeavyK = D.Kernel + "_ww_heavy";
  if (!Stats || !Stats->count(InPlace) || !Stats->count(LightK) ||
      !Stats->count(HeavyK)) {
    A.Reason = Where + "; nvcc could not compile the adaptive form (" + Error +
               "); not split";
    return false;
  }
  unsigned RA = Stats->at(InPlace).Registers;
  unsigned RH = Stats->at(HeavyK).Registers;
  unsigned RL = Stats->at(LightK).Registers;
  double OL = computeOccupancy(PC.Arch, {RL, Threads, 140}).Percent;
  double OA = computeOccupancy(PC.Arch, {RA, Threads, 140}).Percent;
  double OH = computeOccupancy(PC.Arch, {RH, Threads, 0}).Percent;
  double OO =
      computeOccupancy(PC.Arch, {Original->Registers, Threads, 0}).Percent;
  std::string Kernels =
      "`" + InPlace + "` " + std::to_string(RA) + " registers (" +
      formatPercent(OA) + "; the original " +
      std::to_string(Original->Registers) + largestNote(*Original) + ", " +
      formatPercent(OO) + "), `" + LightK + "` " + std::to_string(RL) + " (" +
      formatPercent(OL) + "), `" + HeavyK + "` " + std::to_string(RH) + " (" +
      formatPercent(OH) + ")";
  if (OA < OO && !Forced) {
    A.Reason = Where + "; " + Facts + "; " + Kernels +
               ": listing the heavy threads costs the kernel an occupancy "
               "step, so the warps that stay would run slower than the "
               "original; not split";
    return false;
  }
  Facts += (Facts.empty() ? "" : "; ") + Kernels;
  return true;
}

// The adaptive form: chosen by default where the heavy side costs an
// occupancy step more than the light one and which threads take it is
// run-time data; the generated host code then picks, per launch, between
// the original kernel and the split pair (rules/split.json "adaptive").
Decision SplitPlan::adaptive(bool Forced) {
  Decision A = D;
  A.Form = "adaptive";
  if (!C.AdaptiveProblem.empty()) {
    A.Reason = Where + "; the adaptive form does not apply: " +
               C.AdaptiveProblem + "; not split";
    return A;
  }
  if (PC.Arch.Major < 3) {
    A.Reason = Where +
               "; the adaptive form needs warp votes "
               "(__ballot_sync), which " +
               PC.Arch.smName() + " does not have; not split";
    return A;
  }
  std::string Facts;
  if (!Forced && !adaptivePays(A, Facts))
    return A;
  if (!adaptiveKernelsFit(A, Forced, Facts))
    return A;
  A.Applied = true;
  A.Measured = Facts;
  char Rule[320];
  snprintf(Rule, sizeof Rule,
           "at run time the host picks per launch the original kernel or "
           "a split pair (in place or light) when, by the counts of earlier "
           "launches, it saves heavy-side work of at least %g%% of the "
           "launch's warps, "
           "looking again every %u launches (rules/split.json)",
           100 * P.Adaptive.MinSavedWarpFraction, P.Adaptive.RecheckEvery);
  A.Reason = Where + "; " + (Facts.empty() ? "" : Facts + "; ") +
             (Forced ? "adaptive split applied because it was forced "
                       "(" +
                           S.askedFor("adaptive") + "); "
                     : "adaptive split applied; ") +
             Rule +
             (C.AdaptiveMeasured
                  ? "; each launch is also a measured dispatch: on its "
                    "first launches of each shape it times a split pair "
                    "against the original kernel and runs the faster "
                    "(-DWARPWISE_DISPATCH=0 or =1 pins one)"
                  : "");
  return A;
}

Decision SplitPlan::literalForced() {
  Decision L = D;
  L.Applied = true;
  L.Measured = Literal.Formula;
  L.Reason = Where + "; " + Literal.Formula +
             "; literal split applied because it was forced "
             "(" +
             S.askedFor("literal") + ")";
  return L;
}

// On CC up to literal_profitable_up_to_cc: the literal form where the
// CF'09 formula predicts it pays.
Decision SplitPlan::literalByFormula() {
  Decision L = D;
  if (Literal.Predicted < P.MinPredictedSpeedup) {
    L.Reason = Where + "; " + Literal.Formula + ", below the " +
               formatNumber(P.MinPredictedSpeedup, "%.2f") +
               "x that rules/split.json asks; not "
               "split";
    return L;
  }
  L.Applied = true;
  L.Measured = Literal.Formula;
  L.Reason = Where + "; " + Literal.Formula + "; CC " + PC.Arch.Cc +
             " is a generation where the literal split paid (CF'09: +6% to "
             "+14% on a G80); applied, assuming the grid covers at least one "
             "wave of blocks: the second kernel costs about " +
             formatNumber(P.KernelLaunchOverheadUs, "%.0f") +
             " us more (rules/split.json), which a smaller grid does not "
             "earn back";
  return L;
}

// Nothing forced a form: the adaptive form where it pays; then, on new
// targets, the compact form where it is applied automatically; on old
// ones, the literal form by the formula.
Decision SplitPlan::byDefault() {
  Decision Adaptive = adaptive(S.Force);
  if (Adaptive.Applied)
    return Adaptive;
  if (oldTarget())
    return literalByFormula();
  // The literal form loses here (0.72x-0.99x on H100: the else-kernel's
  // early-exit pass runs at the heavy kernel's occupancy), and the compact
  // form is applied only on request.
  Decision K = compact();
  if (!K.Applied) {
    K = Adaptive;
    K.Reason += " (the literal form was not considered: " + Literal.Formula +
                ", but it measured 0.72x-0.99x on H100; " +
                (C.CompactProblem.empty()
                     ? std::string("the compact form is legal here, but it "
                                   "is applied only on request "
                                   "(--split-form compact))")
                     : "the compact form does not apply: " +
                           C.CompactProblem + ")");
  }
  return K;
}

Decision SplitPlan::decide() {
  measureOriginal();
  measureLiteral();
  if (S.Form == "adaptive")
    return adaptive(true);
  if (S.Form == "compact")
    return compact();
  if (S.Form == "literal" || (S.Force && oldTarget()))
    return literalForced();
  return byDefault();
}

} // namespace

Decision planSplit(const PlanContext &PC, const SplitCandidate &C,
                   const SplitSettings &S, const char *Transform) {
  Decision D = SplitPlan(PC, C, S, Transform).decide();
  if (!D.Applied)
    return D;
  // Forced or not, the results must stay bit-identical: the split kernels
  // are new code, and nvcc may contract their products and sums
  // differently from the original's (issue 26).
  auto [Edits, Groups] = formEdits(C, D.Kernel, D.Form);
  if (auto Why = PC.splitContractionChange(Edits, D.Kernel, Groups)) {
    D.Applied = false;
    D.Measured.clear();
    D.Reason = "if-else at line " + std::to_string(C.Line) + " of `" +
               D.Kernel + "`: the " + D.Form + " split would apply, but " +
               *Why;
  }
  return D;
}

} // namespace warpwise
