//===- Registry.cpp - The transformations this build provides -------------===//
#include "warpwise/Transform.h"

#include "BranchFusion.h"
#include "BranchSplit.h"
#include "ControlFlowMeld.h"
#include "LoopFission.h"
#include "ThreadRealloc.h"

namespace warpwise {

Transform::~Transform() = default;

void crashForTesting() {
  volatile int *Null = nullptr;
  *Null = 1;
  __builtin_trap();
}

// In the order they run: an outer branch melded first claims its range, so
// fusion leaves the branches inside it alone; thread reallocation packs a
// partner guard around a branch melded before it, keeping that edit.
std::vector<std::string> availableTransforms() {
  return {"meld", "fuse", "realloc", "fission", "split"};
}

std::unique_ptr<Transform> createTransform(const std::string &Name) {
  if (Name == "fuse")
    return std::make_unique<BranchFusion>();
  if (Name == "meld")
    return std::make_unique<ControlFlowMeld>();
  if (Name == "fission")
    return std::make_unique<LoopFission>();
  if (Name == "realloc")
    return std::make_unique<ThreadReallocation>();
  if (Name == "split")
    return std::make_unique<BranchSplit>();
  return nullptr;
}

} // namespace warpwise
