//===- Tune.h - rewrite --tune: forms chosen by timing the program -*- C++
//-*-===//
//
// The execution model decides fuse, meld and thread reallocation without a
// GPU. With --tune and a GPU, warpwise instead builds the original program
// and each distinct rewrite its options allow (the model's choice, each
// meld form, with and without thread reallocation), runs them on the
// program's own launches, times every kernel launch with CUDA events
// (through a preloaded shim around cudaLaunchKernel, so the program's
// source is not instrumented), checks that each prints what the original
// prints, and keeps the fastest. The verdict is cached per source hash,
// options and target arch, so later runs, also without a GPU, reuse it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_TUNE_H
#define WARPWISE_TUNE_H

#include "warpwise/Diagnostics.h"

#include <string>
#include <vector>

namespace warpwise {

struct TuneRequest {
  std::string File;     ///< The one input, as given.
  std::string Self;     ///< This warpwise executable.
  std::string CudaPath; ///< The toolkit whose nvcc builds the programs.
  std::string Arch;     ///< --arch: the target the verdict is for.
  /// Options every variant's rewrite gets (before `--`), and the compile
  /// flags after it.
  std::vector<std::string> RewriteArgs, CompileFlags;
  /// The transformations the user allows (all by default).
  std::vector<std::string> Transforms;
  std::vector<std::string> RunArgs; ///< --tune-args: the program's arguments.
  unsigned Runs = 3;                ///< --tune-runs: interleaved rounds.
  unsigned TimeoutSeconds = 300;    ///< Per run of a program.
  std::string CachePath;            ///< --tune-cache.
  double MinGain = 1.02; ///< Below this over the original, keep the original.
};

struct TuneChoice {
  bool Decided = false;  ///< False: the execution model decides.
  bool Original = false; ///< The original was fastest: rewrite nothing.
  std::string MeldForm = "auto";
  std::vector<std::string> Transforms;
};

/// Measures (or finds in the cache) which rewrite of Request.File runs
/// fastest; reports what it did as remarks and warnings in \p Log.
TuneChoice tune(const TuneRequest &Request, DiagnosticLog &Log);

/// The key a verdict is cached under: the source's and the options' hash,
/// and the target arch.
std::string tuneCacheKey(const TuneRequest &Request, const std::string &Text);

/// The default cache file: tune.json in warpwise's cache directory.
std::string defaultTuneCache();

} // namespace warpwise

#endif
