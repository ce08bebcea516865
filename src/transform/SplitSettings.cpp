//===- SplitSettings.cpp - What steers the branch split -------------------===//
#include "SplitSettings.h"

#include "warpwise/Embedded.h"
#include "warpwise/Transform.h"

#include "llvm/ADT/SmallVector.h"

#include <nlohmann/json.hpp>

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
  return P;
}

} // namespace

const SplitPolicy &splitPolicy() {
  static const SplitPolicy Policy = readSplitPolicy();
  return Policy;
}

SplitSettings SplitSettings::of(const TransformContext &TC) {
  SplitSettings S;
  S.Form = TC.SplitForm;
  S.Force = TC.Force;
  S.ForcedBy = TC.ForcedBy;
  S.FormBy = TC.FormBy;
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

} // namespace warpwise
