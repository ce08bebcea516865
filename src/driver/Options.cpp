//===- Options.cpp - Command-line parsing ---------------------------------===//
//
// A small hand-written parser: subcommands, --opt=value and --opt value, and
// `--` before compiler flags. llvm::cl's global options do not fit subcommands
// with their own usage errors (exit code 2).
//
//===----------------------------------------------------------------------===//
#include "warpwise/Options.h"

#include "warpwise/Cli.h"
#include "warpwise/Config.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>

namespace warpwise {

namespace {
class ArgReader {
public:
  ArgReader(const std::vector<std::string> &A) : Args(A) {}
  bool done() const { return Pos >= Args.size(); }
  const std::string &peek() const { return Args[Pos]; }
  std::string next() { return Args[Pos++]; }

  /// Matches `--name=value`, `--name value`, or `-x value` for \p Name.
  bool valueOf(llvm::StringRef Arg, llvm::StringRef Name, std::string &Value,
               std::string &Error) {
    if (Arg == Name) {
      if (done()) {
        Error = "option '" + Name.str() + "' needs a value";
        return true;
      }
      Value = next();
      return true;
    }
    if (Arg.starts_with(Name) && Arg.size() > Name.size() &&
        Arg[Name.size()] == '=') {
      Value = Arg.substr(Name.size() + 1).str();
      return true;
    }
    return false;
  }

private:
  const std::vector<std::string> &Args;
  size_t Pos = 0;
};

bool parseUnsigned(const std::string &S, unsigned long &Out) {
  llvm::StringRef R(S);
  return !R.empty() && !R.getAsInteger(10, Out);
}
/// The first word: a subcommand, or an option that is a command of its own
/// (--help, --version, --explain, --list-transforms), which takes at most
/// its one argument. True when that ends the parse (\p Result says how);
/// false for analyze, rewrite, occupancy and offload, whose options follow.
bool parseCommandWord(ArgReader &R, Options &Opts, ParseOutcome &Result) {
  std::string First = R.next();
  Opts.Cmd = llvm::StringSwitch<Command>(First)
                 .Case("analyze", Command::Analyze)
                 .Case("rewrite", Command::Rewrite)
                 .Case("occupancy", Command::Occupancy)
                 .Case("offload", Command::Offload)
                 .Cases({"--help", "-h", "help"}, Command::Help)
                 .Case("--version", Command::Version)
                 .Cases({"--explain", "explain"}, Command::Explain)
                 .Case("--list-transforms", Command::ListTransforms)
                 .Default(Command::None);
  if (Opts.Cmd == Command::None &&
      llvm::StringRef(First).starts_with("--explain=")) {
    Opts.Cmd = Command::Explain;
    Opts.ExplainId = llvm::StringRef(First).substr(10).str();
  }
  if (Opts.Cmd == Command::None) {
    Result.Error = llvm::StringRef(First).starts_with("-")
                       ? unknownOptionMessage(First, Command::None)
                       : unknownCommandMessage(First);
    return true;
  }
  if (Opts.Cmd == Command::Help) {
    // `help COMMAND`, `--help COMMAND`.
    if (!R.done()) {
      std::string Topic = R.next();
      Opts.HelpTopic = commandNamed(Topic);
      if (Opts.HelpTopic == Command::None) {
        Result.Error = unknownCommandMessage(Topic);
        return true;
      }
    }
    Result.OK = R.done();
    if (!Result.OK)
      Result.Error = "help takes one command";
    return true;
  }
  if (Opts.Cmd == Command::Explain) {
    if (Opts.ExplainId.empty() && !R.done())
      Opts.ExplainId = R.next();
    if (Opts.ExplainId.empty())
      Result.Error = "--explain needs a diagnostic id, such as WW3001";
    else if (!R.done())
      Result.Error = "--explain takes one diagnostic id";
    Result.OK = Result.Error.empty();
    return true;
  }
  if (Opts.Cmd == Command::ListTransforms) {
    Result.OK = R.done();
    if (!Result.OK)
      Result.Error = "--list-transforms takes no arguments";
    return true;
  }
  if (Opts.Cmd == Command::Version) {
    Result.OK = true;
    return true;
  }
  return false;
}

// The options, by what they set. Each parse*Option returns whether \p Arg is
// one of its options (reading its value from \p R where it takes one) and
// sets \p Err when the value is wrong. Every option has one spelling that
// only it matches, so the order in which they are tried does not matter.

/// How the inputs are found, parsed and reported: the frontend's flags,
/// rule files, jobs, the diagnostics' form.
bool parseSessionOption(ArgReader &R, llvm::StringRef Arg, Options &Opts,
                        std::vector<std::string> &ExtraArgs, std::string &Err) {
  std::string V;
  if (Arg == "-q" || Arg == "--quiet") {
    Opts.Quiet = true;
  } else if (R.valueOf(Arg, "--remarks", V, Err)) {
    Opts.Remarks = V;
    if (Err.empty() && V != "short" && V != "full")
      Err = "--remarks must be short or full, not '" + V + "'";
  } else if (Arg == "--color" || Arg.starts_with("--color=")) {
    V = Arg == "--color" ? "always" : Arg.substr(8).str();
    if (V == "auto")
      Opts.Color = ColorChoice::Auto;
    else if (V == "always")
      Opts.Color = ColorChoice::Always;
    else if (V == "never")
      Opts.Color = ColorChoice::Never;
    else
      Err = "--color must be auto, always or never, not '" + V + "'";
  } else if (R.valueOf(Arg, "--arch", V, Err)) {
    Opts.Front.Arch = V;
    Opts.ArchGiven = true;
  } else if (R.valueOf(Arg, "--config-file", V, Err)) {
    Opts.ConfigFile = V;
  } else if (Arg == "--dump-config") {
    Opts.DumpConfig = true;
  } else if (R.valueOf(Arg, "--style", V, Err)) {
    if (V.empty())
      Err = "--style needs a style (file, LLVM, Google, ... or {key: "
            "value, ...})";
    Opts.Style = V;
  } else if (R.valueOf(Arg, "--cuda-path", V, Err)) {
    Opts.Front.CudaPath = V;
  } else if (Arg == "--stub-cuda") {
    Opts.Front.StubHeaders = true;
  } else if (Arg == "--no-stub-cuda") {
    Opts.Front.AllowStubFallback = false;
  } else if (R.valueOf(Arg, "--cuda-mode", V, Err)) {
    if (V == "host")
      Opts.Front.Mode = ParseMode::Host;
    else if (V == "device")
      Opts.Front.Mode = ParseMode::Device;
    else if (V == "auto")
      Opts.Front.Mode = ParseMode::Auto;
    else
      Err = "--cuda-mode must be host, device or auto, not '" + V + "'";
  } else if (R.valueOf(Arg, "-p", V, Err)) {
    Opts.Front.CompileCommandsDir = V;
  } else if (R.valueOf(Arg, "--extra-arg", V, Err)) {
    ExtraArgs.push_back(V);
  } else if (R.valueOf(Arg, "--extra-arg-before", V, Err)) {
    Opts.Front.ExtraArgsBefore.push_back(V);
  } else if (R.valueOf(Arg, "--resource-dir", V, Err)) {
    Opts.Front.ResourceDir = V;
  } else if (R.valueOf(Arg, "--arches", V, Err)) {
    Opts.RulesPath = V;
  } else if (R.valueOf(Arg, "--costs", V, Err)) {
    Opts.CostsPath = V;
  } else if (R.valueOf(Arg, "--header-filter", V, Err)) {
    std::string Why;
    // '' (the main file only) is no regex to llvm::Regex, but valid here.
    if (!V.empty() && !llvm::Regex(V).isValid(Why))
      Err = "--header-filter: '" + V + "' is not a regular expression (" + Why +
            ")";
    Opts.HeaderFilter = V;
  } else if (Arg == "--assume-cuda") {
    Opts.AssumeCuda = true;
  } else if (R.valueOf(Arg, "--format", V, Err)) {
    if (V == "text")
      Opts.Format = OutputFormat::Text;
    else if (V == "json")
      Opts.Format = OutputFormat::Json;
    else
      Err = "--format must be text or json, not '" + V + "'";
  } else if (Arg == "-v" || Arg == "--verbose") {
    Opts.Front.Verbose = true;
  } else if (Arg == "-j" || Arg == "--jobs" ||
             (Arg.starts_with("-j") && Arg.size() > 2) ||
             Arg.starts_with("--jobs=")) {
    if (Arg == "-j" || Arg == "--jobs") {
      if (!R.done())
        V = R.next();
    } else {
      V = Arg.starts_with("--jobs=") ? Arg.substr(7).str()
                                     : Arg.substr(2).str();
    }
    unsigned long N;
    if (!parseUnsigned(V, N) || N == 0 || N > 256)
      Err = "-j must be a number of parallel jobs (1..256), not '" + V + "'";
    else
      Opts.Jobs = N;
  } else if (Arg == "--keep-going" || Arg == "-k") {
    Opts.KeepGoing = true;
  } else if (Arg == "--save-temps") {
    Opts.SaveTemps = true;
  } else if (R.valueOf(Arg, "--block-size", V, Err)) {
    unsigned long N;
    if (!parseUnsigned(V, N) || N == 0 || N > 1024)
      Err = "--block-size must be 1..1024, not '" + V + "'";
    else
      Opts.BlockSize = N;
  } else if (Arg == "--no-ptxas") {
    Opts.UsePtxas = false;
  } else if (R.valueOf(Arg, "--cache-dir", V, Err)) {
    Opts.CacheDir = V;
  } else if (R.valueOf(Arg, "--diag-suppress", V, Err)) {
    // nvcc's spelling: --diag-suppress ID[,ID...], repeatable.
    llvm::SmallVector<llvm::StringRef> Ids;
    llvm::StringRef(V).split(Ids, ',', -1, /*KeepEmpty=*/false);
    if (Ids.empty())
      Err = "--diag-suppress needs diagnostic ids (WW2001,WW3001)";
    for (llvm::StringRef Id : Ids) {
      std::string Problem = suppressionProblem(Id.trim().str());
      if (!Problem.empty() && Err.empty())
        Err = "--diag-suppress: " + Problem;
      Opts.DiagSuppress.push_back(Id.trim().upper());
    }
  } else {
    return false;
  }
  return true;
}

/// Where the results go: files, standard output, diffs, fixes, reports.
bool parseOutputOption(ArgReader &R, llvm::StringRef Arg, Options &Opts,
                       std::string &Err) {
  std::string V;
  if (R.valueOf(Arg, "--in-root", V, Err)) {
    Opts.InRoot = V;
  } else if (R.valueOf(Arg, "--depfile", V, Err)) {
    Opts.Depfile = V;
  } else if (Arg == "--line-directives") {
    Opts.LineDirectives = true;
  } else if (Arg == "--no-rewrite") {
    Opts.NoRewrite = true;
  } else if (Arg == "--whole-program") {
    Opts.WholeProgram = true;
  } else if (R.valueOf(Arg, "-o", V, Err)) {
    Opts.OutputFile = V;
  } else if (R.valueOf(Arg, "--out-dir", V, Err)) {
    Opts.OutputDir = V;
  } else if (Arg == "-i" || Arg == "--in-place") {
    Opts.InPlace = true;
  } else if (Arg == "--diff") {
    Opts.Diff = true;
  } else if (Arg == "--check") {
    Opts.Check = true;
  } else if (R.valueOf(Arg, "--export-fixes", V, Err)) {
    Opts.ExportFixes = V;
  } else if (R.valueOf(Arg, "--report", V, Err)) {
    Opts.Report = V;
  } else if (R.valueOf(Arg, "--sarif", V, Err)) {
    Opts.Sarif = V;
  } else {
    return false;
  }
  return true;
}

/// --split-form's value: FORM for every kernel, or KERNEL=FORM[,...]. The
/// error for a wrong one, or "".
std::string splitFormProblem(const std::string &V) {
  std::string Err;
  auto Known = [](llvm::StringRef F) {
    return F == "literal" || F == "adaptive" || F == "compact" || F == "none";
  };
  llvm::SmallVector<llvm::StringRef> Parts;
  llvm::StringRef(V).split(Parts, ',', -1, /*KeepEmpty=*/false);
  bool PerKernel = llvm::StringRef(V).contains('=');
  for (llvm::StringRef P : Parts) {
    auto [Kernel, Form] = P.trim().split('=');
    if (!PerKernel)
      Form = Kernel;
    if (Form.trim() == "efficient")
      Err = "--split-form efficient was retired: it lost to the original "
            "kernel at every measured point (0.71x-0.85x on an H100, "
            "docs/benchmarks.md); the adaptive form replaces it";
    else if ((PerKernel && Kernel.trim().empty()) || !Known(Form.trim()) ||
             (!PerKernel && Parts.size() != 1))
      Err = "--split-form must be adaptive, literal, compact or none, or "
            "KERNEL=FORM[,KERNEL=FORM...], not '" +
            V + "'";
  }
  if (Parts.empty())
    Err = "--split-form needs a form";
  return Err;
}

/// Which transformations run and in what form, --tune included.
bool parseTransformOption(ArgReader &R, llvm::StringRef Arg, Options &Opts,
                          std::string &Err) {
  std::string V;
  if (R.valueOf(Arg, "--transforms", V, Err)) {
    Opts.TransformsGiven = true;
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(V).split(Parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts)
      Opts.Transforms.push_back(P.trim().str());
    if (Parts.empty())
      Err = "--transforms needs a list (meld, fuse, realloc, fission, split, "
            "refill, share, dispatch) or 'none'";
  } else if (R.valueOf(Arg, "--split-form", V, Err)) {
    std::string Problem = splitFormProblem(V);
    if (!Problem.empty())
      Err = Problem;
    Opts.SplitForm = V;
  } else if (R.valueOf(Arg, "--meld-form", V, Err)) {
    if (V != "auto" && V != "merged" && V != "branch-free")
      Err = "--meld-form must be auto, merged or branch-free, not '" + V + "'";
    Opts.MeldForm = V;
    Opts.MeldFormGiven = true;
  } else if (Arg == "--tune") {
    Opts.Tune = true;
  } else if (R.valueOf(Arg, "--tune-args", V, Err)) {
    Opts.TuneArgsGiven = true;
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(V).split(Parts, ' ', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts)
      Opts.TuneArgs.push_back(P.str());
  } else if (R.valueOf(Arg, "--tune-runs", V, Err)) {
    unsigned long N;
    if (!parseUnsigned(V, N) || N == 0 || N > 100)
      Err = "--tune-runs must be 1..100, not '" + V + "'";
    else
      Opts.TuneRuns = N;
  } else if (R.valueOf(Arg, "--tune-cache", V, Err)) {
    Opts.TuneCache = V;
  } else if (Arg == "--force-transforms") {
    Opts.ForceTransforms = true;
  } else if (Arg == "--measured-dispatch") {
    Opts.MeasuredDispatch = Options::DispatchChoice::Add;
  } else if (Arg == "--no-measured-dispatch") {
    Opts.MeasuredDispatch = Options::DispatchChoice::Remove;
  } else if (Arg == "--fmad=false" || Arg == "--fmad=true") {
    Opts.FmadFalse = Arg == "--fmad=false";
  } else {
    return false;
  }
  return true;
}

/// occupancy's kernel resources: registers, block size, shared memory.
bool parseOccupancyOption(ArgReader &R, llvm::StringRef Arg, Options &Opts,
                          std::string &Err) {
  std::string V;
  if (R.valueOf(Arg, "--regs", V, Err)) {
    unsigned long N;
    if (!parseUnsigned(V, N) || N > 1024)
      Err = "--regs must be a register count, not '" + V + "'";
    else
      Opts.Registers = N;
  } else if (R.valueOf(Arg, "--threads", V, Err)) {
    unsigned long N;
    if (!parseUnsigned(V, N) || N == 0 || N > 4096)
      Err = "--threads must be a block size, not '" + V + "'";
    else
      Opts.Threads = N;
  } else if (R.valueOf(Arg, "--smem", V, Err)) {
    unsigned long N;
    if (!parseUnsigned(V, N))
      Err = "--smem must be a byte count, not '" + V + "'";
    else
      Opts.SharedBytes = N;
  } else {
    return false;
  }
  return true;
}

// The checks of the options together, once all are read. Each returns the
// first problem, or "".

/// rewrite: one destination, one writer of standard output, and the
/// options that only make sense with another one.
std::string rewriteProblem(const Options &Opts) {
  int Destinations =
      !Opts.OutputFile.empty() + !Opts.OutputDir.empty() + Opts.InPlace;
  if (Opts.Check &&
      (Destinations || !Opts.ExportFixes.empty() || !Opts.Depfile.empty()))
    return "--check writes no file: it excludes -o, --out-dir, -i, "
           "--export-fixes and --depfile (--diff and --report still work)";
  if (Destinations > 1)
    return "-o, --out-dir and -i exclude each other";
  if (!Opts.OutputFile.empty() && Opts.Files.size() > 1)
    return "-o takes one input file; use --out-dir or -i for several";
  if (Destinations == 0 && !Opts.Diff && Opts.ExportFixes.empty() &&
      Opts.Report.empty() && !Opts.Check && Opts.Files.size() > 1)
    return "several input files need --out-dir, -i, --diff, "
           "--export-fixes or --report";
  if (Opts.InPlace && !Opts.ExportFixes.empty())
    // The fixes are offsets into the original text; after -i the files
    // hold the rewritten text, and applying them would corrupt it.
    return "-i and --export-fixes exclude each other: the fixes describe "
           "the original files, which -i replaces";
  if (!Opts.InRoot.empty() && Opts.OutputDir.empty())
    return "--in-root needs --out-dir";
  if (!Opts.Depfile.empty() && Destinations == 0)
    return "--depfile needs -o, --out-dir or -i (the rules name the files "
           "written)";
  if (Opts.LineDirectives && (Opts.InPlace || Destinations == 0))
    return "--line-directives needs -o or --out-dir: the copies a build "
           "compiles, never the inputs (-i)";
  if (!Opts.Depfile.empty() && Opts.OutputFile == "-")
    return "--depfile needs an output file, not standard output";
  if (Opts.Tune && Opts.Files.size() > 1)
    return "--tune takes one input file (it runs that program)";
  if (Opts.Tune && Opts.ForceTransforms)
    return "--tune and --force-transforms exclude each other: --tune keeps "
           "what runs fastest, --force-transforms applies every legal "
           "candidate";
  if (Opts.Tune && Opts.MeldForm != "auto")
    return "--tune chooses the meld form itself; leave --meld-form at auto";
  if (!Opts.Tune &&
      (Opts.TuneArgsGiven || Opts.TuneRuns != 3 || !Opts.TuneCache.empty()))
    return "--tune-args, --tune-runs and --tune-cache need --tune";
  int ToStdout = (Opts.OutputFile == "-") + (Opts.Report == "-") +
                 (Opts.ExportFixes == "-") + Opts.Diff;
  if (ToStdout > 1)
    return "only one of -o -, --report -, --export-fixes - and --diff can "
           "write to standard output";
  if (ToStdout + (Opts.Sarif == "-") > 1)
    return "--sarif - and -o -, --report -, --export-fixes - or --diff "
           "would share standard output";
  return "";
}

/// offload: one input, one output (a file, or standard output when the
/// rewrite step is off).
std::string offloadProblem(const Options &Opts) {
  if (Opts.Files.size() != 1)
    return "offload takes one input file";
  if (Opts.OutputFile.empty() && !Opts.Diff)
    return "offload needs -o OUTPUT.cu (or --diff to only show the result)";
  if (Opts.OutputFile == "-" && !Opts.NoRewrite)
    return "offload -o - needs --no-rewrite (the rewrite step works on a "
           "file)";
  if ((Opts.OutputFile == "-") + (Opts.Report == "-") + Opts.Diff > 1)
    return "only one of -o -, --report - and --diff can write to standard "
           "output";
  return "";
}

/// Every command: the target, the headers, the inputs, then the command's
/// own rules.
std::string commandProblem(const Options &Opts) {
  if (Opts.Front.Arch.empty() || parseSmArch(Opts.Front.Arch) == 0)
    return "--arch must look like sm_90, not '" + Opts.Front.Arch + "'";
  if (Opts.Front.StubHeaders && !Opts.Front.AllowStubFallback)
    return "--stub-cuda and --no-stub-cuda contradict each other";
  if (Opts.Cmd == Command::Occupancy) {
    if (!Opts.Files.empty())
      return "occupancy takes no files";
    if (!Opts.Registers || !Opts.Threads)
      return "occupancy needs --regs N and --threads T";
    return "";
  }
  if (Opts.Files.empty() && !Opts.DumpConfig &&
      (Opts.Front.CompileCommandsDir.empty() ||
       (Opts.Cmd != Command::Analyze && Opts.Cmd != Command::Rewrite)))
    // analyze and rewrite with -p alone take the database's CUDA files
    // (readCommandLine).
    return "no input files";
  if (Opts.Cmd == Command::Offload)
    return offloadProblem(Opts);
  if (Opts.Cmd == Command::Rewrite)
    return rewriteProblem(Opts);
  if (Opts.Cmd == Command::Analyze && Opts.Sarif == "-")
    return "analyze prints its analysis on standard output: --sarif needs a "
           "file";
  return "";
}

} // namespace

ParseOutcome parseCommandLine(const std::vector<std::string> &Args,
                              Options &Opts) {
  ParseOutcome Result;
  if (Args.empty()) {
    Result.Error = "no command given";
    return Result;
  }
  ArgReader R(Args);
  if (parseCommandWord(R, Opts, Result))
    return Result;

  bool DashDash = false;
  std::vector<std::string> ExtraArgs; // --extra-arg, after `--`'s.
  std::string &Err = Result.Error;
  while (!R.done()) {
    std::string A = R.next();
    llvm::StringRef Arg(A);
    if (Arg == "--") {
      Opts.Given.push_back(A);
      DashDash = true;
      while (!R.done())
        Opts.Front.ExtraArgs.push_back(R.next());
      break;
    }
    if (Arg == "--help" || Arg == "-h") {
      Opts.HelpTopic = Opts.Cmd;
      Opts.Cmd = Command::Help;
      Result.OK = true;
      return Result;
    }
    if (Arg == "--list-transforms" && Opts.Cmd == Command::Rewrite) {
      Opts.Cmd = Command::ListTransforms;
      Result.OK = true;
      return Result;
    }
    bool IsFile = false;
    if (!parseSessionOption(R, Arg, Opts, ExtraArgs, Err) &&
        !parseOutputOption(R, Arg, Opts, Err) &&
        !parseTransformOption(R, Arg, Opts, Err) &&
        !parseOccupancyOption(R, Arg, Opts, Err)) {
      if (Arg.starts_with("-") && Arg != "-") {
        Err = unknownOptionMessage(A, Opts.Cmd);
      } else {
        IsFile = true;
        Opts.Files.push_back(A);
      }
    }
    if (!Err.empty())
      return Result;
    if (!IsFile) {
      // As spelled, without its value: "--fmad=false" and "-j" for "-j8".
      llvm::StringRef Name = Arg.starts_with("--fmad=") ? Arg
                             : Arg.starts_with("-j")    ? llvm::StringRef("-j")
                                                        : Arg.split('=').first;
      Opts.Given.push_back(Name.str());
    }
  }

  // An option the command does not read would be ignored without a word.
  Err = checkOptionsApply(Opts);
  if (!Err.empty())
    return Result;
  if (Opts.Quiet && Opts.Front.Verbose) {
    Err = "-q and -v exclude each other";
    return Result;
  }

  Opts.Front.ExtraArgs.insert(Opts.Front.ExtraArgs.end(), ExtraArgs.begin(),
                              ExtraArgs.end());
  // As clang-tidy: without -p and without `--`, the nearest
  // compile_commands.json above each file gives its flags.
  Opts.Front.DiscoverDatabase =
      !DashDash && Opts.Front.CompileCommandsDir.empty();
  Err = commandProblem(Opts);
  Result.OK = Err.empty();
  return Result;
}

bool shortRemarks(const Options &Opts) {
  if (!Opts.Remarks.empty())
    return Opts.Remarks == "short";
  if (Opts.Front.Verbose)
    return false;
  // A build that collects whole remarks in its logs sets this once; any
  // value other than full or short (in any case) leaves the default.
  if (const char *Env = std::getenv("WARPWISE_REMARKS"))
    return !llvm::StringRef(Env).trim().equals_insensitive("full");
  return true;
}

} // namespace warpwise
