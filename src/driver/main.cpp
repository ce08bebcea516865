//===- main.cpp - warpwise entry point ------------------------------------===//
#include "warpwise/Driver.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  llvm::InitLLVM Init(argc, argv);
  std::vector<std::string> Args(argv + 1, argv + argc);
  return warpwise::runWarpwise(Args);
}
