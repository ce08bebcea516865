//===- SessionInputs.h - The run's options, settings and inputs -*- C++ -*-===//
//
// The first stage of a session: the command line, the configuration files
// under it (.warpwise.yaml), the target architecture, the transformations
// and forms each input gets, and the inputs, read once each. A function
// that returns an exit code has ended the run (an error, or a command that
// needs nothing more).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SESSIONINPUTS_H
#define WARPWISE_DRIVER_SESSIONINPUTS_H

#include "Session.h"

namespace warpwise::driver {

/// Parses \p Args into \p Opts; answers --version and the commands that
/// only inform (runInfoCommand).
std::optional<int> readCommandLine(const std::vector<std::string> &Args,
                                   Options &Opts);

/// .warpwise.yaml: --config-file for every input, else the nearest one
/// above each input, read once each; the architecture they ask for where
/// the command line names none; and --style.
std::optional<int> readConfigurations(Session &Run);

/// The target's limits, from the built-in table or --arches.
std::optional<int> chooseArch(Session &Run);

/// The transformations the command line chooses, and each configuration's
/// settings under the command line's (forms, kernels, costs).
std::optional<int> chooseSettings(Session &Run);

/// --dump-config: the settings the first input gets, as YAML.
int dumpConfig(Session &Run);

/// The log every stage reports to, echoed on standard error.
void openLog(Session &Run);

/// Reads and checks every input (WW1001..WW1003).
void readInputs(Session &Run);

} // namespace warpwise::driver

#endif
