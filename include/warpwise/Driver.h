//===- Driver.h - The warpwise command --------------------------*- C++ -*-===//
#ifndef WARPWISE_DRIVER_H
#define WARPWISE_DRIVER_H

#include <string>
#include <vector>

namespace warpwise {

/// 3: a transformation crashed on some file (WW1012); its changes to that
/// file were dropped and everything else was written.
enum ExitCode {
  ExitOK = 0,
  ExitInputProblem = 1,
  ExitUsage = 2,
  ExitInternalError = 3
};

/// Runs warpwise with \p Args (without the program name).
int runWarpwise(const std::vector<std::string> &Args);

} // namespace warpwise

#endif
