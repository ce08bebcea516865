//===- Offload.cpp - The offload command ----------------------------------===//
//
// `warpwise offload IN.c -o OUT.cu`: reads the input once, parses it with
// -fopenmp through the same Frontend as the other commands (a file with
// errors is never translated), translates it (Offload.h), writes the output
// atomically, and prints the decisions, the diff and the JSON report. An
// output the rewrite that follows cannot parse is removed again
// (finishOffloadRewrite): a failed translation leaves no file. The
// rewrite of the output in place, which follows by default, is the caller's
// (Driver.cpp), as `rewrite -i` with the same architecture.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Offload.h"

#include "warpwise/Driver.h"
#include "warpwise/Embedded.h"
#include "warpwise/Emitter.h"
#include "warpwise/Frontend.h"
#include "warpwise/Options.h"
#include "warpwise/Report.h"
#include "warpwise/SourceScope.h"

#include "clang/AST/ASTContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

namespace warpwise {

namespace {

class OffloadHandler : public ASTHandler {
public:
  OffloadHandler(llvm::StringRef Contents, bool IsC, const OffloadOptions &Opts)
      : Contents(Contents), IsC(IsC), Opts(Opts) {}
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             const std::string &) override {
    Result = offloadOpenMP(Ctx, Contents, IsC, Opts);
  }
  llvm::StringRef Contents;
  bool IsC;
  OffloadOptions Opts;
  OffloadResult Result;
};

bool isOpenMPSource(llvm::StringRef Ext) {
  return Ext == ".c" || Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" ||
         Ext == ".C";
}

/// Parses \p Contents and translates it into \p R; 0, or the exit code
/// (reported). A parallel region with a loop that stays on the host is
/// split into one region per loop by the first translation, and that input
/// parsed and translated instead: each loop is decided alone.
int translate(Frontend &FE, const std::string &Abs, const std::string &Input,
              const std::string &Contents, bool IsC, const OffloadOptions &OO,
              DiagnosticLog &Log, OffloadResult &R) {
  OffloadHandler Handler(Contents, IsC, OO);
  if (!FE.parse(Abs, Input, Contents, Handler, Log))
    return ExitInputProblem; // Reported (WW1004); nothing is written.
  if (Handler.Result.SplitInput.empty()) {
    R = std::move(Handler.Result);
    return 0;
  }
  std::string Split = std::move(Handler.Result.SplitInput);
  OffloadHandler SplitHandler(Split, IsC, OO);
  SplitHandler.Opts.SplitRegions = false;
  SplitHandler.Opts.SplitAfterLines = Handler.Result.SplitAfterLines;
  if (!FE.parse(Abs, Input, Split, SplitHandler, Log)) {
    Log.report(diag::InternalError, Severity::Error, Input, 0, 0,
               "offload could not parse its input with a parallel region "
               "split into one region per loop; nothing is written");
    return ExitInternalError;
  }
  R = std::move(SplitHandler.Result);
  return 0;
}

/// The arguments of the `rewrite` that follows a translation written to
/// Opts.OutputFile from the input at \p Abs.
std::vector<std::string> rewriteArgs(const Options &Opts, llvm::StringRef Abs) {
  std::vector<std::string> Args = {"rewrite", Opts.OutputFile, "-i", "--arch",
                                   Opts.Front.Arch};
  if (!Opts.Front.CudaPath.empty())
    Args.insert(Args.end(), {"--cuda-path", Opts.Front.CudaPath});
  if (Opts.Front.StubHeaders)
    Args.push_back("--stub-cuda");
  if (Opts.Quiet)
    Args.push_back("-q");
  // The rewrite echoes its remarks as this command does (it reads the same
  // environment; -v is not passed on).
  if (!Opts.Quiet && !shortRemarks(Opts))
    Args.push_back("--remarks=full");
  else if (!Opts.Quiet && Opts.Remarks == "short")
    Args.push_back("--remarks=short");
  if (Opts.FmadFalse)
    Args.push_back("--fmad=false");
  if (!Opts.Front.ResourceDir.empty())
    Args.insert(Args.end(), {"--resource-dir", Opts.Front.ResourceDir});
  // The output's own includes are the input's: its directory.
  Args.push_back("--");
  Args.push_back("-I" + llvm::sys::path::parent_path(Abs).str());
  for (const std::string &A : Opts.Front.ExtraArgs)
    Args.push_back(A);
  return Args;
}

} // namespace

/// Writes \p R's output to -o and then, where the output includes it and is
/// a file (not a pipe or a device), offload's run-time support beside it,
/// unless the header there holds this text or a later API. False after an
/// error. Neither file is ever removed again: the header's text is the
/// same for every output of this API, and another output may include it.
static bool writeOffloadOutput(const Options &Opts, const OffloadResult &R,
                               DiagnosticLog &Log) {
  if (llvm::Error E = writeFileAtomically(Opts.OutputFile, R.Output)) {
    Log.report(diag::CannotWrite, Severity::Error, Opts.OutputFile, 0, 0,
               "cannot write: " + llvm::toString(std::move(E)));
    return false;
  }
  if (!R.IncludesSupport || !llvm::sys::fs::is_regular_file(Opts.OutputFile))
    return true;
  llvm::SmallString<256> Header(llvm::sys::path::parent_path(Opts.OutputFile));
  llvm::sys::path::append(Header, OffloadSupportHeaderName);
  llvm::StringRef Text = offloadSupportHeaderText();
  const char *Api = "WARPWISE_OFFLOAD_API";
  if (auto Old = llvm::MemoryBuffer::getFile(Header))
    if ((*Old)->getBuffer() == Text ||
        declaredRuntimeApi((*Old)->getBuffer(), Api) >
            declaredRuntimeApi(Text, Api))
      return true;
  if (llvm::Error E = writeFileAtomically(Header.str(), Text)) {
    Log.report(diag::CannotWrite, Severity::Error, Opts.OutputFile, 0, 0,
               "written, but the run-time support it includes is not: " +
                   llvm::toString(std::move(E)));
    return false;
  }
  return true;
}

/// Runs `offload`; on success with a rewrite to follow, \p ThenRewrite gets
/// the arguments of the `rewrite` command to run on the output.
int runOffloadCommand(const Options &Opts,
                      std::vector<std::string> &ThenRewrite) {
  DiagnosticLog Log;
  Log.setEcho(&llvm::errs());
  Log.setEchoStyle(Opts.Quiet, Opts.Front.Colors, shortRemarks(Opts));
  const std::string &Input = Opts.Files.front();
  llvm::StringRef Ext = llvm::sys::path::extension(Input);
  if (llvm::sys::fs::is_directory(Input)) {
    Log.report(diag::CannotRead, Severity::Error, Input, 0, 0,
               "is a directory, not a C or C++ source file");
    return ExitInputProblem;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Input, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) {
    Log.report(diag::CannotRead, Severity::Error, Input, 0, 0,
               "cannot read file: " + Buf.getError().message());
    return ExitInputProblem;
  }
  std::string Contents = (*Buf)->getBuffer().str();
  if (!isOpenMPSource(Ext)) {
    Log.report(diag::NotCuda, Severity::Error, Input, 0, 0,
               "is not a C or C++ source file (offload reads .c, .cpp, .cc "
               "and .cxx files with OpenMP directives)");
    return ExitInputProblem;
  }
  if (!Opts.OutputFile.empty() && Opts.OutputFile != "-" &&
      SourceScope::normalise(Opts.OutputFile) ==
          SourceScope::normalise(Input)) {
    Log.report(diag::OverwritesInput, Severity::Error, Input, 0, 0,
               "-o names the input itself; offload writes a new .cu file");
    return ExitUsage;
  }
  // A report that cannot be written must not leave an output behind.
  llvm::StringRef ReportDir = llvm::sys::path::parent_path(Opts.Report);
  if (!Opts.Report.empty() && Opts.Report != "-" && !ReportDir.empty() &&
      !llvm::sys::fs::is_directory(ReportDir)) {
    Log.report(diag::CannotWrite, Severity::Error, Opts.Report, 0, 0,
               "cannot write the report: directory '" + ReportDir.str() +
                   "' does not exist; nothing is written");
    return ExitInputProblem;
  }

  FrontendOptions FO = Opts.Front;
  FO.OpenMPHost = true;
  Frontend FE(FO, Log);
  if (!FE.initialize())
    return ExitInputProblem;
  OffloadOptions OO;
  if (Opts.BlockSize) {
    if (*Opts.BlockSize % 32 != 0) {
      Log.report(diag::OffloadNote, Severity::Error, "", 0, 0,
                 "--block-size for offload must be a multiple of 32 (the "
                 "reductions shuffle whole warps), not " +
                     std::to_string(*Opts.BlockSize));
      return ExitUsage;
    }
    OO.BlockSize = *Opts.BlockSize;
  }
  llvm::SmallString<256> Abs(Input);
  llvm::sys::fs::make_absolute(Abs);
  OO.Path = Abs.str().str();
  OO.Style = Opts.Style;
  OO.RoundProducts = Opts.FmadFalse;
  OO.WholeProgram = Opts.WholeProgram;
  OffloadResult R;
  if (int Exit = translate(FE, Abs.str().str(), Input, Contents, Ext == ".c",
                           OO, Log, R))
    return Exit;
  if (!R.InternalError.empty()) {
    Log.report(diag::InternalError, Severity::Error, Input, 0, 0,
               "offload produced inconsistent edits (" + R.InternalError +
                   "); nothing is written");
    return ExitInternalError;
  }
  for (const OffloadDecision &D : R.Decisions)
    Log.report(D.Id, D.Level, Input, D.Line, D.Column, D.Message);
  if (!R.FormatProblem.empty())
    Log.report(diag::NotFormatted, Severity::Warning, Input, 0, 0,
               "the generated code could not be formatted (" + R.FormatProblem +
                   "); it is written as generated");
  if (R.Offloaded == 0)
    Log.report(diag::KeptOnHost, Severity::Warning, Input, 0, 0,
               "no loop was offloaded; the output is the input as C++ for "
               "nvcc");

  bool Written = false;
  if (!Opts.OutputFile.empty()) {
    if (Opts.OutputFile == "-")
      llvm::outs() << R.Output;
    else if (!writeOffloadOutput(Opts, R, Log))
      return ExitInputProblem;
    else
      Written = true;
  }
  if (Opts.Diff) {
    std::string Out = Opts.OutputFile.empty() || Opts.OutputFile == "-"
                          ? Input + ".cu"
                          : Opts.OutputFile;
    llvm::outs() << unifiedDiff("a/" + Input, "b/" + Out, Contents, R.Output);
  }
  bool Rewrite = Written && !Opts.NoRewrite && R.Offloaded > 0;
  if (!Opts.Report.empty()) {
    nlohmann::json J;
    J["schema_version"] = ReportSchemaVersion;
    J["tool"] = "warpwise";
    J["version"] = WARPWISE_VERSION;
    J["command"] = "offload";
    J["input"] = Input;
    J["output"] = Opts.OutputFile;
    J["offloaded"] = R.Offloaded;
    J["kept_on_host"] = R.KeptOnHost;
    J["then_rewrite"] = Rewrite;
    nlohmann::json Ds = nlohmann::json::array();
    for (const OffloadDecision &D : R.Decisions) {
      nlohmann::json X;
      X["id"] = D.Id;
      X["severity"] = severityName(D.Level);
      X["line"] = D.Line;
      X["column"] = D.Column;
      X["kind"] = D.Kind;
      if (!D.Kernel.empty())
        X["kernel"] = D.Kernel;
      X["message"] = D.Message;
      Ds.push_back(X);
    }
    J["decisions"] = Ds;
    std::string Text = J.dump(2) + "\n";
    if (Opts.Report == "-")
      llvm::outs() << Text;
    else if (llvm::Error E = writeFileAtomically(Opts.Report, Text)) {
      Log.report(diag::CannotWrite, Severity::Error, Opts.Report, 0, 0,
                 "cannot write: " + llvm::toString(std::move(E)));
      return ExitInputProblem;
    }
  }
  if (Rewrite)
    ThenRewrite = rewriteArgs(Opts, Abs.str());
  return ExitOK;
}

int finishOffloadRewrite(const Options &Opts, int RewriteRC) {
  if (RewriteRC != ExitInputProblem)
    return RewriteRC;
  // The rewrite reported why (WW1004); a translation that does not compile
  // leaves nothing behind, as one refused before writing does.
  DiagnosticLog Log;
  Log.setEcho(&llvm::errs());
  Log.setEchoStyle(Opts.Quiet, Opts.Front.Colors, shortRemarks(Opts));
  llvm::sys::fs::remove(Opts.OutputFile);
  Log.report(diag::CompileErrors, Severity::Error, Opts.Files.front(), 0, 0,
             "the generated CUDA does not compile (see above); " +
                 Opts.OutputFile + " is not written");
  return RewriteRC;
}

} // namespace warpwise
