//===- Driver.cpp - Files in, analyses and rewritten files out ------------===//
//
// The one-way pipeline: read every input once, parse it (frontend), analyse
// it, let the transformations plan and produce edits, then emit. Nothing is
// written until every input has been processed without error, so a bad file
// never leaves a half-finished set of outputs behind.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Driver.h"

#include "FileRewrite.h"
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

/// Replacement text in the file's line endings: inserted lines of a CRLF
/// file end in CRLF too, so the output does not mix them.
clang::tooling::Replacements
matchLineEndings(const clang::tooling::Replacements &Edits,
                 llvm::StringRef Original) {
  size_t Lines = Original.count('\n'), Crlf = Original.count("\r\n");
  if (!Lines || Crlf * 2 <= Lines)
    return Edits;
  clang::tooling::Replacements Out;
  for (const clang::tooling::Replacement &R : Edits) {
    std::string Text;
    llvm::StringRef T = R.getReplacementText();
    for (size_t I = 0; I < T.size(); ++I) {
      if (T[I] == '\n' && (I == 0 || T[I - 1] != '\r'))
        Text += '\r';
      Text += T[I];
    }
    llvm::consumeError(Out.add(clang::tooling::Replacement(
        R.getFilePath(), R.getOffset(), R.getLength(), Text)));
  }
  return Out;
}

/// Whether \p Path names one of the inputs (the same file, whatever the
/// spelling).
bool sameFile(const std::string &Path, const std::vector<InputFile> &Inputs) {
  for (const InputFile &F : Inputs) {
    if (llvm::sys::fs::equivalent(Path, F.Given))
      return true;
    if (SourceScope::normalise(Path) == F.Absolute)
      return true;
  }
  return false;
}

/// A diff label that `git apply` and `patch -p1` take from the current
/// directory: the path relative to it, or the absolute path without its
/// leading slash for a file outside it.
std::string diffLabel(const std::string &Absolute) {
  return llvm::StringRef(SourceScope::displayPath(Absolute)).ltrim('/').str();
}

/// A path in a Make rule: spaces and '#' escaped, '$' doubled.
std::string makeEscape(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (C == ' ' || C == '#')
      Out += '\\';
    if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

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

  // A project header that several inputs include is written once, so the
  // inputs that edit it must edit it identically (they usually do: the same
  // kernel, the same decisions). Where two disagree (different block sizes
  // at their launches, say), the simplest honest rule: the header leaves
  // the scope of both and both are processed again, which drops every
  // change that touches it (a split's launches with its kernels, as Changes
  // are whole or nothing) and keeps their other changes. The first
  // processing's remarks stay printed; WW1017 says what was dropped.
  bool HeaderConflicts = false;
  for (bool Again = Opts.Cmd == Command::Rewrite; Again;) {
    Again = false;
    std::map<std::string, InputFile *> FirstEditor;
    for (InputFile &F : Inputs) {
      if (!F.Parsed || Again)
        continue;
      for (const auto &[Path, R] : F.Edits.byFile()) {
        if (Path == F.Absolute || R.empty())
          continue;
        auto [It, New] = FirstEditor.emplace(Path, &F);
        InputFile &Other = *It->second;
        if (New || (Other.Edits.forFile(Path) == R &&
                    Other.Headers[Path] == F.Headers[Path]))
          continue;
        Log.report(diag::HeaderConflict, Severity::Error,
                   SourceScope::displayPath(Path), 0, 0,
                   Other.Given + " and " + F.Given +
                       " rewrite this header differently; every change to it "
                       "(with the launches of a kernel split in it) is "
                       "dropped from both, and it is left as it is");
        HeaderConflicts = true;
        for (InputFile *G : {&Other, &F}) {
          G->ExcludedHeaders.insert(Path);
          G->Analysis = FileAnalysis();
          G->Decisions.clear();
          G->Edits = EditSet();
          G->Headers.clear();
          // Its remarks were given; errors of the new run are reported.
          DiagnosticLog Rerun;
          processFile(Run, *G, Rerun);
          for (const Diagnostic &D : Rerun.all())
            if (D.Level == Severity::Error)
              Log.report(D);
        }
        Again = true;
        break;
      }
    }
  }

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

  // What the edits insert is formatted with clang-format (--style), and only
  // that; a style clang-format rejects leaves it as generated, with a
  // warning.
  auto formatted = [&](const clang::tooling::Replacements &Edits,
                       llvm::StringRef Text, const std::string &Path,
                       const std::string &Shown) {
    auto R = formatEdits(Edits, Text, Path, Opts.Style);
    if (R)
      return *R;
    Log.report(diag::NotFormatted, Severity::Warning, Shown, 0, 0,
               "the code warpwise inserted is not formatted: " +
                   llvm::toString(R.takeError()));
    return Edits;
  };
  // rewrite: compute every output in memory first.
  for (InputFile &F : Inputs) {
    if (!F.Parsed)
      continue;
    F.Final = matchLineEndings(
        formatted(F.Edits.forFile(F.Absolute), F.Contents, F.Absolute, F.Given),
        F.Contents);
    auto New = applyEdits(F.Contents, F.Final);
    if (!New) {
      Log.report(diag::OverlappingEdits, Severity::Error, F.Given, 0, 0,
                 llvm::toString(New.takeError()));
      continue;
    }
    F.Rewritten = std::move(*New);
    // Every edited header's text was kept when it was first edited; edits
    // without it cannot be applied, and dropping them would leave a split's
    // launches without their kernels.
    for (const auto &[Path, R] : F.Edits.byFile())
      if (Path != F.Absolute && !R.empty() && !F.Headers.count(Path))
        Log.report(diag::OverlappingEdits, Severity::Error, F.Given, 0, 0,
                   "internal error: edits of " +
                       SourceScope::displayPath(Path) +
                       " without its text; please report this with the file");
    for (const auto &[Path, Text] : F.Headers) {
      clang::tooling::Replacements R = matchLineEndings(
          formatted(F.Edits.forFile(Path), Text, Path,
                    SourceScope::displayPath(Path)),
          Text);
      auto Header = applyEdits(Text, R);
      if (!Header) {
        Log.report(diag::OverlappingEdits, Severity::Error, F.Given, 0, 0,
                   llvm::toString(Header.takeError()));
        continue;
      }
      F.HeaderFinal[Path] = R;
      if (*Header != Text)
        F.HeadersRewritten[Path] = std::move(*Header);
    }
  }
  bool ToStdout = Opts.OutputFile == "-" ||
                  (Opts.OutputFile.empty() && Opts.OutputDir.empty() &&
                   !Opts.InPlace && !Opts.Diff && Opts.ExportFixes.empty() &&
                   Opts.Report.empty() && !Opts.Check);
  // The project headers the rewrite changes, each once (inputs that share
  // one agree on it, see above): original text, new text, destination, and
  // the inputs that rewrote it.
  struct HeaderOutput {
    std::string Original, Rewritten, OutputPath;
    std::vector<const InputFile *> Owners;
    /// An unchanged header copied into --out-dir (see below).
    bool Copy = false;
  };
  std::map<std::string, HeaderOutput> HeaderOutputs;
  for (InputFile &F : Inputs)
    for (const auto &[Path, Text] : F.HeadersRewritten) {
      auto It = HeaderOutputs
                    .emplace(Path, HeaderOutput{F.Headers[Path], Text,
                                                std::string(), {}})
                    .first;
      It->second.Owners.push_back(&F);
    }
  // An input may include a rewritten header through unchanged ones
  // (main.cu includes mid.cuh, which includes k.cuh). --out-dir copies
  // those beside the rewritten header, or the output tree's main.cu would
  // find no mid.cuh, or the original one, which includes the original
  // k.cuh: the output would not build the rewritten kernel.
  if (!Opts.OutputDir.empty())
    for (InputFile &F : Inputs) {
      std::set<std::string> Edited;
      for (const auto &[Path, Text] : F.HeadersRewritten)
        Edited.insert(Path);
      for (const std::string &Path :
           headersIncludingEdited(F.Includers, F.Absolute, Edited)) {
        auto It = HeaderOutputs.find(Path);
        if (It != HeaderOutputs.end()) {
          if (It->second.Copy)
            It->second.Owners.push_back(&F);
          continue;
        }
        if (sameFile(Path, Inputs))
          continue; // Written as an input.
        auto Buf =
            llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
        if (!Buf) {
          Log.report(diag::CannotRead, Severity::Error,
                     SourceScope::displayPath(Path), 0, 0,
                     "cannot read this header to copy it into --out-dir (it "
                     "includes a header the rewrite changes): " +
                         Buf.getError().message());
          continue;
        }
        std::string Text = (*Buf)->getBuffer().str();
        HeaderOutputs[Path] = HeaderOutput{Text, Text, "", {&F}, true};
      }
    }
  // Where each output goes. --out-dir mirrors the tree below the input
  // root: given, or the deepest directory holding every input and every
  // header the rewrite changes.
  std::string InRoot;
  if (!Opts.OutputDir.empty()) {
    if (!Opts.InRoot.empty()) {
      InRoot = SourceScope::normalise(Opts.InRoot);
    } else {
      std::vector<std::string> Abs;
      for (const InputFile &F : Inputs)
        Abs.push_back(F.Absolute);
      for (const auto &[Path, H] : HeaderOutputs)
        Abs.push_back(Path);
      InRoot = commonDirectory(Abs);
    }
  }
  std::map<std::string, std::string> Claimed;
  auto claim = [&](const std::string &Output, const std::string &Input,
                   const std::string &Shown) {
    auto [It, New] = Claimed.emplace(SourceScope::normalise(Output), Shown);
    if (!New)
      Log.report(diag::DuplicateOutput, Severity::Error, Shown, 0, 0,
                 "would be written to '" + Output +
                     "', which already receives '" + It->second + "'");
  };
  // --out-dir's place for \p Absolute, or an error naming \p Shown.
  auto mirrored = [&](const std::string &Absolute,
                      const std::string &Shown) -> std::string {
    std::optional<std::string> Below = pathBelow(Absolute, InRoot);
    if (!Below) {
      Log.report(diag::CannotWrite, Severity::Error, Shown, 0, 0,
                 "is not below the input root '" + InRoot +
                     "' (--in-root), so --out-dir has no place for it");
      return "";
    }
    llvm::SmallString<256> P(Opts.OutputDir);
    llvm::sys::path::append(P, *Below);
    return P.str().str();
  };
  for (auto &[Path, H] : HeaderOutputs) {
    std::string Shown = SourceScope::displayPath(Path);
    if (!Opts.OutputFile.empty() || ToStdout) {
      Log.report(diag::HeaderNeedsPlace, Severity::Error, Shown, 0, 0,
                 "the rewrite changes this project header, and " +
                     std::string(ToStdout ? "standard output"
                                          : "-o " + Opts.OutputFile) +
                     " has room for the main file only; use -i or --out-dir "
                     "(nothing is written)");
      continue;
    }
    if (Opts.InPlace)
      H.OutputPath = Path;
    else if (!Opts.OutputDir.empty())
      H.OutputPath = mirrored(Path, Shown);
    if (H.OutputPath.empty())
      continue;
    if (!Opts.InPlace && llvm::sys::fs::equivalent(H.OutputPath, Path)) {
      Log.report(diag::OverwritesInput, Severity::Error, Shown, 0, 0,
                 "the output '" + H.OutputPath +
                     "' is this header itself; use -i to rewrite in place");
      H.OutputPath.clear();
      continue;
    }
    claim(H.OutputPath, Path, Shown);
  }
  for (InputFile &F : Inputs) {
    if (!F.Parsed)
      continue;
    if (!Opts.OutputFile.empty())
      F.OutputPath = Opts.OutputFile;
    else if (!Opts.OutputDir.empty()) {
      F.OutputPath = mirrored(F.Absolute, F.Given);
      if (F.OutputPath.empty())
        continue;
    } else if (Opts.InPlace)
      F.OutputPath = F.Given;
    if (F.OutputPath.empty() || F.OutputPath == "-")
      continue;
    if (!Opts.InPlace && sameFile(F.OutputPath, Inputs)) {
      Log.report(diag::OverwritesInput, Severity::Error, F.Given, 0, 0,
                 "the output '" + F.OutputPath +
                     "' is an input; use -i to rewrite in place");
      continue;
    }
    claim(F.OutputPath, F.Absolute, F.Given);
  }

  // Without --keep-going, one file's error stops every output.
  auto mayWrite = [&](const InputFile &F) {
    if (!F.Parsed)
      return false;
    if (!Opts.KeepGoing)
      return !blockingErrors("");
    for (const Diagnostic &D : Log.all())
      if (D.Level == Severity::Error && D.Id != diag::InternalError &&
          D.Id != diag::HeaderConflict &&
          (D.File == F.Given || D.File.empty()))
        return false;
    return true;
  };
  // A header is written when every input that rewrote it may be.
  auto mayWriteHeader = [&](const HeaderOutput &H) {
    if (blockingErrors(""))
      return Opts.KeepGoing &&
             llvm::all_of(H.Owners, [&](const InputFile *F) {
               return mayWrite(*F);
             }) &&
             !llvm::any_of(Log.all(), [&](const Diagnostic &D) {
               return D.Level == Severity::Error &&
                      D.File == SourceScope::displayPath(H.OutputPath);
             });
    return true;
  };
  bool Failed = false;
  auto ensureDirectory = [&](const std::string &Output) {
    if (Opts.OutputDir.empty())
      return true;
    llvm::StringRef Dir = llvm::sys::path::parent_path(Output);
    if (Dir.empty())
      return true;
    if (std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
      Log.report(diag::CannotWrite, Severity::Error, Dir.str(), 0, 0,
                 "cannot create the output directory: " + EC.message());
      return false;
    }
    return true;
  };
  for (InputFile &F : Inputs) {
    if (F.OutputPath.empty() || F.OutputPath == "-" || !mayWrite(F))
      continue;
    // In place, an unchanged file is not touched, so Make sees no change.
    if (Opts.InPlace && F.Rewritten == F.Contents) {
      F.Written = true;
      continue;
    }
    if (!ensureDirectory(F.OutputPath)) {
      Failed = true;
      break;
    }
    if (llvm::Error E = writeFileAtomically(F.OutputPath, F.Rewritten)) {
      Log.report(diag::CannotWrite, Severity::Error, F.OutputPath, 0, 0,
                 llvm::toString(std::move(E)));
      Failed = true;
      break;
    }
    F.Written = true;
  }
  for (const auto &[Path, H] : HeaderOutputs) {
    if (Failed || H.OutputPath.empty() || !mayWriteHeader(H))
      continue;
    if (!ensureDirectory(H.OutputPath)) {
      Failed = true;
      break;
    }
    if (llvm::Error E = writeFileAtomically(H.OutputPath, H.Rewritten)) {
      Log.report(diag::CannotWrite, Severity::Error, H.OutputPath, 0, 0,
                 llvm::toString(std::move(E)));
      Failed = true;
    } else if (H.Copy && Opts.Front.Verbose) {
      llvm::errs() << "warpwise: copied " << SourceScope::displayPath(Path)
                   << " to " << H.OutputPath
                   << ": it includes a header the rewrite changes\n";
    }
  }
  auto writeOrPrint = [&](const std::string &Path, const std::string &Text) {
    if (Path == "-") {
      llvm::outs() << Text;
      return true;
    }
    if (llvm::Error E = writeFileAtomically(Path, Text)) {
      Log.report(diag::CannotWrite, Severity::Error, Path, 0, 0,
                 llvm::toString(std::move(E)));
      return false;
    }
    return true;
  };
  bool AnyWritable = false;
  for (const InputFile &F : Inputs)
    AnyWritable |= mayWrite(F);
  if (!Failed && AnyWritable && !Opts.ExportFixes.empty()) {
    // One document for every file: clang-apply-replacements reads the first
    // document of a file only, and groups replacements by their FilePath. A
    // translation unit's headers' edits go with it, each header once.
    std::vector<FileEdits> Fixes;
    for (InputFile &F : Inputs) {
      if (!mayWrite(F))
        continue;
      Fixes.push_back({F.Absolute, &F.Final});
      for (const auto &[Path, R] : F.HeaderFinal)
        if (!R.empty())
          Fixes.back().Others.push_back(&R);
    }
    Failed = !writeOrPrint(Opts.ExportFixes, exportFixesYaml(Fixes));
  }
  if (!Failed && !Opts.Depfile.empty() && AnyWritable) {
    std::string Rules;
    for (const InputFile &F : Inputs) {
      if (!F.Written)
        continue;
      Rules += makeEscape(F.OutputPath) + ":";
      Rules += " \\\n  " + makeEscape(F.Given);
      for (const std::string &H : F.FilesRead)
        Rules += " \\\n  " + makeEscape(H);
      Rules += "\n";
    }
    Failed = !writeOrPrint(Opts.Depfile, Rules);
  }
  if (!Failed && Opts.Diff) {
    for (InputFile &F : Inputs)
      if (mayWrite(F)) {
        std::string Label = diffLabel(F.Absolute);
        llvm::outs() << unifiedDiff("a/" + Label, "b/" + Label, F.Contents,
                                    F.Rewritten);
      }
    for (const auto &[Path, H] : HeaderOutputs)
      if (mayWriteHeader(H)) {
        std::string Label = diffLabel(Path);
        llvm::outs() << unifiedDiff("a/" + Label, "b/" + Label, H.Original,
                                    H.Rewritten);
      }
  }
  if (!Failed && ToStdout)
    for (InputFile &F : Inputs)
      if (mayWrite(F))
        llvm::outs() << F.Rewritten;

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
    Failed |= !writeOrPrint(Opts.Report, J.dump(2) + "\n");
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
  if (Failed || blockingErrors("") || HeaderConflicts)
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
