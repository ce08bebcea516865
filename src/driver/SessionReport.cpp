//===- SessionReport.cpp - What a session says about its inputs -----------===//
//
// The report stage: the remarks that need every input (a --split-form for
// no kernel, a launch of a kernel split in another input), analyze's
// output, rewrite's --report, the summary and the exit code.
//
//===----------------------------------------------------------------------===//
#include "SessionReport.h"

#include "EmitOutputs.h"

#include "warpwise/Cli.h"
#include "warpwise/Driver.h"
#include "warpwise/Report.h"
#include "warpwise/SourceScope.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace warpwise::driver {

namespace {

std::string displayName(const InputFile &F) { return F.Given; }

} // namespace

void reportAcrossInputs(Session &Run) {
  const Options &Opts = Run.Opts;
  const std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
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
}

int reportAnalysis(Session &Run) {
  const Options &Opts = Run.Opts;
  const std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  if (Opts.Format == OutputFormat::Json) {
    nlohmann::json J;
    J["schema_version"] = ReportSchemaVersion;
    J["tool"] = "warpwise";
    J["version"] = WARPWISE_VERSION;
    J["command"] = "analyze";
    J["arch"] = Opts.Front.Arch;
    J["files"] = nlohmann::json::array();
    for (const InputFile &F : Inputs) {
      nlohmann::json FJ =
          F.Parsed ? fileAnalysisToJson(F.Analysis) : nlohmann::json::object();
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
        {F.Given, !F.Parsed || Log.hasErrorsFor(F.Given) ? "error" : "analyzed",
         F.Parsed ? &F.Analysis : nullptr, &F.Decisions});
  printSummary(llvm::errs(), Opts, Summary, Log);
  return Log.hasErrors() ? ExitInputProblem : ExitOK;
}

void writeReport(Session &Run) {
  const Options &Opts = Run.Opts;
  const std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  const Frontend &Front = *Run.Front;
  const std::vector<std::string> &Transforms = Run.Transforms;
  std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool &Failed = Run.Failed;
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
      nlohmann::json FJ =
          F.Parsed ? fileAnalysisToJson(F.Analysis) : nlohmann::json::object();
      FJ["path"] = F.Given;
      FJ["config"] = !F.Settings || F.Settings->ConfigPath.empty()
                         ? nlohmann::json(nullptr)
                         : nlohmann::json(F.Settings->ConfigPath);
      FJ["transforms"] =
          F.Settings ? F.Settings->Transforms : std::vector<std::string>();
      bool Error = !Run.mayWrite(F) || Failed;
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
        FJ["compile_command"] = {{"source", Flags.Source.empty()
                                                ? nlohmann::json(nullptr)
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
}

int finishRewrite(Session &Run) {
  const Options &Opts = Run.Opts;
  const std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  const std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool Failed = Run.Failed;
  std::vector<FileSummary> Summary;
  for (const InputFile &F : Inputs)
    Summary.push_back({F.Given,
                       !F.Parsed || Log.hasErrorsFor(F.Given) ? "error"
                       : F.Rewritten == F.Contents && F.HeadersRewritten.empty()
                           ? "unchanged"
                           : "rewritten",
                       F.Parsed ? &F.Analysis : nullptr, &F.Decisions});
  printSummary(llvm::errs(), Opts, Summary, Log);
  if (Failed || Run.blockingErrors("") || Run.HeaderConflicts)
    return ExitInputProblem;
  if (Run.internalErrors())
    return ExitInternalError;
  if (Opts.Check) {
    // CI mode: what would change, on standard error (standard output may
    // carry --diff or --report -); exit 1 when anything would.
    bool WouldChange = false;
    for (const InputFile &F : Inputs)
      if (Run.mayWrite(F) && F.Rewritten != F.Contents) {
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

} // namespace warpwise::driver
