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
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <tuple>

namespace warpwise::driver {

namespace {

/// Whether the toolkit warpwise measures with is there and runs: a missing
/// or broken one is an error (WW1006), not a quiet switch to the stub
/// header, unless the user asked to go without it (--stub-cuda,
/// --no-ptxas). Otherwise the same input would give another output, and
/// --check would pass, on a machine where the toolkit's path is wrong.
bool checkToolkit(Session &Run) {
  const Options &Opts = Run.Opts;
  if ((Opts.Cmd != Command::Analyze && Opts.Cmd != Command::Rewrite) ||
      !Opts.UsePtxas || Opts.Front.StubHeaders)
    return true;
  const char *Way = "; warpwise measures its decisions with the toolkit's "
                    "nvcc, so it stops here: name the toolkit with "
                    "--cuda-path or CUDA_PATH, or pass --no-ptxas to go on "
                    "without measurements (fuse and meld then decline)";
  CudaToolkit Kit = findCudaToolkit(Opts.Front.CudaPath);
  if (!Kit.Found) {
    Run.Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
                   Kit.Problem + Way);
    return false;
  }
  std::string Nvcc = Kit.Path + "/bin/nvcc";
  if (!llvm::sys::fs::can_execute(Nvcc)) {
    Run.Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
                   "the CUDA toolkit at " + Kit.Path + " (from " +
                       Kit.FoundVia + ") has no nvcc in its bin directory" +
                       Way);
    return false;
  }
  // nvcc --version takes milliseconds; a toolkit whose nvcc does not run
  // (a wrong architecture, a missing library) is as good as none.
  std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(""),
                                                llvm::StringRef("")};
  std::string Why;
  int RC = llvm::sys::ExecuteAndWait(Nvcc, {Nvcc, "--version"},
                                     std::nullopt, Redirects,
                                     /*SecondsToWait=*/60, 0, &Why);
  if (RC != 0) {
    Run.Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
                   Nvcc + " does not run (`nvcc --version`" +
                       std::string(Why.empty() ? " " : "") +
                       (Why.empty() ? "exited with " + std::to_string(RC)
                                    : ": " + Why) +
                       ")" + Way);
    return false;
  }
  return true;
}

/// Orders architectures by how little room a kernel gets: the fewest
/// registers per thread and per SM, then warps, shared memory and blocks
/// per SM. The least is the most restrictive.
bool moreRestrictive(const ArchLimits &A, const ArchLimits &B) {
  auto Key = [](const ArchLimits &L) {
    return std::make_tuple(L.MaxRegistersPerThread, L.RegistersPerSM,
                           L.maxWarpsPerSM(), L.SharedPerSM, L.MaxBlocksPerSM);
  };
  return Key(A) < Key(B);
}

std::string joined(const std::vector<std::string> &Items) {
  std::string Out;
  for (const std::string &I : Items)
    Out += (Out.empty() ? "" : ", ") + I;
  return Out;
}

/// The architectures the inputs' compile flags build for (-arch, -gencode,
/// --generate-code, ...). Without --arch or a configuration's Arch,
/// warpwise measures for the most restrictive of them (WW1026 says which);
/// with one, WW1026 says the flags name others.
void chooseBuildArch(Session &Run) {
  Options &Opts = Run.Opts;
  if (Opts.Cmd != Command::Analyze && Opts.Cmd != Command::Rewrite)
    return;
  {
    // A frontend of its own, for the flags alone; its messages are said
    // again by the one that parses.
    DiagnosticLog Scratch;
    Frontend Probe(Opts.Front, Scratch);
    if (!Probe.initialize())
      return;
    for (const InputFile &F : Run.Inputs)
      if (F.Readable)
        for (const std::string &A : Probe.compileFlags(F.Absolute).Arches)
          if (!llvm::is_contained(Run.BuildArches, A))
            Run.BuildArches.push_back(A);
  }
  if (Run.BuildArches.empty())
    return;
  const ArchLimits *Chosen = nullptr;
  std::vector<std::string> Unknown;
  for (const std::string &A : Run.BuildArches) {
    const ArchLimits *L = Run.Table->find(A);
    if (!L)
      Unknown.push_back(A);
    else if (!Chosen || moreRestrictive(*L, *Chosen))
      Chosen = L;
  }
  std::string Named = "the compile flags build for " + joined(Run.BuildArches);
  if (!Unknown.empty())
    Named += " (" + joined(Unknown) + " not in the architecture table)";
  if (Run.ArchSource == "default" && Chosen) {
    Run.Arch = Chosen;
    Opts.Front.Arch = Chosen->smName();
    Run.ArchSource = "compile flags";
    Run.Log.report(diag::BuildArches, Severity::Remark, "", 0, 0,
                   "measuring for " + Opts.Front.Arch + ": " + Named +
                       (Run.BuildArches.size() > 1
                            ? ", and it is the most restrictive of them (the "
                              "fewest registers and warps per SM)"
                            : "") +
                       "; --arch chooses another");
    return;
  }
  if (Run.BuildArches.size() != 1 || Run.BuildArches[0] != Opts.Front.Arch)
    Run.Log.report(diag::BuildArches, Severity::Remark, "", 0, 0,
                   "measuring for " + Opts.Front.Arch + " (" +
                       (Run.ArchSource == "default" ? std::string("default")
                                                    : Run.ArchSource) +
                       "), but " + Named +
                       ": their register counts and occupancy may differ");
}

} // namespace

bool startFrontend(Session &Run) {
  if (!checkToolkit(Run)) {
    removeTemporaries();
    return false;
  }
  chooseBuildArch(Run);
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
  // --check passes only where warpwise decided as it would with its
  // measurements; without them it cannot tell, so it fails.
  if (Opts.Check && (!Opts.UsePtxas || !FeedbackPtr || !Feedback.available()))
    Log.report(diag::MeasurementsOff, Severity::Error, "", 0, 0,
               std::string("--check cannot pass without nvcc's measurements (") +
                   (!Opts.UsePtxas    ? "--no-ptxas"
                    : !FeedbackPtr    ? "--stub-cuda"
                                      : Feedback.unavailableReason().c_str()) +
                   "): the decisions that need them decline, so an "
                   "unchanged result would say nothing; it checked "
                   "nothing");
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
