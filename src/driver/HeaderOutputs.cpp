//===- HeaderOutputs.cpp - The project headers a rewrite changes ----------===//
//
// Header bookkeeping: a project header that several inputs include is
// written once, so the inputs that rewrite it must agree on it; the
// rewritten headers (and the unchanged ones --out-dir must copy beside
// them) are collected once each; and every output, input or header, gets
// its place.
//
//===----------------------------------------------------------------------===//
#include "HeaderOutputs.h"

#include "FileRewrite.h"

#include "warpwise/Emitter.h"
#include "warpwise/SourceScope.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <set>

namespace warpwise::driver {

namespace {

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

} // namespace

void resolveHeaderConflicts(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  // A project header that several inputs include is written once, so the
  // inputs that edit it must edit it identically (they usually do: the same
  // kernel, the same decisions). Where two disagree (different block sizes
  // at their launches, say), the simplest honest rule: the header leaves
  // the scope of both and both are processed again, which drops every
  // change that touches it (a split's launches with its kernels, as Changes
  // are whole or nothing) and keeps their other changes. The first
  // processing's remarks stay printed; WW1017 says what was dropped.
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
        Run.HeaderConflicts = true;
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
}

void collectHeaderOutputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  for (InputFile &F : Inputs)
    for (const auto &[Path, Text] : F.HeadersRewritten) {
      auto It =
          HeaderOutputs
              .emplace(Path,
                       HeaderOutput{F.Headers[Path], Text, std::string(), {}})
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
}

void placeOutputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool ToStdout = Run.ToStdout;
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
}

void placeRuntimeHeaders(Session &Run) {
  // Beside each output; for --check and --diff without an output, beside
  // the input, where -i would write it (shown, not written).
  const Options &Opts = Run.Opts;
  bool Writes = !Opts.OutputDir.empty() || Opts.InPlace ||
                (!Opts.OutputFile.empty() && Opts.OutputFile != "-");
  if (!Writes && !Opts.Check && !Opts.Diff)
    return;
  std::vector<std::pair<std::string, std::string>> Outputs;
  std::vector<const InputFile *> Owners;
  for (const InputFile &F : Run.Inputs) {
    if (!F.Parsed || (Writes && F.OutputPath.empty()))
      continue;
    Outputs.push_back({Writes ? F.OutputPath : F.Absolute, F.Rewritten});
    Owners.push_back(&F);
  }
  for (const auto &[Path, H] : Run.HeaderOutputs)
    if (!Writes || !H.OutputPath.empty())
      Outputs.push_back({Writes ? H.OutputPath : Path, H.Rewritten});
  for (RuntimeOutput &R : runtimeHeaderOutputs(Outputs)) {
    std::string Path = SourceScope::normalise(R.Path);
    std::string Written = Writes ? R.Path : "";
    Run.HeaderOutputs[Path] = {std::move(R.Original), std::move(R.Text),
                               std::move(Written), Owners};
  }
}

} // namespace warpwise::driver
