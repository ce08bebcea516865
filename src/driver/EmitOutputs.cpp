//===- EmitOutputs.cpp - Every output computed, then written --------------===//
//
// The emit stage of a rewrite: every output is computed in memory first
// (the edits' code formatted with --style, in each file's line endings);
// nothing is written until every input has been processed without error,
// so a bad file never leaves a half-finished set of outputs behind.
//
//===----------------------------------------------------------------------===//
#include "EmitOutputs.h"

#include "warpwise/AtomicFile.h"
#include "warpwise/Emitter.h"
#include "warpwise/Format.h"
#include "warpwise/SourceScope.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace warpwise::driver {

namespace {

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

} // namespace

bool writeOrPrint(DiagnosticLog &Log, const std::string &Path,
                  const std::string &Text) {
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
}

void computeOutputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
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
      clang::tooling::Replacements R =
          matchLineEndings(formatted(F.Edits.forFile(Path), Text, Path,
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
  Run.ToStdout = Opts.OutputFile == "-" ||
                 (Opts.OutputFile.empty() && Opts.OutputDir.empty() &&
                  !Opts.InPlace && !Opts.Diff && Opts.ExportFixes.empty() &&
                  Opts.Report.empty() && !Opts.Check);
}

void writeOutputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  const std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool &Failed = Run.Failed;
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
    if (F.OutputPath.empty() || F.OutputPath == "-" || !Run.mayWrite(F))
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
    if (Failed || H.OutputPath.empty() || !Run.mayWriteHeader(H))
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
}

void writeSideOutputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  const std::map<std::string, HeaderOutput> &HeaderOutputs = Run.HeaderOutputs;
  bool &Failed = Run.Failed;
  bool ToStdout = Run.ToStdout;
  bool AnyWritable = false;
  for (const InputFile &F : Inputs)
    AnyWritable |= Run.mayWrite(F);
  if (!Failed && AnyWritable && !Opts.ExportFixes.empty()) {
    // One document for every file: clang-apply-replacements reads the first
    // document of a file only, and groups replacements by their FilePath. A
    // translation unit's headers' edits go with it, each header once.
    std::vector<FileEdits> Fixes;
    for (InputFile &F : Inputs) {
      if (!Run.mayWrite(F))
        continue;
      Fixes.push_back({F.Absolute, &F.Final});
      for (const auto &[Path, R] : F.HeaderFinal)
        if (!R.empty())
          Fixes.back().Others.push_back(&R);
    }
    Failed = !writeOrPrint(Log, Opts.ExportFixes, exportFixesYaml(Fixes));
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
    Failed = !writeOrPrint(Log, Opts.Depfile, Rules);
  }
  if (!Failed && Opts.Diff) {
    for (InputFile &F : Inputs)
      if (Run.mayWrite(F)) {
        std::string Label = diffLabel(F.Absolute);
        llvm::outs() << unifiedDiff("a/" + Label, "b/" + Label, F.Contents,
                                    F.Rewritten);
      }
    for (const auto &[Path, H] : HeaderOutputs)
      if (Run.mayWriteHeader(H)) {
        std::string Label = diffLabel(Path);
        llvm::outs() << unifiedDiff("a/" + Label, "b/" + Label, H.Original,
                                    H.Rewritten);
      }
  }
  if (!Failed && ToStdout)
    for (InputFile &F : Inputs)
      if (Run.mayWrite(F))
        llvm::outs() << F.Rewritten;
}

} // namespace warpwise::driver
