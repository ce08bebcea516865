//===- PlanText.h - Numbers in the planners' reasons ------------*- C++ -*-===//
#ifndef WARPWISE_PLAN_TEXT_H
#define WARPWISE_PLAN_TEXT_H

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace warpwise {

/// \p V printed with a printf format ("%.2f"): similarities, speedups.
inline std::string formatNumber(double V, const char *Format = "%.2f") {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format(Format, V);
  return OS.str();
}

/// An occupancy in percent: "62.5%".
inline std::string formatPercent(double V) {
  return formatNumber(V, "%.1f") + "%";
}

} // namespace warpwise

#endif
