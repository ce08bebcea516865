//===- SplitPlanner.cpp - Deciding branch splitting -----------------------===//
#include "SplitPlanner.h"
#include "PlanText.h"

#include "warpwise/Embedded.h"
#include "warpwise/Feedback.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Ptxas.h"

#include "clang/AST/Decl.h"
#include <nlohmann/json.hpp>

namespace warpwise {

namespace {

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

Decision chooseSplit(TransformContext &TC, const SplitCandidate &C,
                     const char *Transform) {
  Decision D;
  D.Transform = Transform;
  D.Kernel = C.Kernel->getNameAsString();
  D.Line = C.Line;
  D.Form = "literal";
  std::string Where = "if-else at line " + std::to_string(C.Line) + " of `" +
                      D.Kernel + "` is divergent (" +
                      (C.Branch ? C.Branch->Reason : std::string("?")) + ")";
  nlohmann::json Rules =
      nlohmann::json::parse(findEmbeddedFile("split.json"), nullptr, false);
  std::string MaxCc = Rules.value("literal_profitable_up_to_cc", "3.7");
  double MinSpeedup = Rules.value("min_predicted_speedup", 1.05);
  unsigned MaxMajor = std::stoi(MaxCc.substr(0, MaxCc.find('.')));
  unsigned MaxMinor = std::stoi(MaxCc.substr(MaxCc.find('.') + 1));
  bool OldTarget = TC.Arch.Major < MaxMajor ||
                   (TC.Arch.Major == MaxMajor && TC.Arch.Minor <= MaxMinor);

  // The CF'09 formula, with each side's run time taken as equal (the
  // paper's worked example): S = (2 / rho_min) / (1 / rho_if + 1 / rho_else).
  std::string Formula;
  double Predicted = 0;
  // The literal kernels' occupancies (each side alone), when measured.
  double ThenOcc = 0, ElseOcc = 0;
  unsigned ThenRegs = 0, ElseRegs = 0;
  std::string LiteralArch;
  // The original kernel as compiled from the file as it is: a template
  // kernel is no longer instantiated once its launches go to the new
  // kernels. For a template, its largest instantiation.
  std::optional<KernelStats> Original;
  std::string OriginalError;
  if (TC.Feedback && TC.Feedback->available()) {
    auto Before =
        TC.measure({}, PtxasRunner::nvccArchFor(TC.Arch), OriginalError);
    if (Before && Before->count(D.Kernel))
      Original = Before->at(D.Kernel);
  }
  auto Largest = [&](const KernelStats &S) {
    return S.Instances.size() > 1
               ? " (the largest of " + std::to_string(S.Instances.size()) +
                     " instantiations)"
               : std::string();
  };
  if (TC.Feedback && TC.Feedback->available()) {
    std::vector<clang::tooling::Replacement> R =
        formEdits(C, D.Kernel, "literal").first;
    std::string Arch = PtxasRunner::nvccArchFor(TC.Arch), Error;
    auto Stats = TC.measure(R, Arch, Error);
    if (!Original)
      Error = OriginalError.empty() ? "the original kernel is missing from "
                                      "nvcc's output"
                                    : OriginalError;
    if (Stats && Original && Stats->count(D.Kernel + "_ww_then") &&
        Stats->count(D.Kernel + "_ww_else")) {
      unsigned Threads = 256;
      for (const KernelInfo &K : TC.Analysis.Kernels)
        if (K.Name == D.Kernel && K.BlockSize)
          Threads = K.BlockSize;
      auto Occ = [&](const std::string &K) {
        return computeOccupancy(TC.Arch, {Stats->at(K).Registers, Threads, 0})
                   .Percent /
               100.0;
      };
      double Rmin =
          computeOccupancy(TC.Arch, {Original->Registers, Threads, 0}).Percent /
          100.0;
      double R1 = Occ(D.Kernel + "_ww_then"), R2 = Occ(D.Kernel + "_ww_else");
      ThenOcc = 100 * R1;
      ElseOcc = 100 * R2;
      ThenRegs = Stats->at(D.Kernel + "_ww_then").Registers;
      ElseRegs = Stats->at(D.Kernel + "_ww_else").Registers;
      LiteralArch = Arch;
      if (Rmin > 0 && R1 > 0 && R2 > 0)
        Predicted = (2 / Rmin) / (1 / R1 + 1 / R2);
      Formula = "registers " + std::to_string(Original->Registers) +
                Largest(*Original) + " -> " +
                std::to_string(Stats->at(D.Kernel + "_ww_then").Registers) +
                " (if-kernel) and " +
                std::to_string(Stats->at(D.Kernel + "_ww_else").Registers) +
                " (else-kernel) on " + Arch + ", occupancy on " +
                TC.Arch.smName() + " " + formatPercent(100 * Rmin) + " -> " +
                formatPercent(100 * R1) + " and " + formatPercent(100 * R2) +
                " at " + std::to_string(Threads) +
                " threads; CF'09 formula (equal side times, launch overhead "
                "ignored) predicts " +
                formatNumber(Predicted, "%.2f") + "x";
      if (Arch != TC.Arch.smName())
        Formula += " (registers measured for " + Arch +
                   ", the oldest target nvcc 13 compiles)";
    } else {
      Formula = "nvcc could not measure the split kernels (" + Error + ")";
    }
  } else {
    Formula = "no ptxas feedback (" + feedbackUnavailable(TC.Feedback) + ")";
  }
  // The compact form, for the generations where the literal one loses.
  auto Compact = [&]() -> Decision {
    Decision K = D;
    K.Form = "compact";
    if (!C.CompactProblem.empty()) {
      K.Reason = Where +
                 "; the compact form does not apply: " + C.CompactProblem +
                 "; not split";
      return K;
    }
    std::string Facts = "no ptxas feedback";
    double Light = 0, Heavy = 0, Orig = 0;
    if (TC.Feedback && TC.Feedback->available()) {
      std::vector<clang::tooling::Replacement> R =
          formEdits(C, D.Kernel, "compact").first;
      std::string Arch = PtxasRunner::nvccArchFor(TC.Arch), Error;
      auto Stats = TC.measure(R, Arch, Error);
      if (!Stats || !Stats->count(D.Kernel + "_ww_light") ||
          !Stats->count(D.Kernel + "_ww_heavy") || !Original) {
        K.Reason = Where + "; nvcc could not compile the " +
                   (Original ? "compact form (" + Error
                             : "original (" + OriginalError) +
                   "); not split";
        return K;
      }
      unsigned Threads = 256;
      for (const KernelInfo &KI : TC.Analysis.Kernels)
        if (KI.Name == D.Kernel && KI.BlockSize)
          Threads = KI.BlockSize;
      auto Occ = [&](const std::string &Name, unsigned long Smem) {
        return computeOccupancy(TC.Arch,
                                {Stats->at(Name).Registers, Threads, Smem})
            .Percent;
      };
      Orig =
          computeOccupancy(TC.Arch, {Original->Registers, Threads, 0}).Percent;
      Light = Occ(D.Kernel + "_ww_light", 132);
      Heavy = Occ(D.Kernel + "_ww_heavy", 0);
      Facts = "registers " + std::to_string(Original->Registers) +
              Largest(*Original) + " -> " +
              std::to_string(Stats->at(D.Kernel + "_ww_light").Registers) +
              " (light kernel, with the compaction) and " +
              std::to_string(Stats->at(D.Kernel + "_ww_heavy").Registers) +
              " (heavy kernel); occupancy " + formatPercent(Orig) + " -> " +
              formatPercent(Light) + " and " + formatPercent(Heavy) + " at " +
              std::to_string(Threads) + " threads on " + TC.Arch.smName();
    }
    if (TC.SplitForm == "compact" || TC.Force) {
      K.Applied = true;
      K.Measured = Facts;
      K.Reason = Where + "; " + Facts +
                 "; compact split applied because it "
                 "was forced (" + TC.formSource("split-form", "compact") + ")";
      return K;
    }
    if (!Rules.value("compact_apply_automatically", false)) {
      K.Reason = Where + "; " + Facts +
                 "; the compact form is legal here, "
                 "but it is applied only on request (--split-form compact): " +
                 Rules.value("compact_measured", std::string()) + "; not split";
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
  };
  // The adaptive form: chosen by default where the heavy side costs an
  // occupancy step more than the light one and which threads take it is
  // run-time data; the generated host code then picks, per launch, between
  // the original kernel and the split pair (rules/split.json "adaptive").
  nlohmann::json Policy = Rules.value("adaptive", nlohmann::json::object());
  auto Adaptive = [&](bool Forced) -> Decision {
    Decision A = D;
    A.Form = "adaptive";
    if (!C.AdaptiveProblem.empty()) {
      A.Reason = Where + "; the adaptive form does not apply: " +
                 C.AdaptiveProblem + "; not split";
      return A;
    }
    if (TC.Arch.Major < 3) {
      A.Reason = Where + "; the adaptive form needs warp votes "
                         "(__ballot_sync), which " +
                 TC.Arch.smName() + " does not have; not split";
      return A;
    }
    unsigned Threads = 256;
    for (const KernelInfo &KI : TC.Analysis.Kernels)
      if (KI.Name == D.Kernel && KI.BlockSize)
        Threads = KI.BlockSize;
    std::string Facts;
    if (!Forced) {
      if (!C.DataDependent) {
        A.Reason = Where + "; which threads take the heavy side follows from "
                           "the thread indices alone, not from data, so the "
                           "adaptive form is not chosen (--split-form "
                           "adaptive forces it); not split";
        return A;
      }
      if (!ThenRegs || !ElseRegs) {
        A.Reason = Where + "; " + Formula +
                   ", so warpwise cannot show that the heavy side costs an "
                   "occupancy step; not split";
        return A;
      }
      double Light = C.HeavyIsElse ? ThenOcc : ElseOcc;
      double Heavy = C.HeavyIsElse ? ElseOcc : ThenOcc;
      unsigned LightRegs = C.HeavyIsElse ? ThenRegs : ElseRegs;
      unsigned HeavyRegs = C.HeavyIsElse ? ElseRegs : ThenRegs;
      Facts = std::string("the light (") + (C.HeavyIsElse ? "then" : "else") +
              ") side alone needs " + std::to_string(LightRegs) +
              " registers (" + formatPercent(Light) + " occupancy), the heavy "
              "side " + std::to_string(HeavyRegs) + " (" +
              formatPercent(Heavy) + ") on " + TC.Arch.smName() + " at " +
              std::to_string(Threads) + " threads";
      if (Heavy >= Light) {
        A.Reason = Where + "; " + Facts +
                   ": the heavy side costs no occupancy step more than the "
                   "light one, so taking it out of mixed warps frees little; "
                   "not split";
        return A;
      }
    }
    if (TC.Feedback && TC.Feedback->available() && Original) {
      std::vector<clang::tooling::Replacement> R =
          formEdits(C, D.Kernel, "adaptive").first;
      std::string Arch = PtxasRunner::nvccArchFor(TC.Arch), Error;
      auto Stats = TC.measure(R, Arch, Error);
      if (!Stats || !Stats->count(D.Kernel + "_ww_adaptive") ||
          !Stats->count(D.Kernel + "_ww_light") ||
          !Stats->count(D.Kernel + "_ww_heavy")) {
        A.Reason = Where + "; nvcc could not compile the adaptive form (" +
                   Error + "); not split";
        return A;
      }
      unsigned RA = Stats->at(D.Kernel + "_ww_adaptive").Registers;
      unsigned RH = Stats->at(D.Kernel + "_ww_heavy").Registers;
      unsigned RL = Stats->at(D.Kernel + "_ww_light").Registers;
      double OL = computeOccupancy(TC.Arch, {RL, Threads, 140}).Percent;
      double OA = computeOccupancy(TC.Arch, {RA, Threads, 140}).Percent;
      double OH = computeOccupancy(TC.Arch, {RH, Threads, 0}).Percent;
      double OO =
          computeOccupancy(TC.Arch, {Original->Registers, Threads, 0}).Percent;
      std::string Kernels =
          "`" + D.Kernel + "_ww_adaptive` " + std::to_string(RA) +
          " registers (" + formatPercent(OA) + "; the original " +
          std::to_string(Original->Registers) + Largest(*Original) + ", " +
          formatPercent(OO) + "), `" + D.Kernel + "_ww_light` " +
          std::to_string(RL) + " (" + formatPercent(OL) + "), `" + D.Kernel +
          "_ww_heavy` " + std::to_string(RH) + " (" + formatPercent(OH) + ")";
      if (OA < OO && !Forced) {
        A.Reason = Where + "; " + Facts + "; " + Kernels +
                   ": listing the heavy threads costs the kernel an occupancy "
                   "step, so the warps that stay would run slower than the "
                   "original; not split";
        return A;
      }
      Facts += (Facts.empty() ? "" : "; ") + Kernels;
    }
    A.Applied = true;
    A.Measured = Facts;
    char Rule[320];
    snprintf(Rule, sizeof Rule,
             "at run time the host picks per launch the original kernel or "
             "a split pair (in place or light) when, by the counts of earlier "
             "launches, it saves heavy-side work of at least %g%% of the "
             "launch's warps, "
             "looking again every %u launches (rules/split.json)",
             100 * Policy.value("min_saved_warp_fraction", 0.05),
             Policy.value("recheck_every", 32u));
    A.Reason = Where + "; " + (Facts.empty() ? "" : Facts + "; ") +
               (Forced ? "adaptive split applied because it was forced "
                         "(" + TC.formSource("split-form", "adaptive") + "); "
                       : "adaptive split applied; ") +
               Rule;
    return A;
  };
  if (TC.SplitForm == "adaptive")
    return Adaptive(true);
  if (TC.SplitForm == "compact")
    return Compact();
  if (TC.SplitForm == "literal" || (TC.Force && OldTarget)) {
    D.Applied = true;
    D.Measured = Formula;
    D.Reason = Where + "; " + Formula +
               "; literal split applied because it was forced "
               "(" + TC.formSource("split-form", "literal") + ")";
    return D;
  }
  Decision ByDefault = Adaptive(TC.Force);
  if (ByDefault.Applied)
    return ByDefault;
  if (!OldTarget) {
    // The literal form loses here (0.72x-0.99x on H100: the else-kernel's
    // early-exit pass runs at the heavy kernel's occupancy), and the compact
    // form is applied only on request.
    Decision K = Compact();
    if (!K.Applied) {
      K = ByDefault;
      K.Reason += " (the literal form was not considered: " + Formula +
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
  if (Predicted < MinSpeedup) {
    D.Reason = Where + "; " + Formula + ", below the " +
               formatNumber(MinSpeedup, "%.2f") +
               "x that rules/split.json asks; not "
               "split";
    return D;
  }
  D.Applied = true;
  D.Measured = Formula;
  D.Reason =
      Where + "; " + Formula + "; CC " + TC.Arch.Cc +
      " is a generation where the literal split paid (CF'09: +6% to "
      "+14% on a G80); applied, assuming the grid covers at least one "
      "wave of blocks: the second kernel costs about " +
      formatNumber(Rules.value("kernel_launch_overhead_us", 5.0), "%.0f") +
      " us more (rules/split.json), which a smaller grid does not "
      "earn back";
  return D;
}

} // namespace

Decision planSplit(TransformContext &TC, const SplitCandidate &C,
                   const char *Transform) {
  Decision D = chooseSplit(TC, C, Transform);
  if (!D.Applied)
    return D;
  // Forced or not, the results must stay bit-identical: the split kernels
  // are new code, and nvcc may contract their products and sums
  // differently from the original's (issue 26).
  auto [Edits, Groups] = formEdits(C, D.Kernel, D.Form);
  if (auto Why = TC.splitContractionChange(Edits, D.Kernel, Groups)) {
    D.Applied = false;
    D.Measured.clear();
    D.Reason = "if-else at line " + std::to_string(C.Line) + " of `" +
               D.Kernel + "`: the " + D.Form + " split would apply, but " +
               *Why;
  }
  return D;
}

} // namespace warpwise
