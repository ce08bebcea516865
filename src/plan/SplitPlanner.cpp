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

Decision planSplit(TransformContext &TC, const SplitCandidate &C,
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
  if (TC.SplitForm == "efficient") {
    D.Form = "efficient";
    if (!C.EfficientProblem.empty()) {
      D.Reason = Where +
                 "; the efficient form does not apply: " + C.EfficientProblem +
                 "; not split";
      return D;
    }
    D.Applied = true;
    D.Reason = Where +
               "; efficient split applied because it was forced "
               "(--split-form efficient): the light side in a kernel of its "
               "own, the heavy side in one persistent wave of blocks (" +
               Rules.value("efficient_measured", std::string()) + ")";
    return D;
  }
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
    std::vector<clang::tooling::Replacement> R = {
        clang::tooling::Replacement(C.File, C.InsertAt, 0, C.Kernels)};
    R.insert(R.end(), C.Launches.begin(), C.Launches.end());
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
    Formula = "no ptxas feedback (no CUDA toolkit)";
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
      std::vector<clang::tooling::Replacement> R;
      if (!C.CompactPrelude.empty())
        R.push_back(clang::tooling::Replacement(C.File, C.PreludeAt, 0,
                                                C.CompactPrelude));
      R.push_back(
          clang::tooling::Replacement(C.File, C.InsertAt, 0, C.CompactKernels));
      R.insert(R.end(), C.CompactLaunches.begin(), C.CompactLaunches.end());
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
      K.Reason = Where + "; " + Facts +
                 "; compact split applied because it "
                 "was forced (--split-form compact)";
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
    K.Reason = Where + "; " + Facts +
               "; compact split applied: on H100 it "
               "measured 2x-8x when 1-25% of the threads take the heavy side "
               "and about 1.0x at 75-100% (the share is not known before run "
               "time); the grid is assumed to be at least one wave of blocks, "
               "below which two kernels lose";
    return K;
  };
  if (TC.SplitForm == "compact")
    return Compact();
  if (TC.SplitForm == "literal" || (TC.Force && OldTarget)) {
    D.Applied = true;
    D.Reason = Where + "; " + Formula +
               "; literal split applied because it was forced "
               "(--split-form literal)";
    return D;
  }
  if (!OldTarget) {
    // The literal form loses here (0.72x-0.99x on H100: the else-kernel's
    // early-exit pass runs at the heavy kernel's occupancy); try compact.
    Decision K = Compact();
    if (!K.Applied)
      K.Reason += " (the literal form was not considered: " + Formula +
                  ", but it measured 0.72x-0.99x on H100)";
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

} // namespace warpwise
