//===- SessionInputs.cpp - The run's options, settings and inputs ---------===//
//
// The first stage of a session: the command line, the configuration files
// under it, the target architecture, the transformations each input gets,
// and the inputs read once each.
//
//===----------------------------------------------------------------------===//
#include "SessionInputs.h"

#include "warpwise/Cli.h"
#include "warpwise/Driver.h"
#include "warpwise/Format.h"
#include "warpwise/TempFiles.h"

#include "clang/Basic/Version.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

namespace warpwise::driver {

namespace {

/// The diagnostic of \p Text, a message that names its place first, as
/// an llvm::SMDiagnostic or the configuration reader writes it:
/// "FILE:LINE:COL: message" or "FILE: message", FILE being \p File.
Diagnostic locatedDiagnostic(const char *Id, Severity Level,
                             const std::string &File,
                             const std::string &Text) {
  Diagnostic D{Id, Level, "", 0, 0, Text};
  llvm::StringRef Rest(Text);
  if (File.empty() || !Rest.consume_front(File))
    return D;
  D.File = File;
  // ":LINE:COL: " or ": ".
  llvm::StringRef After = Rest;
  unsigned Line = 0, Column = 0;
  if (After.consume_front(":") && !After.consumeInteger(10, Line) &&
      After.consume_front(":") && !After.consumeInteger(10, Column) &&
      After.consume_front(": ")) {
    D.Line = Line;
    D.Column = Column;
    D.Message = After.str();
  } else if (Rest.consume_front(": ")) {
    D.Message = Rest.str();
  }
  return D;
}

} // namespace

namespace {

int usageError(const std::string &Message) { return printUsageError(Message); }

bool looksBinary(llvm::StringRef S) {
  if (S.contains('\0'))
    return true;
  // Control characters other than whitespace are rare in source; many of
  // them mean an object file, an image or an archive.
  size_t Control = 0;
  for (char C : S.take_front(8192)) {
    unsigned char U = C;
    if (U < 32 && C != '\n' && C != '\r' && C != '\t' && C != '\f' && C != '\v')
      ++Control;
  }
  return Control > 8;
}

/// Reads and checks one input; reports WW1001..WW1003.
void readInput(InputFile &F, bool AssumeCuda, DiagnosticLog &Log) {
  F.Absolute = SourceScope::normalise(F.Given);
  if (llvm::sys::fs::is_directory(F.Given)) {
    Log.report(diag::CannotRead, Severity::Error, F.Given, 0, 0,
               "is a directory, not a CUDA source file");
    return;
  }
  auto Buf = llvm::MemoryBuffer::getFile(F.Given, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) {
    Log.report(diag::CannotRead, Severity::Error, F.Given, 0, 0,
               "cannot read file: " + Buf.getError().message());
    return;
  }
  F.Contents = (*Buf)->getBuffer().str();
  llvm::StringRef Ext = llvm::sys::path::extension(F.Given);
  if (looksBinary(F.Contents)) {
    Log.report(diag::BinaryInput, Severity::Error, F.Given, 0, 0,
               "is a binary file, not CUDA source; it is left untouched");
    return;
  }
  if (!AssumeCuda && Ext != ".cu" && Ext != ".cuh") {
    Log.report(diag::NotCuda, Severity::Error, F.Given, 0, 0,
               "is not a CUDA source file (expected .cu or .cuh; pass "
               "--assume-cuda to parse it as CUDA)");
    return;
  }
  F.Readable = true;
}

/// Whether a database entry compiles its file as CUDA: a .cu file, or a
/// command that says `-x cu` (nvcc, CMake's LANGUAGE CUDA) or `-x cuda`
/// (clang).
bool compiledAsCuda(const clang::tooling::CompileCommand &C) {
  if (llvm::sys::path::extension(C.Filename) == ".cu")
    return true;
  const std::vector<std::string> &Args = C.CommandLine;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    llvm::StringRef Lang;
    if ((A == "-x" || A == "--x") && I + 1 < Args.size())
      Lang = Args[I + 1];
    else if (A.starts_with("--x=") || A.starts_with("-x="))
      Lang = A.split('=').second;
    else if (A.starts_with("-x") && A.size() > 2 && !A.starts_with("-x="))
      Lang = A.drop_front(2);
    if (Lang == "cu" || Lang == "cuda")
      return true;
  }
  return false;
}

/// -p DIR without files, as run-clang-tidy does: the CUDA files of
/// DIR/compile_commands.json, in its order, each once; below the current
/// directory as relative paths. \p NotCu: one of them is not a .cu file
/// (the database compiles it as CUDA).
std::optional<std::string> databaseFiles(const std::string &Dir,
                                         std::vector<std::string> &Files,
                                         bool &NotCu) {
  std::string Error;
  auto DB = clang::tooling::CompilationDatabase::loadFromDirectory(Dir, Error);
  if (!DB) {
    // One line: clang lists each kind of database it tried on its own.
    std::replace(Error.begin(), Error.end(), '\n', ' ');
    return "cannot load compile_commands.json from " + Dir + ": " +
           llvm::StringRef(Error).trim().str();
  }
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  std::set<std::string> Seen;
  for (const clang::tooling::CompileCommand &C : DB->getAllCompileCommands()) {
    if (!compiledAsCuda(C))
      continue;
    llvm::SmallString<256> Path(C.Filename);
    if (!llvm::sys::path::is_absolute(Path)) {
      Path = C.Directory;
      llvm::sys::path::append(Path, C.Filename);
    }
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    if (!Seen.insert(Path.str().str()).second)
      continue;
    llvm::StringRef Shown = Path;
    if (Shown.starts_with(Cwd) && Shown.size() > Cwd.size() &&
        llvm::sys::path::is_separator(Shown[Cwd.size()]))
      Shown = Shown.drop_front(Cwd.size() + 1);
    NotCu |= llvm::sys::path::extension(Shown) != ".cu";
    Files.push_back(Shown.str());
  }
  if (Files.empty())
    return Dir + "/compile_commands.json has no CUDA file (.cu, or compiled "
                 "with -x cu or -x cuda)";
  return std::nullopt;
}

} // namespace

std::optional<int> readCommandLine(const std::vector<std::string> &Args,
                                   Options &Opts) {
  ParseOutcome Parsed = parseCommandLine(Args, Opts);
  applyColorChoice(Opts);
  if (!Parsed.OK)
    return usageError(Parsed.Error);
  if (Opts.Files.empty() && !Opts.DumpConfig &&
      !Opts.Front.CompileCommandsDir.empty() &&
      (Opts.Cmd == Command::Analyze || Opts.Cmd == Command::Rewrite)) {
    // -p alone: the database's CUDA files, read as if given before `--`
    // (the usage checks then see them: -o takes one file).
    std::vector<std::string> Files;
    bool NotCu = false;
    std::string Dir = Opts.Front.CompileCommandsDir;
    if (auto Problem = databaseFiles(Dir, Files, NotCu)) {
      llvm::errs() << "warpwise: error: " << *Problem << " ["
                   << diag::NoCompileCommand << "]\n";
      return ExitInputProblem;
    }
    std::vector<std::string> WithFiles(Args.begin(), Args.end());
    auto DashDash = std::find(WithFiles.begin(), WithFiles.end(), "--");
    if (NotCu && !Opts.AssumeCuda)
      Files.insert(Files.begin(), "--assume-cuda");
    WithFiles.insert(DashDash, Files.begin(), Files.end());
    Opts = Options();
    Parsed = parseCommandLine(WithFiles, Opts);
    applyColorChoice(Opts);
    if (!Parsed.OK)
      return usageError(Parsed.Error + " (the files of " + Dir +
                        "/compile_commands.json)");
  }
  if (std::optional<int> RC = runInfoCommand(Opts))
    return *RC;
  if (Opts.Cmd == Command::Version) {
    llvm::outs() << "warpwise " << WARPWISE_VERSION << " (built with "
                 << clang::getClangFullVersion() << ")\n";
    return ExitOK;
  }
  return std::nullopt;
}

std::optional<int> readConfigurations(Session &Run) {
  Options &Opts = Run.Opts;
  std::map<std::string, ProjectConfig> &Configs = Run.Configs;
  std::vector<std::string> &ConfigOf = Run.ConfigOf;
  // .warpwise.yaml: --config-file for every input, else the nearest one
  // above each input. Read once each; the command line wins over them.
  if (Opts.Cmd == Command::Analyze || Opts.Cmd == Command::Rewrite) {
    std::vector<std::string> Places = Opts.Files;
    if (Places.empty())
      Places.push_back("."); // --dump-config alone: the current directory.
    for (const std::string &Given : Places) {
      std::string Path = Opts.ConfigFile;
      if (Path.empty()) {
        llvm::SmallString<256> Abs(Given);
        llvm::sys::fs::make_absolute(Abs);
        Path = findConfig(llvm::sys::fs::is_directory(Abs)
                              ? Abs.str()
                              : llvm::sys::path::parent_path(Abs));
      }
      ConfigOf.push_back(Path);
      if (Path.empty() || Configs.count(Path))
        continue;
      auto C = readConfig(Path);
      if (!C) {
        // In the compiler's form: the file, line and column first.
        DiagnosticLog::print(llvm::errs(),
                             locatedDiagnostic(diag::BadConfig, Severity::Error,
                                               Path,
                                               llvm::toString(C.takeError())),
                             Opts.Front.Colors);
        return ExitInputProblem;
      }
      Configs[Path] = std::move(*C);
    }
  }
  if (!Opts.ArchGiven) {
    std::set<std::string> Asked;
    for (const auto &[Path, C] : Configs)
      if (C.Arch)
        Asked.insert(*C.Arch);
    if (Asked.size() > 1)
      return usageError("the inputs' configuration files ask for different "
                        "architectures (" +
                        *Asked.begin() + ", " + *std::next(Asked.begin()) +
                        "); give --arch");
    if (Asked.size() == 1) {
      Opts.Front.Arch = *Asked.begin();
      if (parseSmArch(Opts.Front.Arch) == 0)
        return usageError("Arch in the configuration file must look like "
                          "sm_90, not '" +
                          Opts.Front.Arch + "'");
    }
  }

  if (llvm::Error E = checkStyle(Opts.Style))
    return usageError(llvm::toString(std::move(E)));
  return std::nullopt;
}

std::optional<int> chooseArch(Session &Run) {
  const Options &Opts = Run.Opts;
  auto Table = ArchTable::load(Opts.RulesPath);
  if (!Table) {
    llvm::errs() << "warpwise: error: " << llvm::toString(Table.takeError())
                 << "\n";
    return ExitInputProblem;
  }
  Run.Table = std::move(*Table);
  Run.Arch = Run.Table->find(Opts.Front.Arch);
  Run.ArchSource = Opts.ArchGiven ? "--arch" : "default";
  for (const auto &[Path, C] : Run.Configs)
    if (C.Arch && !Opts.ArchGiven)
      Run.ArchSource = "configuration";
  if (!Run.Arch) {
    std::string Known;
    for (const ArchLimits &A : Run.Table->all())
      Known += (Known.empty() ? "" : ", ") + A.smName();
    return usageError("unknown architecture '" + Opts.Front.Arch +
                      "' (known: " + Known + ")");
  }
  return std::nullopt;
}

std::optional<int> chooseSettings(Session &Run) {
  const Options &Opts = Run.Opts;
  std::map<std::string, FileSettings> &Settings = Run.Settings;
  std::map<std::string, ProjectConfig> &Configs = Run.Configs;
  const std::vector<std::string> &ConfigOf = Run.ConfigOf;
  std::vector<std::string> &Transforms = Run.Transforms;
  Transforms = defaultTransforms();
  if (Opts.TransformsGiven) {
    std::vector<std::string> Chosen;
    for (const std::string &T : Opts.Transforms) {
      if (T == "none")
        continue;
      if (!createTransform(T)) {
        std::string Known;
        for (const std::string &A : availableTransforms())
          Known += (Known.empty() ? "" : ", ") + A;
        return usageError("unknown transformation '" + T + "' (available: " +
                          (Known.empty() ? std::string("none yet") : Known) +
                          ")");
      }
      Chosen.push_back(T);
    }
    // Registry order: an outer meld claims its range before fusion looks.
    Transforms.clear();
    for (const std::string &T : availableTransforms())
      if (std::find(Chosen.begin(), Chosen.end(), T) != Chosen.end())
        Transforms.push_back(T);
  }
  // Each configuration's settings under the command line's.
  for (const std::string &Path : ConfigOf) {
    if (Settings.count(Path))
      continue;
    const ProjectConfig *C = Path.empty() ? nullptr : &Configs[Path];
    FileSettings S;
    S.ConfigPath = Path;
    S.Transforms = Transforms;
    if (C && C->Transforms && !Opts.TransformsGiven) {
      S.Transforms.clear();
      for (const std::string &T : availableTransforms())
        if (llvm::is_contained(*C->Transforms, T))
          S.Transforms.push_back(T);
    }
    // --measured-dispatch adds the dispatch to whatever else runs; it runs
    // last (registry order), around what the others rewrote.
    // --no-measured-dispatch takes it out of the default set or a list.
    if (Opts.MeasuredDispatch == Options::DispatchChoice::Add &&
        !S.Transforms.empty() && !llvm::is_contained(S.Transforms, "dispatch"))
      S.Transforms.push_back("dispatch");
    if (Opts.MeasuredDispatch == Options::DispatchChoice::Remove)
      llvm::erase(S.Transforms, "dispatch");
    S.MeldForm =
        C && C->MeldForm && !Opts.MeldFormGiven ? *C->MeldForm : Opts.MeldForm;
    S.SplitForm = C && C->SplitForm && Opts.SplitForm.empty() ? *C->SplitForm
                                                              : Opts.SplitForm;
    if (C) {
      S.Kernels = C->Kernels;
      S.DiagSuppress = C->DiagSuppress;
    }
    auto T = CostTable::load(Opts.CostsPath, C ? C->Costs : "");
    if (!T) {
      // A bad --costs file is the command line's; a bad Costs entry the
      // configuration file's.
      std::string Why = llvm::toString(T.takeError());
      if (Path.empty())
        llvm::errs() << "warpwise: error: " << Why << "\n";
      else
        DiagnosticLog::print(llvm::errs(),
                             Diagnostic{diag::BadConfig, Severity::Error, Path,
                                        0, 0, Why},
                             Opts.Front.Colors);
      return ExitInputProblem;
    }
    S.Costs = *T;
    Settings[Path] = std::move(S);
  }
  return std::nullopt;
}

int dumpConfig(Session &Run) {
  const Options &Opts = Run.Opts;
  const std::vector<std::string> &ConfigOf = Run.ConfigOf;
  std::map<std::string, FileSettings> &Settings = Run.Settings;
  std::map<std::string, ProjectConfig> &Configs = Run.Configs;
  const std::string &Path = ConfigOf.front();
  const FileSettings &S = Settings[Path];
  ProjectConfig E;
  E.Transforms = S.Transforms;
  E.Arch = Opts.Front.Arch;
  E.MeldForm = S.MeldForm;
  if (!S.SplitForm.empty())
    E.SplitForm = S.SplitForm;
  E.Kernels = S.Kernels;
  E.DiagSuppress = Opts.DiagSuppress;
  for (const std::string &Id : S.DiagSuppress)
    if (!llvm::is_contained(E.DiagSuppress, Id))
      E.DiagSuppress.push_back(Id);
  if (!Path.empty())
    E.Costs = Configs[Path].Costs;
  llvm::outs() << "# warpwise settings for "
               << (Opts.Files.empty() ? std::string("the current directory")
                                      : Opts.Files.front())
               << ": "
               << (Path.empty() ? std::string("no .warpwise.yaml found, "
                                              "defaults")
                                : "from " + Path)
               << " under the command line\n"
               << configToYaml(E);
  return ExitOK;
}

void openLog(Session &Run) {
  const Options &Opts = Run.Opts;
  DiagnosticLog &Log = Run.Log;
  Log.setEcho(&llvm::errs());
  Log.setEchoStyle(Opts.Quiet, Opts.Front.Colors, shortRemarks(Opts));
  Log.silence(Opts.DiagSuppress);
  if (Opts.SaveTemps)
    keepTemporaries();
  // Each transformation runs under a CrashRecoveryContext (FileProcessor).
  llvm::CrashRecoveryContext::Enable();
}

void readInputs(Session &Run) {
  const Options &Opts = Run.Opts;
  std::vector<InputFile> &Inputs = Run.Inputs;
  std::map<std::string, FileSettings> &Settings = Run.Settings;
  const std::vector<std::string> &ConfigOf = Run.ConfigOf;
  DiagnosticLog &Log = Run.Log;
  Inputs.resize(Opts.Files.size());
  for (size_t I = 0; I < Opts.Files.size(); ++I) {
    Inputs[I].Given = Opts.Files[I];
    Inputs[I].Settings = &Settings[ConfigOf[I]];
    Log.silenceFor(Inputs[I].Given, Inputs[I].Settings->DiagSuppress);
    readInput(Inputs[I], Opts.AssumeCuda, Log);
  }
}

} // namespace warpwise::driver
