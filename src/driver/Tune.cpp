//===- Tune.cpp - rewrite --tune: forms chosen by timing the program ------===//
#include "warpwise/Tune.h"
#include "warpwise/Embedded.h"
#include "warpwise/TempFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

namespace warpwise {

namespace fs = llvm::sys::fs;

namespace {

struct Variant {
  std::string Name;
  std::string MeldForm;
  std::vector<std::string> Transforms;
  std::string Source; ///< Path of the program's source.
  std::string Binary;
  std::vector<double> Totals;       ///< Kernel time per round (ms).
  std::vector<std::string> Outputs; ///< The program's stdout per round.
  bool Failed = false;
  std::string Why;
};

std::string readAll(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

/// Runs \p Program; stdout to \p Out (or a log), stderr to \p Err (or the
/// same place). Returns the exit status (-1: could not start or timed out).
int run(const std::string &Program, const std::vector<std::string> &Args,
        const std::string &Out, const std::string &Err, unsigned Timeout,
        const std::vector<std::string> &Env, std::string &Error) {
  std::vector<std::string> Argv = {Program};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::vector<llvm::StringRef> Refs(Argv.begin(), Argv.end());
  std::vector<std::string> EnvStrings = toolEnvironment(Env);
  std::vector<llvm::StringRef> EnvRefs(EnvStrings.begin(), EnvStrings.end());
  std::optional<llvm::StringRef> Redirects[] = {
      llvm::StringRef(""), llvm::StringRef(Out), llvm::StringRef(Err)};
  return llvm::sys::ExecuteAndWait(Program, Refs, EnvRefs, Redirects, Timeout,
                                   0, &Error);
}

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

std::string ms(double V) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%.3f ms", V);
  return Buf;
}

/// "NVIDIA H100 80GB HBM3" and "sm_90" of the first GPU, from nvidia-smi.
bool findGpu(std::string &Name, std::string &Arch, std::string &Why) {
  auto Smi = llvm::sys::findProgramByName("nvidia-smi");
  if (!Smi) {
    Why = "nvidia-smi is not on PATH";
    return false;
  }
  llvm::SmallString<128> Out;
  createTemporaryFile("gpu", "txt", Out);
  std::string Error;
  int RC = run(*Smi, {"--query-gpu=name,compute_cap", "--format=csv,noheader"},
               Out.str().str(), Out.str().str(), 30, {}, Error);
  std::string Text = readAll(Out.str().str());
  fs::remove(Out);
  llvm::StringRef First =
      llvm::StringRef(Text).trim().take_until([](char C) { return C == '\n'; });
  auto [N, CC] = First.rsplit(',');
  CC = CC.trim();
  if (RC != 0 || CC.empty() || !CC.contains('.')) {
    Why = "nvidia-smi found no GPU" +
          (First.empty() ? std::string() : " (" + First.str() + ")");
    return false;
  }
  Name = N.trim().str();
  auto [Major, Minor] = CC.split('.');
  Arch = "sm_" + Major.str() + Minor.str();
  return true;
}

} // namespace

std::string tuneCacheKey(const TuneRequest &R, const std::string &Text) {
  llvm::SHA256 H;
  H.update(Text);
  for (const auto *List :
       {&R.RewriteArgs, &R.CompileFlags, &R.Transforms, &R.RunArgs}) {
    H.update(llvm::StringRef("\0", 1));
    for (const std::string &A : *List) {
      H.update(A);
      H.update(llvm::StringRef("\0", 1));
    }
  }
  auto Digest = H.final();
  return llvm::toHex(Digest, true) + ":" + R.Arch;
}

namespace {

nlohmann::json loadCache(const std::string &Path) {
  std::string Text = readAll(Path);
  if (Text.empty())
    return nlohmann::json::object();
  nlohmann::json J = nlohmann::json::parse(Text, nullptr, false);
  return J.is_object() ? J : nlohmann::json::object();
}

bool saveCache(const std::string &Path, const nlohmann::json &J,
               std::string &Error) {
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (!Dir.empty())
    fs::create_directories(Dir);
  std::string Temp = Path + ".tmp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Temp, EC);
    if (EC) {
      Error = EC.message();
      return false;
    }
    OS << J.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << "\n";
  }
  if (std::error_code EC = fs::rename(Temp, Path)) {
    Error = EC.message();
    return false;
  }
  return true;
}

} // namespace

std::string defaultTuneCache() {
  std::string Dir;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    Dir = std::string(X) + "/warpwise";
  else if (const char *H = std::getenv("HOME"); H && *H)
    Dir = std::string(H) + "/.cache/warpwise";
  return Dir.empty() ? "warpwise-tune.json" : Dir + "/tune.json";
}

namespace {

/// The verdict cached for \p Key in \p Cache, reported as a remark through
/// \p Say; nothing when this source and these options were never timed.
template <typename SayFn>
std::optional<TuneChoice>
cachedChoice(const nlohmann::json &Cache, const std::string &Key,
             const std::string &CachePath, const TuneRequest &R, SayFn Say) {
  if (!Cache.contains("entries") || !Cache["entries"].contains(Key))
    return std::nullopt;
  const nlohmann::json &E = Cache["entries"][Key];
  TuneChoice Choice;
  Choice.Decided = true;
  Choice.Original = E.value("original", false);
  Choice.MeldForm = E.value("meld_form", std::string("auto"));
  for (const auto &T : E.value("transforms", nlohmann::json::array()))
    Choice.Transforms.push_back(T.get<std::string>());
  Say(Severity::Remark, "the verdict cached in " + CachePath + " for " +
                            R.Arch + " (measured on " +
                            E.value("gpu", std::string("a GPU")) +
                            "): " + E.value("summary", std::string("")));
  return Choice;
}

/// Builds the timing shim into \p Shim against the toolkit's shared runtime
/// (the one the programs are linked with, so that its cudaLaunchKernel is
/// the one preloading replaces). On failure, the start of nvcc's log.
std::optional<std::string> buildShim(const std::string &Nvcc,
                                     const std::string &Dir,
                                     const std::string &Shim,
                                     std::string &Error) {
  std::string ShimSrc = Dir + "/shim.cpp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(ShimSrc, EC);
    OS << embeddedFile("tune_shim.cpp");
  }
  if (run(Nvcc,
          {"-cudart", "shared", "-shared", "-Xcompiler", "-fPIC", "-o", Shim,
           ShimSrc, "-ldl"},
          Dir + "/shim.log", Dir + "/shim.log", 300, {}, Error) == 0)
    return std::nullopt;
  return llvm::StringRef(readAll(Dir + "/shim.log"))
      .trim()
      .take_front(300)
      .str();
}

/// The original program, then each distinct rewrite to try: the model's
/// choice, each meld form, each without thread reallocation; only those the
/// options allow, that rewrite, and whose text differs from every earlier
/// one (the same program timed twice would only add noise).
std::vector<Variant> rewriteVariants(const TuneRequest &R,
                                     const std::string &Text,
                                     const std::string &Dir,
                                     std::string &Error) {
  std::vector<Variant> Variants;
  Variant Orig;
  Orig.Name = "original";
  Orig.Source = R.File;
  Variants.push_back(Orig);
  auto Without = [&](const std::string &T) {
    std::vector<std::string> Out;
    for (const std::string &X : R.Transforms)
      if (X != T)
        Out.push_back(X);
    return Out;
  };
  bool HasRealloc = std::find(R.Transforms.begin(), R.Transforms.end(),
                              "realloc") != R.Transforms.end();
  auto Try = [](std::string Name, std::string Form,
                std::vector<std::string> Transforms) {
    Variant V;
    V.Name = std::move(Name);
    V.MeldForm = std::move(Form);
    V.Transforms = std::move(Transforms);
    return V;
  };
  std::vector<Variant> Tries = {
      Try("the model's choice", "auto", R.Transforms),
      Try("merged melds", "merged", R.Transforms),
      Try("branch-free melds", "branch-free", R.Transforms)};
  if (HasRealloc) {
    Tries.push_back(Try("the model's choice without thread reallocation",
                        "auto", Without("realloc")));
    Tries.push_back(Try("merged melds without thread reallocation", "merged",
                        Without("realloc")));
  }
  std::map<std::string, std::string> Seen = {{Text, "original"}};
  for (size_t I = 0; I < Tries.size(); ++I) {
    Variant V = Tries[I];
    if (V.Transforms.empty())
      continue;
    V.Source = Dir + "/v" + std::to_string(I) + ".cu";
    std::vector<std::string> Args = {
        "rewrite",      R.File,
        "-o",           V.Source,
        "--meld-form",  V.MeldForm,
        "--transforms", llvm::join(V.Transforms, ",")};
    Args.insert(Args.end(), R.RewriteArgs.begin(), R.RewriteArgs.end());
    Args.push_back("--");
    Args.insert(Args.end(), R.CompileFlags.begin(), R.CompileFlags.end());
    std::string Log = Dir + "/v" + std::to_string(I) + ".log";
    int RC = run(R.Self, Args, Log, Log, 900, {}, Error);
    std::string Out = readAll(V.Source);
    if (RC != 0 || Out.empty())
      continue;
    auto [It, New] = Seen.emplace(Out, V.Name);
    if (!New)
      continue; // The same program as an earlier variant.
    Variants.push_back(V);
  }
  return Variants;
}

/// Builds every program for the GPU (\p GpuArch), with the shared runtime
/// the shim wraps; marks those nvcc rejects as failed. Compile flags that
/// nvcc understands pass through.
void buildVariants(const TuneRequest &R, const std::string &Nvcc,
                   const std::string &GpuArch, const std::string &Dir,
                   std::vector<Variant> &Variants, std::string &Error) {
  llvm::SmallString<256> InDir(R.File);
  llvm::sys::path::remove_filename(InDir);
  fs::make_absolute(InDir);
  std::vector<std::string> Flags = {"-O3", "-arch=" + GpuArch, "-cudart",
                                    "shared", "-I" + InDir.str().str()};
  for (const std::string &F : R.CompileFlags)
    if (llvm::StringRef(F).starts_with("-I") ||
        llvm::StringRef(F).starts_with("-D") ||
        llvm::StringRef(F).starts_with("-U") ||
        llvm::StringRef(F).starts_with("-std="))
      Flags.push_back(F);
  for (size_t I = 0; I < Variants.size(); ++I) {
    Variant &V = Variants[I];
    V.Binary = Dir + "/p" + std::to_string(I);
    std::vector<std::string> Args = Flags;
    Args.insert(Args.end(), {"-o", V.Binary, V.Source});
    std::string Log = V.Binary + ".build.log";
    if (run(Nvcc, Args, Log, Log, 900, {}, Error) != 0) {
      V.Failed = true;
      V.Why = "nvcc failed: " +
              llvm::StringRef(readAll(Log)).trim().take_front(300).str();
    }
  }
}

/// Runs the programs in interleaved rounds (every program once per round,
/// so that a drift of the GPU's clocks touches all alike) with the shim
/// preloaded; records each round's kernel time and output.
void timeVariants(const TuneRequest &R, const std::string &Shim,
                  std::vector<Variant> &Variants, std::string &Error) {
  for (unsigned Round = 0; Round < std::max(R.Runs, 1u); ++Round)
    for (size_t I = 0; I < Variants.size(); ++I) {
      Variant &V = Variants[I];
      if (V.Failed)
        continue;
      std::string Base = V.Binary + ".r" + std::to_string(Round);
      std::string Times = Base + ".times";
      fs::remove(Times);
      int RC = run(V.Binary, R.RunArgs, Base + ".out", Base + ".err",
                   R.TimeoutSeconds,
                   {"LD_PRELOAD=" + Shim, "WARPWISE_TUNE_OUT=" + Times}, Error);
      if (RC != 0) {
        V.Failed = true;
        V.Why = RC < 0 ? "it did not finish (" + Error + ")"
                       : "it exited with " + std::to_string(RC);
        continue;
      }
      V.Outputs.push_back(readAll(Base + ".out"));
      double Total = 0;
      llvm::SmallVector<llvm::StringRef> Lines;
      llvm::StringRef(readAll(Times)).split(Lines, '\n', -1, false);
      for (llvm::StringRef L : Lines) {
        llvm::SmallVector<llvm::StringRef> F;
        L.split(F, ' ');
        double Ms = 0;
        // "<kernel> <ms> <launches>": only the time is used (the names
        // read back corrupted on an H100 under CUDA 13).
        if (F.size() >= 2 && !F[F.size() - 2].getAsDouble(Ms))
          Total += Ms;
      }
      V.Totals.push_back(Total);
    }
}

/// Picks the fastest of the timed variants (Variants[0], the original,
/// timed and not failed) into \p Choice: a rewrite only when it prints what
/// the original prints and gains at least R.MinGain. Returns the summary
/// the remark and the cache show.
template <typename SayFn>
std::string chooseFastest(const TuneRequest &R, std::vector<Variant> &Variants,
                          TuneChoice &Choice, SayFn Say) {
  Variant &O = Variants[0];
  // The original's output must be the same in every round to compare the
  // rewrites' against it.
  bool Stable =
      std::all_of(O.Outputs.begin(), O.Outputs.end(),
                  [&](const std::string &S) { return S == O.Outputs.front(); });
  std::string Summary = "original " + ms(median(O.Totals));
  size_t Best = 0;
  for (size_t I = 1; I < Variants.size(); ++I) {
    Variant &V = Variants[I];
    if (!V.Failed && Stable)
      for (const std::string &S : V.Outputs)
        if (S != O.Outputs.front()) {
          V.Failed = true;
          V.Why = "its output differs from the original's";
        }
    if (V.Failed) {
      Summary += "; " + V.Name + ": not timed, " + V.Why;
      if (V.Why.find("output differs") != std::string::npos)
        Say(Severity::Warning,
            V.Name + " printed something else than the original program "
                     "(please report this with the file); not used");
      continue;
    }
    Summary += "; " + V.Name + " " + ms(median(V.Totals));
    if (median(V.Totals) < median(Variants[Best].Totals))
      Best = I;
  }
  double Gain =
      median(O.Totals) / std::max(median(Variants[Best].Totals), 1e-9);
  if (Best == 0 || Gain < R.MinGain) {
    Choice.Original = true;
    Summary +=
        "; kept the original" +
        (Best == 0 ? std::string(" (fastest)")
                   : " (the fastest rewrite gains less than " +
                         llvm::formatv("{0:F2}", R.MinGain).str() + "x)");
  } else {
    Choice.MeldForm = Variants[Best].MeldForm;
    Choice.Transforms = Variants[Best].Transforms;
    Summary += "; kept " + Variants[Best].Name + " (" +
               llvm::formatv("{0:F2}", Gain).str() + "x)";
  }
  if (!Stable)
    Summary += "; outputs not compared: the original prints something "
               "different in each run";
  Choice.Decided = true;
  Summary += "; median over " + std::to_string(O.Totals.size()) +
             " interleaved run(s) of the kernel time summed over the "
             "program's launches";
  return Summary;
}

/// The cache entry for a verdict: the choice, its summary and each timed
/// variant's time, for a later run (also one without a GPU) to reuse.
nlohmann::json verdictEntry(const TuneRequest &R, const std::string &GpuName,
                            const TuneChoice &Choice,
                            const std::string &Summary,
                            const std::vector<Variant> &Variants) {
  nlohmann::json Entry = {{"file", R.File},
                          {"arch", R.Arch},
                          {"gpu", GpuName},
                          {"original", Choice.Original},
                          {"meld_form", Choice.MeldForm},
                          {"transforms", Choice.Transforms},
                          {"summary", Summary}};
  nlohmann::json Times = nlohmann::json::object();
  for (const Variant &V : Variants) {
    if (V.Failed)
      continue;
    // Kernel time summed over the program's launches. (The shim's kernel
    // names read back corrupted on an H100 under CUDA 13, so only the
    // total is kept.)
    Times[V.Name] = {{"total_ms", median(V.Totals)}};
  }
  Entry["times"] = Times;
  return Entry;
}

} // namespace

TuneChoice tune(const TuneRequest &R, DiagnosticLog &Log) {
  TuneChoice Choice;
  auto Say = [&](Severity S, const std::string &M) {
    Log.report(S == Severity::Remark ? diag::TuneVerdict
                                     : diag::TuneUnavailable,
               S, R.File, 0, 0, "--tune: " + M);
  };
  std::string Text = readAll(R.File);
  std::string Key = tuneCacheKey(R, Text);
  std::string CachePath =
      R.CachePath.empty() ? defaultTuneCache() : R.CachePath;
  nlohmann::json Cache = loadCache(CachePath);
  if (std::optional<TuneChoice> Cached =
          cachedChoice(Cache, Key, CachePath, R, Say))
    return *Cached;

  // Timing needs the target's GPU, a place for the programs and the shim.
  std::string GpuName, GpuArch, Why;
  if (!findGpu(GpuName, GpuArch, Why)) {
    Say(Severity::Warning,
        Why +
            " and no verdict is cached for this source and these options "
            "in " +
            CachePath + "; the execution model decides");
    return Choice;
  }
  if (GpuArch != R.Arch) {
    Say(Severity::Warning, "the GPU (" + GpuName + ") is " + GpuArch +
                               " but the target is " + R.Arch +
                               " (--arch); tuning needs --arch " + GpuArch +
                               "; the execution model decides");
    return Choice;
  }
  llvm::SmallString<128> DirBuf;
  if (createTemporaryDirectory("tune", DirBuf)) {
    Say(Severity::Warning, "no temporary directory; the execution model "
                           "decides");
    return Choice;
  }
  std::string Dir = DirBuf.str().str();
  std::string Nvcc = R.CudaPath + "/bin/nvcc";
  std::string Error;
  std::string Shim = Dir + "/shim.so";
  if (std::optional<std::string> ShimLog = buildShim(Nvcc, Dir, Shim, Error)) {
    Say(Severity::Warning, "the timing shim did not build (" + *ShimLog +
                               "); the execution model decides");
    return Choice;
  }

  std::vector<Variant> Variants = rewriteVariants(R, Text, Dir, Error);
  if (Variants.size() == 1) {
    Choice.Decided = true;
    Choice.Original = true;
    Say(Severity::Remark, "no option rewrites this file; nothing to time");
    return Choice;
  }
  buildVariants(R, Nvcc, GpuArch, Dir, Variants, Error);
  if (Variants[0].Failed) {
    Say(Severity::Warning, "the original program did not build for the GPU (" +
                               Variants[0].Why +
                               "); the execution model decides");
    return Choice;
  }
  timeVariants(R, Shim, Variants, Error);
  Variant &O = Variants[0];
  if (O.Failed) {
    Say(Severity::Warning, "the original program failed (" + O.Why +
                               "; arguments from --tune-args); the "
                               "execution model decides");
    return Choice;
  }
  if (median(O.Totals) <= 0) {
    Say(Severity::Warning,
        "no kernel launch was timed in the original program (the shim "
        "wraps cudaLaunchKernel of the shared CUDA runtime); the execution "
        "model decides");
    return Choice;
  }

  std::string Summary = chooseFastest(R, Variants, Choice, Say);
  Cache["version"] = 1;
  Cache["entries"][Key] = verdictEntry(R, GpuName, Choice, Summary, Variants);
  std::string SaveError;
  if (!saveCache(CachePath, Cache, SaveError))
    Say(Severity::Warning, "the verdict could not be cached in " + CachePath +
                               " (" + SaveError + ")");
  Say(Severity::Remark,
      "on " + GpuName + ": " + Summary + "; cached in " + CachePath);
  return Choice;
}

} // namespace warpwise
