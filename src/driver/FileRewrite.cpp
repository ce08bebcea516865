//===- FileRewrite.cpp - Every input through the pipeline -----------------===//
//
// One file, start to end, with its own log: parse, analyse, plan and
// transform (FileProcessor), the later passes of the rewrite
// (settleRewrite), the compile checks (checkRewriteCompiles), and ptxas's
// counts for the report. Files are independent, so with -j they run in
// parallel and their logs are replayed in input order, which makes the
// output that of -j 1.
//
//===----------------------------------------------------------------------===//
#include "FileRewrite.h"

#include "FileProcessor.h"
#include "NvccCheck.h"
#include "RewritePasses.h"

#include "warpwise/Ptxas.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace warpwise::driver {

void processFile(const Session &Run, InputFile &F, DiagnosticLog &FileLog) {
  const Options &Opts = Run.Opts;
  const Frontend &Front = *Run.Front;
  const ArchLimits *Arch = Run.Arch;
  CompileFeedback *FeedbackPtr = Run.FeedbackPtr;
  CompileFeedback &Feedback = *Run.Feedback;
  if (!F.Readable)
    return;
  TranslatedFlags Flags = Front.compileFlags(F.Absolute);
  if (FeedbackPtr)
    Feedback.setFileFlags(F.Absolute, Flags.Nvcc);
  FileProcessor Processor(F, *F.Settings, *Arch, FeedbackPtr, Run.activeFor(F),
                          Opts.BlockSize, Opts.ForceTransforms, Opts.FmadFalse,
                          FileLog, Opts.HeaderFilter);
  F.PassChanges.clear();
  F.Parsed = Front.parse(F.Absolute, F.Given, F.Contents, Processor, FileLog);
  if (!F.Parsed)
    return;
  if (Opts.Cmd == Command::Rewrite) {
    bool Parsed = settleRewrite(Run, F, FileLog);
    if (!blockingIn(FileLog, F.Given))
      checkRewriteCompiles(F, Parsed, Front, FeedbackPtr, *Arch,
                           Opts.Front.Verbose, FileLog);
  }
  if (F.Analysis.Kernels.empty())
    FileLog.report(diag::NoKernels, Severity::Remark, F.Given, 0, 0,
                   "no __global__ kernel is defined in this file");
  // Without a toolkit WW1007 has already said that ptxas is unavailable.
  // rewrite --report describes the input's kernels with ptxas's counts
  // too, as its decisions do, rather than with the estimates.
  bool ReportsKernels = Opts.Cmd == Command::Analyze ||
                        (Opts.Cmd == Command::Rewrite && !Opts.Report.empty());
  if (ReportsKernels && Opts.UsePtxas && !Front.usingStubHeaders() &&
      !F.Analysis.Kernels.empty()) {
    PtxasRunner Ptxas(Front.toolkit(), Opts.CacheDir, FileLog);
    Ptxas.annotate(F.Given, F.Contents, F.Absolute, Flags.Nvcc, F.FilesRead,
                   *Arch, F.Analysis);
  }
  // With real register counts now; the remark about block sizes was
  // already given.
  DiagnosticLog Quiet;
  computeKernelOccupancy(F.Analysis, *Arch, Opts.BlockSize, Quiet, F.Given);
}

void processInputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  std::vector<DiagnosticLog> FileLogs(Inputs.size());
  bool Progress = Inputs.size() > 1 && llvm::errs().is_displayed();
  auto Finish = [&](size_t I) {
    if (Progress)
      llvm::errs() << "\r\033[K";
    for (const Diagnostic &D : FileLogs[I].all())
      Log.report(D);
    if (Progress)
      llvm::errs() << "[" << I + 1 << "/" << Inputs.size() << "] "
                   << Inputs[I].Given;
  };
  unsigned Jobs = std::min<unsigned>(Opts.Jobs, Inputs.size());
  if (Jobs <= 1) {
    for (size_t I = 0; I < Inputs.size(); ++I) {
      processFile(Run, Inputs[I], FileLogs[I]);
      Finish(I);
    }
  } else {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
    std::vector<std::shared_future<void>> Done;
    for (size_t I = 0; I < Inputs.size(); ++I)
      Done.push_back(
          Pool.async([&, I] { processFile(Run, Inputs[I], FileLogs[I]); }));
    for (size_t I = 0; I < Inputs.size(); ++I) {
      Done[I].wait();
      Finish(I);
    }
  }
  if (Progress)
    llvm::errs() << "\r\033[K";
}

} // namespace warpwise::driver
