//===- Driver.cpp - Files in, analyses and rewritten files out ------------===//
//
// The one-way pipeline: read every input once, parse it (frontend), analyse
// it, let the transformations plan and produce edits, then emit. Nothing is
// written until every input has been processed without error, so a bad file
// never leaves a half-finished set of outputs behind. Each stage is a
// function of its own file under src/driver/ (Session.h lists them);
// runSession runs them in order.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Driver.h"

#include "EmitOutputs.h"
#include "FileRewrite.h"
#include "HeaderOutputs.h"
#include "Session.h"
#include "SessionInputs.h"
#include "SessionReport.h"
#include "SessionTools.h"

#include "warpwise/Cli.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Offload.h"
#include "warpwise/Options.h"
#include "warpwise/Report.h"
#include "warpwise/TempFiles.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <climits>

namespace warpwise {

using namespace driver;

namespace {

int runOccupancy(const Options &Opts, const ArchLimits &Arch) {
  OccupancyResult R = computeOccupancy(
      Arch, {*Opts.Registers, *Opts.Threads, Opts.SharedBytes});
  if (Opts.Format == OutputFormat::Json) {
    nlohmann::json J = {
        {"schema_version", ReportSchemaVersion},
        {"command", "occupancy"},
        {"arch", Opts.Front.Arch},
        {"cc", Arch.Cc},
        {"registers", *Opts.Registers},
        {"threads", *Opts.Threads},
        {"shared_bytes", Opts.SharedBytes},
        {"launchable", R.Launchable},
        {"percent", R.Launchable ? nlohmann::json(R.Percent) : nullptr},
        {"blocks_per_sm", R.BlocksPerSM},
        {"active_warps_per_sm", R.ActiveWarpsPerSM},
        {"max_warps_per_sm", R.MaxWarpsPerSM},
        {"limiter", limiterName(R.Limiter)},
        {"blocks_by",
         {{"registers", R.BlocksByRegisters},
          {"shared_memory", R.BlocksBySharedMemory},
          {"warps", R.BlocksByWarps},
          {"block_limit", R.BlocksByBlockLimit}}}};
    if (!R.Launchable)
      J["problem"] = R.Problem;
    llvm::outs() << J.dump(2) << "\n";
    return ExitOK;
  }
  llvm::raw_ostream &OS = llvm::outs();
  OS << Opts.Front.Arch << " (CC " << Arch.Cc << ", " << Arch.Name
     << "): " << *Opts.Registers << " registers, " << *Opts.Threads
     << " threads, " << Opts.SharedBytes << " B shared memory per block\n";
  if (!R.Launchable) {
    OS << "occupancy: 0% - " << R.Problem << "\n";
    return ExitOK;
  }
  auto Lim = [](unsigned N) {
    return N == UINT_MAX ? std::string("unlimited") : std::to_string(N);
  };
  OS << "occupancy: " << llvm::format("%.1f%%", R.Percent) << " ("
     << R.ActiveWarpsPerSM << " of " << R.MaxWarpsPerSM << " warps, "
     << R.BlocksPerSM << " blocks per SM)\n";
  OS << "blocks per SM allowed by: registers " << Lim(R.BlocksByRegisters)
     << ", shared memory " << Lim(R.BlocksBySharedMemory) << ", warps "
     << Lim(R.BlocksByWarps) << ", block limit " << Lim(R.BlocksByBlockLimit)
     << "\n";
  OS << "limited by: " << limiterName(R.Limiter) << "\n";
  return ExitOK;
}

} // namespace

static int runSession(const std::vector<std::string> &Args) {
  Session Run;
  const Options &Opts = Run.Opts;
  // Inputs and flags.
  if (std::optional<int> RC = readCommandLine(Args, Run.Opts))
    return *RC;
  if (std::optional<int> RC = readConfigurations(Run))
    return *RC;
  if (std::optional<int> RC = chooseArch(Run))
    return *RC;
  if (Opts.Cmd == Command::Occupancy)
    return runOccupancy(Opts, *Run.Arch);
  if (Opts.Cmd == Command::Offload) {
    std::vector<std::string> ThenRewrite;
    int RC = runOffloadCommand(Opts, ThenRewrite);
    if (RC != ExitOK || ThenRewrite.empty())
      return RC;
    // The generated CUDA goes through the same analyses and rewrites as
    // any other file.
    return finishOffloadRewrite(Opts, runSession(ThenRewrite));
  }
  if (std::optional<int> RC = chooseSettings(Run))
    return *RC;
  if (Opts.DumpConfig)
    return dumpConfig(Run);
  openLog(Run);
  readInputs(Run);

  // The tools: the frontend, --tune's variants, nvcc.
  if (!startFrontend(Run))
    return ExitInputProblem;
  tuneFirst(Run);
  startFeedback(Run);

  // Parse -> analyse -> plan -> transform -> check with nvcc, file by file.
  processInputs(Run);
  resolveHeaderConflicts(Run);
  reportAcrossInputs(Run);
  if (Opts.Cmd == Command::Analyze)
    return reportAnalysis(Run);

  // Emit: every output computed in memory first, then written.
  computeOutputs(Run);
  collectHeaderOutputs(Run);
  placeOutputs(Run);
  placeRuntimeHeaders(Run);
  writeOutputs(Run);
  writeSideOutputs(Run);

  // Report.
  writeReport(Run);
  return finishRewrite(Run);
}

int runWarpwise(const std::vector<std::string> &Args) {
  int RC = runSession(Args);
  std::string Temps = temporaryRoot();
  if (!Temps.empty() &&
      std::find(Args.begin(), Args.end(), "--save-temps") != Args.end())
    llvm::errs() << "warpwise: temporary files kept in " << Temps << "\n";
  removeTemporaries();
  return RC;
}

} // namespace warpwise
