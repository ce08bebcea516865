//===- OffloadRules.cpp - rules/offload.json, parsed once -----------------===//
#include "OffloadRules.h"

#include "warpwise/Embedded.h"

namespace warpwise {
namespace offload {

const nlohmann::json &offloadRules() {
  static const nlohmann::json Rules = [] {
    const char *Text = findEmbeddedFile("offload.json");
    nlohmann::json J = nlohmann::json::parse(Text ? Text : "", nullptr, false);
    return J.is_object() ? J : nlohmann::json::object();
  }();
  return Rules;
}

} // namespace offload
} // namespace warpwise
