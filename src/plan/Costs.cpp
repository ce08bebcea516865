//===- Costs.cpp - Loading the cost table ---------------------------------===//
#include "warpwise/Costs.h"

#include "warpwise/Embedded.h"

#include "llvm/Support/MemoryBuffer.h"
#include <nlohmann/json.hpp>

namespace warpwise {

llvm::Expected<CostTable> CostTable::load(const std::string &OverridePath) {
  std::string Text;
  if (OverridePath.empty()) {
    Text = findEmbeddedFile("costs.json");
  } else {
    auto Buf = llvm::MemoryBuffer::getFile(OverridePath);
    if (!Buf)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot read cost table '" + OverridePath +
                                         "'");
    Text = (*Buf)->getBuffer().str();
  }
  nlohmann::json J = nlohmann::json::parse(Text, nullptr, false);
  if (J.is_discarded() || !J.is_object())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cost table is not a JSON object");
  CostTable T;
  auto Get = [&](const char *K, double &F) {
    if (J.contains(K) && J[K].is_number())
      F = J[K].get<double>();
  };
  Get("add", T.Add);
  Get("mul", T.Mul);
  Get("div", T.Div);
  Get("load", T.Load);
  Get("store", T.Store);
  Get("select", T.Select);
  Get("branch", T.Branch);
  Get("call", T.Call);
  Get("other", T.Other);
  Get("meld_similarity_threshold", T.SimilarityThreshold);
  return T;
}

} // namespace warpwise
