//===- Driver.cpp - Files in, analyses and rewritten files out ------------===//
//
// The one-way pipeline: read every input once, parse it (frontend), analyse
// it, let the transformations plan and produce edits, then emit. Nothing is
// written until every input has been processed without error, so a bad file
// never leaves a half-finished set of outputs behind.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Driver.h"

#include "EmitOutputs.h"
#include "FileRewrite.h"
#include "HeaderOutputs.h"
#include "Session.h"
#include "SessionInputs.h"
#include "SessionTools.h"

#include "warpwise/Analysis.h"
#include "warpwise/Config.h"
#include "warpwise/Cli.h"
#include "warpwise/Costs.h"
#include "warpwise/Diagnostics.h"
#include "warpwise/Edits.h"
#include "warpwise/Emitter.h"
#include "warpwise/Feedback.h"
#include "warpwise/Format.h"
#include "warpwise/Frontend.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Offload.h"
#include "warpwise/Options.h"
#include "warpwise/Ptxas.h"
#include "warpwise/Report.h"
#include "warpwise/SourceScope.h"
#include "warpwise/TempFiles.h"
#include "warpwise/Tune.h"
#include "warpwise/Transform.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

namespace warpwise {

using namespace driver;

namespace {

std::string displayName(const InputFile &F) { return F.Given; }

int runOccupancy(const Options &Opts, const ArchLimits &Arch) {
  OccupancyResult R =
      computeOccupancy(Arch, {*Opts.Registers, *Opts.Threads, Opts.SharedBytes});
  if (Opts.Format == OutputFormat::Json) {
    nlohmann::json J = {{"schema_version", ReportSchemaVersion},
                        {"command", "occupancy"},
                        {"arch", Opts.Front.Arch},
                        {"cc", Arch.Cc},
                        {"registers", *Opts.Registers},
                        {"threads", *Opts.Threads},
                        {"shared_bytes", Opts.SharedBytes},
                        {"launchable", R.Launchable},
                        {"percent", R.Launchable ? nlohmann::json(R.Percent)
                                                 : nullptr},
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
  OS << Opts.Front.Arch << " (CC " << Arch.Cc << ", " << Arch.Name << "): "
     << *Opts.Registers << " registers, " << *Opts.Threads << " threads, "
     << Opts.SharedBytes << " B shared memory per block\n";
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
  Options &Opts = Run.Opts;
  if (std::optional<int> RC = readCommandLine(Args, Opts))
    return *RC;
  if (std::optional<int> RC = readConfigurations(Run))
    return *RC;
  if (std::optional<int> RC = chooseArch(Run))
    return *RC;
  const ArchLimits *Arch = Run.Arch;
  if (Opts.Cmd == Command::Occupancy)
    return runOccupancy(Opts, *Arch);
  if (Opts.Cmd == Command::Offload) {
    std::vector<std::string> ThenRewrite;
    int RC = runOffloadCommand(Opts, ThenRewrite);
    if (RC != ExitOK || ThenRewrite.empty())
      return RC;
    // The generated CUDA goes through the same analyses and rewrites as
    // any other file.
    return runSession(ThenRewrite);
  }
  if (std::optional<int> RC = chooseSettings(Run))
    return *RC;
  if (Opts.DumpConfig)
    return dumpConfig(Run);
  openLog(Run);
  readInputs(Run);
  if (!startFrontend(Run))
    return ExitInputProblem;
  tuneFirst(Run);
  startFeedback(Run);

  const std::vector<std::string> &Transforms = Run.Transforms;
  DiagnosticLog &Log = Run.Log;
  std::vector<InputFile> &Inputs = Run.Inputs;
  Frontend &Front = *Run.Front;
  auto blockingErrors = [&](const std::string &File) {
    return Run.blockingErrors(File);
  };
  auto internalErrors = [&] { return Run.internalErrors(); };

  processInputs(Run);

  resolveHeaderConflicts(Run);

  // --split-form KERNEL=FORM for a kernel no input defines: a typo would
  // otherwise leave the kernel to the planner without a word.
  if (Opts.Cmd == Command::Rewrite &&
      llvm::StringRef(Opts.SplitForm).contains('=') &&
      llvm::all_of(Inputs, [](const InputFile &F) { return F.Parsed; })) {
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(Opts.SplitForm).split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts) {
      std::string Name = P.split('=').first.trim().str();
      bool Defined = false;
      for (const InputFile &F : Inputs)
        for (const KernelInfo &K : F.Analysis.Kernels)
          Defined |= K.Name == Name;
      if (!Defined)
        Log.report(diag::UnknownKernelOption, Severity::Warning, "", 0, 0,
                   "--split-form names `" + Name +
                       "`, but no input defines a kernel of that name");
    }
  }

  // A launch, in one input, of a kernel that another input defines and that
  // was split there: it keeps launching the original kernel.
  for (const InputFile &User : Inputs) {
    if (!User.Parsed)
      continue;
    for (const LaunchInfo &L : User.Analysis.Launches) {
      bool DefinedHere = false;
      for (const KernelInfo &K : User.Analysis.Kernels)
        DefinedHere |= K.Name == L.Kernel;
      if (DefinedHere)
        continue;
      for (const InputFile &Owner : Inputs)
        for (const Decision &D : Owner.Decisions)
          if (&Owner != &User && D.Applied && D.Transform == "split" &&
              D.Kernel == L.Kernel)
            Log.report(diag::LaunchedElsewhere, Severity::Remark,
                       L.File.empty() ? User.Given
                                      : SourceScope::displayPath(L.File),
                       L.Line, L.Column,
                       "this launch of `" + L.Kernel +
                           "` still runs the original kernel: warpwise split "
                           "it in " +
                           Owner.Given +
                           ", and rewrites launches only in the file that "
                           "defines the kernel");
    }
  }

  if (Opts.Cmd == Command::Analyze) {
    if (Opts.Format == OutputFormat::Json) {
      nlohmann::json J;
      J["schema_version"] = ReportSchemaVersion;
      J["tool"] = "warpwise";
      J["version"] = WARPWISE_VERSION;
      J["command"] = "analyze";
      J["arch"] = Opts.Front.Arch;
      J["files"] = nlohmann::json::array();
      for (const InputFile &F : Inputs) {
        nlohmann::json FJ = F.Parsed ? fileAnalysisToJson(F.Analysis)
                                     : nlohmann::json::object();
        FJ["path"] = F.Given;
        FJ["status"] = F.Parsed ? "analyzed" : "error";
        FJ["diagnostics"] = nlohmann::json::array();
        for (const Diagnostic &D : Log.forFile(F.Given))
          FJ["diagnostics"].push_back(DiagnosticLog::toJson(D));
        J["files"].push_back(FJ);
      }
      llvm::outs() << J.dump(2) << "\n";
    } else {
      for (const InputFile &F : Inputs)
        if (F.Parsed)
          printFileAnalysis(llvm::outs(), F.Analysis, displayName(F));
    }
    std::vector<FileSummary> Summary;
    for (const InputFile &F : Inputs)
      Summary.push_back(
          {F.Given,
           !F.Parsed || Log.hasErrorsFor(F.Given) ? "error" : "analyzed",
           F.Parsed ? &F.Analysis : nullptr, &F.Decisions});
    printSummary(llvm::errs(), Opts, Summary, Log);
    return Log.hasErrors() ? ExitInputProblem : ExitOK;
  }

  computeOutputs(Run);
  collectHeaderOutputs(Run);
  placeOutputs(Run);
  writeOutputs(Run);
  writeSideOutputs(Run);
  std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool &Failed = Run.Failed;
  auto mayWrite = [&](const InputFile &F) { return Run.mayWrite(F); };

  // The report is written even when inputs had errors: it is how tools learn
  // what went wrong.
  if (!Opts.Report.empty()) {
    nlohmann::json J;
    J["schema_version"] = ReportSchemaVersion;
    J["tool"] = "warpwise";
    J["version"] = WARPWISE_VERSION;
    J["command"] = "rewrite";
    J["arch"] = Opts.Front.Arch;
    J["transforms"] = Transforms;
    J["files"] = nlohmann::json::array();
    for (const InputFile &F : Inputs) {
      nlohmann::json FJ = F.Parsed ? fileAnalysisToJson(F.Analysis)
                                   : nlohmann::json::object();
      FJ["path"] = F.Given;
      FJ["config"] = !F.Settings || F.Settings->ConfigPath.empty()
                         ? nlohmann::json(nullptr)
                         : nlohmann::json(F.Settings->ConfigPath);
      FJ["transforms"] =
          F.Settings ? F.Settings->Transforms : std::vector<std::string>();
      bool Error = !mayWrite(F) || Failed;
      FJ["status"] = Error ? "error"
                     : F.Rewritten == F.Contents && F.HeadersRewritten.empty()
                         ? "unchanged"
                         : "rewritten";
      FJ["headers"] = nlohmann::json::array();
      for (const auto &[Path, Text] : F.HeadersRewritten)
        FJ["headers"].push_back(
            {{"path", SourceScope::displayPath(Path)},
             {"edits", F.Edits.forFile(Path).size()},
             {"output", Error || !HeaderOutputs.count(Path) ||
                                HeaderOutputs[Path].OutputPath.empty()
                            ? nlohmann::json(nullptr)
                            : nlohmann::json(HeaderOutputs[Path].OutputPath)}});
      FJ["output"] = F.OutputPath.empty() || Error
                         ? nlohmann::json(nullptr)
                         : nlohmann::json(F.OutputPath);
      FJ["edits"] = F.Final.size();
      if (F.Readable) {
        // How the compile command was read: what clang and nvcc got, and
        // what was dropped and why.
        TranslatedFlags Flags = Front.compileFlags(F.Absolute);
        nlohmann::json Dropped = nlohmann::json::array();
        for (const DroppedFlag &D : Flags.Dropped)
          Dropped.push_back({{"flag", D.Flag}, {"reason", D.Reason}});
        FJ["compile_command"] = {
            {"source", Flags.Source.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(Flags.Source)},
            {"clang", Flags.Clang},
            {"nvcc", Flags.Nvcc},
            {"dropped", Dropped}};
        FJ["headers_read"] = F.FilesRead;
      }
      FJ["decisions"] = nlohmann::json::array();
      for (const Decision &D : F.Decisions)
        FJ["decisions"].push_back(decisionToJson(D));
      FJ["diagnostics"] = nlohmann::json::array();
      for (const Diagnostic &D : Log.forFile(F.Given))
        FJ["diagnostics"].push_back(DiagnosticLog::toJson(D));
      J["files"].push_back(FJ);
    }
    J["diagnostics"] = nlohmann::json::array();
    for (const Diagnostic &D : Log.forFile(""))
      J["diagnostics"].push_back(DiagnosticLog::toJson(D));
    Failed |= !writeOrPrint(Log, Opts.Report, J.dump(2) + "\n");
  }
  std::vector<FileSummary> Summary;
  for (const InputFile &F : Inputs)
    Summary.push_back({F.Given,
                       !F.Parsed || Log.hasErrorsFor(F.Given) ? "error"
                       : F.Rewritten == F.Contents && F.HeadersRewritten.empty()
                           ? "unchanged"
                           : "rewritten",
                       F.Parsed ? &F.Analysis : nullptr, &F.Decisions});
  printSummary(llvm::errs(), Opts, Summary, Log);
  if (Failed || blockingErrors("") || Run.HeaderConflicts)
    return ExitInputProblem;
  if (internalErrors())
    return ExitInternalError;
  if (Opts.Check) {
    // CI mode: what would change, on standard error (standard output may
    // carry --diff or --report -); exit 1 when anything would.
    bool WouldChange = false;
    for (const InputFile &F : Inputs)
      if (mayWrite(F) && F.Rewritten != F.Contents) {
        llvm::errs() << "warpwise: would change " << F.Given << "\n";
        WouldChange = true;
      }
    for (const auto &[Path, H] : HeaderOutputs)
      if (H.Rewritten != H.Original) {
        llvm::errs() << "warpwise: would change "
                     << SourceScope::displayPath(Path) << "\n";
        WouldChange = true;
      }
    if (WouldChange)
      return ExitInputProblem;
  }
  return ExitOK;
}

int runWarpwise(const std::vector<std::string> &Args) {
  int RC = runSession(Args);
  std::string Temps = temporaryRoot();
  if (!Temps.empty() && std::find(Args.begin(), Args.end(), "--save-temps") !=
                            Args.end())
    llvm::errs() << "warpwise: temporary files kept in " << Temps << "\n";
  removeTemporaries();
  return RC;
}

} // namespace warpwise
