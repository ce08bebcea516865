//===- OffloadRules.h - rules/offload.json, parsed once ---------*- C++ -*-===//
//
// offload's tuning data (the stencil's rows per thread, the fresh
// allocators, the page lock's threshold): each reader takes its value from
// the one parse, and an absent or malformed file reads as an empty object.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_OFFLOAD_RULES_H
#define WARPWISE_OFFLOAD_OFFLOAD_RULES_H

#include <nlohmann/json.hpp>

namespace warpwise {
namespace offload {

/// rules/offload.json as embedded in the binary; an object.
const nlohmann::json &offloadRules();

} // namespace offload
} // namespace warpwise

#endif
