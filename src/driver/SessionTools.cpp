//===- SessionTools.cpp - The frontend, --tune and nvcc's feedback --------===//
//
// The tools a session runs: the frontend (clang with the CUDA toolkit's
// headers), --tune's timing of the variants before the rewrite, and nvcc
// for the measurements and the compile checks.
//
//===----------------------------------------------------------------------===//
#include "SessionTools.h"

#include "warpwise/Driver.h"
#include "warpwise/Ptxas.h"
#include "warpwise/TempFiles.h"
#include "warpwise/Tune.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace warpwise::driver {

bool startFrontend(Session &Run) {
  Run.Front = std::make_unique<Frontend>(Run.Opts.Front, Run.Log);
  if (!Run.Front->initialize()) {
    removeTemporaries();
    return false;
  }
  return true;
}

void tuneFirst(Session &Run) {
  const Options &Opts = Run.Opts;
  const Frontend &Front = *Run.Front;
  std::map<std::string, FileSettings> &Settings = Run.Settings;
  const std::vector<std::string> &ConfigOf = Run.ConfigOf;
  DiagnosticLog &Log = Run.Log;
  // --tune: the variants are timed (or the cached verdict is read) before
  // the rewrite, which then runs with the options of the fastest.
  if (Opts.Tune && Opts.Cmd == Command::Rewrite && !Front.usingStubHeaders()) {
    TuneRequest TR;
    TR.File = Opts.Files.front();
    TR.Self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&runWarpwise));
    TR.CudaPath = Front.toolkit().Path;
    TR.Arch = Opts.Front.Arch;
    TR.RewriteArgs = {"--arch", Opts.Front.Arch, "--cuda-path", TR.CudaPath};
    if (Opts.BlockSize)
      TR.RewriteArgs.insert(TR.RewriteArgs.end(),
                            {"--block-size", std::to_string(*Opts.BlockSize)});
    if (!Opts.Front.CompileCommandsDir.empty())
      TR.RewriteArgs.insert(TR.RewriteArgs.end(),
                            {"-p", Opts.Front.CompileCommandsDir});
    if (!Opts.RulesPath.empty())
      TR.RewriteArgs.insert(TR.RewriteArgs.end(), {"--arches", Opts.RulesPath});
    if (!Opts.CostsPath.empty())
      TR.RewriteArgs.insert(TR.RewriteArgs.end(), {"--costs", Opts.CostsPath});
    if (!Opts.SplitForm.empty())
      TR.RewriteArgs.insert(TR.RewriteArgs.end(),
                            {"--split-form", Opts.SplitForm});
    if (Opts.FmadFalse)
      TR.RewriteArgs.push_back("--fmad=false");
    if (Opts.AssumeCuda)
      TR.RewriteArgs.push_back("--assume-cuda");
    TR.CompileFlags = Opts.Front.ExtraArgs;
    FileSettings &Only = Settings[ConfigOf.front()];
    TR.Transforms = Only.Transforms;
    TR.RunArgs = Opts.TuneArgs;
    TR.Runs = Opts.TuneRuns;
    TR.CachePath = Opts.TuneCache;
    TR.MinGain = Only.Costs->MinPredictedGain;
    TuneChoice Chosen = tune(TR, Log);
    if (Chosen.Decided) {
      if (Chosen.Original)
        Only.Transforms.clear();
      else {
        Only.MeldForm = Chosen.MeldForm;
        Only.Transforms = Chosen.Transforms;
      }
    }
  } else if (Opts.Tune) {
    Log.report(diag::TuneUnavailable, Severity::Warning, Opts.Files.front(), 0,
               0,
               "--tune: the CUDA toolkit's headers were not found, so nothing "
               "can be built or timed; the execution model decides");
  }
}

void startFeedback(Session &Run) {
  const Options &Opts = Run.Opts;
  const Frontend &Front = *Run.Front;
  const std::vector<InputFile> &Inputs = Run.Inputs;
  DiagnosticLog &Log = Run.Log;
  Run.Feedback = std::make_unique<CompileFeedback>(Front.toolkit(),
                                                   std::vector<std::string>());
  CompileFeedback &Feedback = *Run.Feedback;
  // The ptxas cache's directory holds the candidates' measurements too.
  Feedback.setCacheDir(cacheDirectory(Opts.CacheDir));
  if (Opts.Front.Verbose) {
    Front.printConfiguration(llvm::errs());
    if (!Front.usingStubHeaders())
      llvm::errs() << "warpwise: tools: nvcc "
                   << Front.toolkit().Path + "/bin/nvcc"
                   << ", cuobjdump "
                   << (Feedback.cuobjdumpPath().empty()
                           ? std::string("(not found)")
                           : Feedback.cuobjdumpPath())
                   << ", nvdisasm "
                   << (Feedback.nvdisasmPath().empty()
                           ? std::string("(not found)")
                           : Feedback.nvdisasmPath())
                   << "\n";
  }
  CompileFeedback *FeedbackPtr = Run.FeedbackPtr =
      Front.usingStubHeaders() ? nullptr : &Feedback;
  if (!Opts.UsePtxas)
    Feedback.disable("nvcc is not run (--no-ptxas)");
  if (!Opts.UsePtxas && Opts.Cmd == Command::Rewrite)
    Log.report(diag::MeasurementsOff, Severity::Remark, "", 0, 0,
               "--no-ptxas: nvcc is not run, so the decisions that need its "
               "measurements decline (fuse and meld, the occupancy checks of "
               "fission and split)");
  bool AnyActive = llvm::any_of(
      Inputs, [&](const InputFile &F) { return !Run.activeFor(F).empty(); });
  // Said once, here, rather than in every decision it costs: the same input
  // gives different output where the tools are missing.
  if (FeedbackPtr && !Feedback.available() && AnyActive && Opts.UsePtxas)
    Log.report(diag::ToolMissing, Severity::Warning, "", 0, 0,
               Feedback.unavailableReason() +
                   "; fuse and meld are declined and fission cannot check "
                   "occupancy, so this output may differ from that of a "
                   "machine with the tools (see -v)");
}

} // namespace warpwise::driver
