//===- Costs.h - Latency weights from rules/costs.json ----------*- C++ -*-===//
#ifndef WARPWISE_COSTS_H
#define WARPWISE_COSTS_H

#include "llvm/Support/Error.h"

#include <string>

namespace warpwise {

/// CFM's latency weights (seed 004, section 4) and the melding threshold.
struct CostTable {
  double Add = 5, Mul = 10, Div = 20, Load = 100, Store = 100, Select = 3,
         Branch = 3, Call = 20, Other = 3;
  double SimilarityThreshold = 0.2;

  /// The built-in table, or \p OverridePath when not empty.
  static llvm::Expected<CostTable> load(const std::string &OverridePath = "");
};

} // namespace warpwise

#endif
