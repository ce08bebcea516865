//===- Frontend.cpp - ClangTool setup for CUDA ----------------------------===//
#include "warpwise/Frontend.h"

#include "warpwise/Embedded.h"
#include "warpwise/TempFiles.h"
#include "warpwise/Paths.h"
#include "warpwise/CompileFlags.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace warpwise {

const char *const StubHeaderName = "warpwise_cuda_stub.h";
/// Declarations nvcc has and Clang's CUDA headers lack, for every CUDA parse.
static const char *const HintsHeaderName = "warpwise_cuda_hints.h";
/// Headers a CUDA file may include that the stub already covers.
static const char *const StubbedHeaders[] = {
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
    "device_launch_parameters.h", "cuda_device_runtime_api.h"};

ASTHandler::~ASTHandler() = default;

std::vector<std::string> projectFilesRead(const clang::SourceManager &SM) {
  std::set<std::string> Files;
  clang::FileID Main = SM.getMainFileID();
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const clang::SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
    if (!E.isFile())
      continue;
    const clang::SrcMgr::FileInfo &FI = E.getFile();
    if (clang::SrcMgr::isSystem(FI.getFileCharacteristic()))
      continue;
    clang::OptionalFileEntryRef Entry = FI.getContentCache().OrigEntry;
    if (!Entry || SM.getFileEntryRefForID(Main) == Entry)
      continue;
    llvm::SmallString<256> Path(Entry->getName());
    llvm::sys::fs::make_absolute(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    // clang's predefines and command-line buffers are not files.
    if (!llvm::sys::fs::exists(Path))
      continue;
    Files.insert(Path.str().str());
  }
  return std::vector<std::string>(Files.begin(), Files.end());
}

unsigned parseSmArch(llvm::StringRef Arch) {
  if (!Arch.consume_front("sm_") && !Arch.consume_front("compute_"))
    return 0;
  // Accept family and feature suffixes such as sm_90a or sm_100f.
  Arch = Arch.take_while([](char C) { return C >= '0' && C <= '9'; });
  unsigned N = 0;
  if (Arch.empty() || Arch.getAsInteger(10, N))
    return 0;
  return N;
}

static bool isToolkitDir(const std::string &Dir) {
  llvm::SmallString<256> Header(Dir);
  llvm::sys::path::append(Header, "include", "cuda_runtime.h");
  return llvm::sys::fs::exists(Header);
}

/// Reads "#define CUDA_VERSION 13000" from include/cuda.h.
static std::string toolkitVersion(const std::string &Dir) {
  llvm::SmallString<256> Header(Dir);
  llvm::sys::path::append(Header, "include", "cuda.h");
  auto Buf = llvm::MemoryBuffer::getFile(Header);
  if (!Buf)
    return "unknown";
  llvm::StringRef Text = (*Buf)->getBuffer();
  size_t Pos = Text.find("#define CUDA_VERSION ");
  if (Pos == llvm::StringRef::npos)
    return "unknown";
  llvm::StringRef Num =
      Text.substr(Pos + strlen("#define CUDA_VERSION ")).ltrim();
  Num = Num.take_while([](char C) { return C >= '0' && C <= '9'; });
  unsigned V = 0;
  if (Num.getAsInteger(10, V))
    return "unknown";
  return std::to_string(V / 1000) + "." + std::to_string((V % 1000) / 10);
}

CudaToolkit findCudaToolkit(const std::string &Explicit) {
  CudaToolkit T;
  auto Accept = [&](const std::string &Dir, const char *Via) {
    T.Found = true;
    T.Path = Dir;
    T.FoundVia = Via;
    T.Version = toolkitVersion(Dir);
    return T;
  };
  if (!Explicit.empty()) {
    if (isToolkitDir(Explicit))
      return Accept(Explicit, "--cuda-path");
    T.Problem = "--cuda-path '" + Explicit +
                "' is not a CUDA toolkit (no include/cuda_runtime.h)";
    return T;
  }
  if (const char *Env = std::getenv("CUDA_PATH"); Env && *Env) {
    if (isToolkitDir(Env))
      return Accept(Env, "CUDA_PATH");
    T.Problem = std::string("CUDA_PATH '") + Env +
                "' is not a CUDA toolkit (no include/cuda_runtime.h)";
    return T;
  }
  if (isToolkitDir("/usr/local/cuda"))
    return Accept("/usr/local/cuda", "/usr/local/cuda");
  if (auto Nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(*Nvcc, Real))
      Real = *Nvcc;
    std::string Dir =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real)).str();
    if (isToolkitDir(Dir))
      return Accept(Dir, "PATH");
  }
  T.Problem = "no CUDA toolkit found (looked at CUDA_PATH, /usr/local/cuda "
              "and the nvcc on PATH)";
  return T;
}

Frontend::Frontend(FrontendOptions O, DiagnosticLog &L)
    : Opts(std::move(O)), Log(L) {}
Frontend::~Frontend() {
  if (!StubDir.empty())
    llvm::sys::fs::remove_directories(StubDir);
}

bool Frontend::writeStubDirectory() {
  // Real files, not virtual ones: clang drops include directories that do
  // not exist on disk, and the stub's directory must come before any system
  // directory that holds the toolkit's own cuda_runtime.h.
  llvm::SmallString<128> Dir;
  if (createTemporaryDirectory("stub", Dir)) {
    Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
               "cannot create a temporary directory for the stub header");
    return false;
  }
  StubDir = Dir.str().str();
  auto Write = [&](const std::string &Name, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(StubDir + "/" + Name, EC);
    if (!EC)
      OS << Text;
    return !EC;
  };
  // The hints header goes with the toolkit's headers as with the stub.
  bool OK = Write(HintsHeaderName, findEmbeddedFile(HintsHeaderName));
  if (UseStub) {
    OK &= Write(StubHeaderName, findEmbeddedFile(StubHeaderName));
    for (const char *H : StubbedHeaders)
      OK &= Write(H, "/* provided by warpwise's stub header */\n#include \"" +
                         std::string(StubHeaderName) + "\"\n");
  }
  if (!OK)
    Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
               "cannot write warpwise's parsing headers to " + StubDir);
  return OK;
}

bool Frontend::initialize() {
  if (Opts.StubHeaders) {
    UseStub = true;
  } else {
    Toolkit = findCudaToolkit(Opts.CudaPath);
    if (!Toolkit.Found) {
      if (!Opts.AllowStubFallback) {
        Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
                   Toolkit.Problem +
                       "; pass --cuda-path=DIR, or drop --no-stub-cuda to "
                       "parse with warpwise's stub header");
        return false;
      }
      UseStub = true;
      // An explicitly named toolkit that is missing deserves a warning; an
      // unconfigured machine only a remark.
      Log.report(diag::UsingStubHeaders,
                 Opts.CudaPath.empty() ? Severity::Remark : Severity::Warning,
                 "", 0, 0,
                 Toolkit.Problem + "; parsing with warpwise's stub header "
                                   "(ptxas feedback is unavailable)");
    }
  }
  if (!Opts.OpenMPHost && !writeStubDirectory())
    return false;
  {
    // Debian's clang ships no omp.h (libomp-dev does); the OpenMP runtime's
    // declarations are all a parse needs. A CUDA file's host code includes
    // it too (nvcc finds the host compiler's).
    llvm::SmallString<128> Dir;
    if (!createTemporaryDirectory("omp", Dir)) {
      std::error_code EC;
      llvm::raw_fd_ostream OS((Dir + "/omp.h").str(), EC);
      if (!EC) {
        OS << embeddedFile("warpwise_omp_stub.h");
        OmpStubDir = Dir.str().str();
      }
    }
  }
  if (!Opts.CompileCommandsDir.empty()) {
    std::string Error;
    Database = clang::tooling::CompilationDatabase::loadFromDirectory(
        Opts.CompileCommandsDir, Error);
    if (!Database) {
      Log.report(diag::NoCompileCommand, Severity::Error,
                 Opts.CompileCommandsDir, 0, 0,
                 "cannot load compile_commands.json: " + Error);
      return false;
    }
  }
  return true;
}

std::string Frontend::resourceDir() const {
  if (!Opts.ResourceDir.empty())
    return Opts.ResourceDir;
  if (const char *Env = std::getenv("WARPWISE_RESOURCE_DIR"); Env && *Env)
    return Env;
  return WARPWISE_CLANG_RESOURCE_DIR;
}

std::string Frontend::parseArch() const {
  // Clang 22 parses for sm_50 and newer; older targets (G80..Kepler) exist only
  // in our occupancy model, and their source parses the same way.
  unsigned N = parseSmArch(Opts.Arch);
  if (N < 75)
    return "sm_75";
  return Opts.Arch;
}

ParseMode Frontend::effectiveMode(llvm::StringRef Contents) const {
  if (Opts.Mode != ParseMode::Auto)
    return Opts.Mode;
  // Host-only sees the launches. Code under __CUDA_ARCH__ exists only in the
  // device view, so a file that uses the macro is parsed for the device.
  return Contents.contains("__CUDA_ARCH__") ? ParseMode::Device
                                            : ParseMode::Host;
}

TranslatedFlags Frontend::compileFlags(const std::string &File) const {
  {
    std::lock_guard<std::mutex> Lock(FlagsMutex);
    auto It = FlagsCache.find(File);
    if (It != FlagsCache.end())
      return It->second;
  }
  TranslatedFlags Out;
  auto Append = [&Out](TranslatedFlags T) {
    Out.Clang.insert(Out.Clang.end(), T.Clang.begin(), T.Clang.end());
    Out.Nvcc.insert(Out.Nvcc.end(), T.Nvcc.begin(), T.Nvcc.end());
    Out.Dropped.insert(Out.Dropped.end(), T.Dropped.begin(), T.Dropped.end());
    Out.Problems.insert(Out.Problems.end(), T.Problems.begin(),
                        T.Problems.end());
    for (const std::string &A : T.Arches)
      if (!llvm::is_contained(Out.Arches, A))
        Out.Arches.push_back(A);
  };
  const FlagTable &Table = builtinFlagTable();
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  if (!Opts.ExtraArgsBefore.empty())
    Append(translateCompileFlags(Table, Opts.ExtraArgsBefore, Cwd));
  clang::tooling::CompilationDatabase *DB = Database.get();
  std::string DBName = Opts.CompileCommandsDir;
  std::unique_ptr<clang::tooling::CompilationDatabase> Found;
  if (!DB && Opts.DiscoverDatabase) {
    // Like clang-tidy without -p: the nearest compile_commands.json in the
    // file's directory or a parent. Only an entry for this very file is
    // used; a guess from a neighbour (clang's inference) would carry another
    // project's flags into this one.
    for (llvm::StringRef Dir = llvm::sys::path::parent_path(File);
         !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir)) {
      llvm::SmallString<256> Json(Dir);
      llvm::sys::path::append(Json, "compile_commands.json");
      if (!llvm::sys::fs::exists(Json))
        continue;
      std::string Error;
      Found = clang::tooling::JSONCompilationDatabase::loadFromFile(
          Json, Error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      if (Found) {
        DB = Found.get();
        DBName = Dir.str();
      }
      break;
    }
  }
  if (DB) {
    std::vector<clang::tooling::CompileCommand> Cmds;
    {
      std::lock_guard<std::mutex> Lock(FlagsMutex);
      Cmds = DB->getCompileCommands(File);
    }
    if (!Cmds.empty()) {
      const clang::tooling::CompileCommand &C = Cmds.front();
      Append(translateCompileFlags(Table, commandOptions(C.CommandLine),
                                   C.Directory));
      Out.Source = DBName + "/compile_commands.json";
      if (!C.Heuristic.empty())
        Out.Source += " (no entry for this file; " + C.Heuristic + ")";
    } else if (!Found) {
      Out.Warning = "no entry for this file in " + Opts.CompileCommandsDir +
                    "/compile_commands.json; using the flags after '--'";
    }
  }
  if (!Opts.ExtraArgs.empty())
    Append(translateCompileFlags(Table, Opts.ExtraArgs, Cwd));
  std::lock_guard<std::mutex> Lock(FlagsMutex);
  FlagsCache[File] = Out;
  return Out;
}

std::vector<std::string> Frontend::commandLine(const std::string &File,
                                               llvm::StringRef Contents) const {
  if (Opts.OpenMPHost) {
    // An OpenMP program for the CPU: C or C++ by its extension.
    llvm::StringRef Ext = llvm::sys::path::extension(File);
    bool C = Ext == ".c";
    std::vector<std::string> Args = {C ? "clang" : "clang++", "-x",
                                     C ? "c" : "c++", "-fopenmp",
                                     "-resource-dir", resourceDir()};
    // C89's implicit declarations and implicit int, which gcc before 14
    // accepts with a warning and clang 16 and later reject: old C parses
    // as its compiler takes it, and offload writes them in C++ (OldC.h).
    if (C)
      Args.insert(Args.end(), {"-Wno-error=implicit-function-declaration",
                               "-Wno-error=implicit-int"});
    else // `"%"FMT` in pre-C++11 code, which g++ only warns about.
      Args.push_back("-Wno-error=reserved-user-defined-literal");
    TranslatedFlags User = compileFlags(File);
    Args.insert(Args.end(), User.Clang.begin(), User.Clang.end());
    if (!OmpStubDir.empty()) {
      Args.push_back("-idirafter");
      Args.push_back(OmpStubDir);
    }
    Args.push_back("-fsyntax-only");
    Args.push_back(File);
    return Args;
  }
  std::vector<std::string> Args = {"clang++", "-x", "cuda"};
  Args.push_back(effectiveMode(Contents) == ParseMode::Device
                     ? "--cuda-device-only"
                     : "--cuda-host-only");
  Args.push_back("--cuda-gpu-arch=" + parseArch());
  Args.push_back("-Wno-unknown-cuda-version");
  Args.push_back("-resource-dir");
  Args.push_back(resourceDir());
  if (UseStub) {
    Args.insert(Args.end(), {"-nocudainc", "-nocudalib", "-isystem", StubDir,
                             "-include", StubDir + "/" + StubHeaderName});
  } else {
    Args.push_back("--cuda-path=" + Toolkit.Path);
    // nvcc adds CCCL's directory silently; without it cuda/std/... is missing.
    llvm::SmallString<256> Cccl(Toolkit.Path);
    llvm::sys::path::append(Cccl, "include", "cccl");
    if (llvm::sys::fs::is_directory(Cccl)) {
      Args.push_back("-isystem");
      Args.push_back(Cccl.str().str());
    }
  }
  // After Clang's CUDA wrapper (which the driver -includes first), so that
  // the vector types it declares are there. Found through -isystem, it is a
  // system header: never one of the project's (a depfile's).
  if (!UseStub)
    Args.insert(Args.end(), {"-isystem", StubDir});
  Args.insert(Args.end(), {"-include", HintsHeaderName});
  // nvcc's host compiler warns about a narrowing conversion in braces
  // (`int a[] = {x / 2.0}`) where clang stops; the parse is the same. So
  // it does about a string literal followed by a macro with no space
  // (`"%"FMT`, pre-C++11 code), which clang then reads as gcc does.
  Args.insert(Args.end(), {"-Wno-c++11-narrowing",
                           "-Wno-error=reserved-user-defined-literal"});
  TranslatedFlags User = compileFlags(File);
  Args.insert(Args.end(), User.Clang.begin(), User.Clang.end());
  if (!OmpStubDir.empty()) {
    Args.push_back("-idirafter");
    Args.push_back(OmpStubDir);
  }
  Args.push_back("-fsyntax-only");
  Args.push_back(File);
  return Args;
}

void Frontend::printConfiguration(llvm::raw_ostream &OS) const {
  OS << "warpwise: clang resource dir: " << resourceDir() << "\n";
  if (UseStub)
    OS << "warpwise: CUDA: stub header (no toolkit used)\n";
  else
    OS << "warpwise: CUDA: " << Toolkit.Path << " (version " << Toolkit.Version
       << ", found via " << Toolkit.FoundVia << ")\n";
  OS << "warpwise: target arch: " << Opts.Arch << " (parsed as " << parseArch()
     << ")\n";
}

namespace {
/// Forwards errors (and the notes attached to them) to a clang-style printer
/// and remembers the first error for warpwise's own summary diagnostic.
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  ErrorCollector(bool Verbose, bool Colors, std::string ResourceDir)
      : Stream(Printed), Printer(Stream, DiagOpts), Verbose(Verbose),
        ResourceDir(std::move(ResourceDir)) {
    // --color: clang's messages are coloured as warpwise's are; the
    // string they are printed to goes to standard error as it is.
    DiagOpts.ShowColors = Colors;
    Stream.enable_colors(Colors);
  }

  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override {
    Lang = &LO;
    Printer.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { Printer.EndSourceFile(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    bool IsError = Level >= clang::DiagnosticsEngine::Error;
    if (IsError)
      ++Errors;
    if (IsError || Verbose ||
        (Level == clang::DiagnosticsEngine::Note && LastWasError))
      Printer.HandleDiagnostic(Level, Info);
    if (Level != clang::DiagnosticsEngine::Note)
      LastWasError = IsError;
    if (IsError && Lang && Info.hasSourceManager() &&
        Info.getLocation().isValid())
      noteHeaderMacros(Info.getSourceManager(), Info.getLocation());
    if (IsError && First.Message.empty()) {
      llvm::SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      First.Message = Msg.str().str();
      if (Info.hasSourceManager() && Info.getLocation().isValid())
        locate(Info.getSourceManager(), Info.getLocation());
    } else if (Level == clang::DiagnosticsEngine::Note && Errors == 1 &&
               LastWasError && First.PreviousFile.empty() &&
               Info.hasSourceManager() && Info.getLocation().isValid()) {
      llvm::SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      if (Msg.str().starts_with("previous definition") ||
          Msg.str().starts_with("previous declaration"))
        locatePrevious(Info.getSourceManager(), Info.getLocation());
    }
  }

  /// The other half of a first error that redefines a name.
  void locatePrevious(const clang::SourceManager &SM,
                      clang::SourceLocation Loc) {
    clang::PresumedLoc P = SM.getPresumedLoc(Loc);
    if (!P.isValid())
      return;
    First.PreviousFile = P.getFilename();
    First.PreviousLine = P.getLine();
    First.PreviousInMainFile = SM.isInMainFile(SM.getExpansionLoc(Loc));
    // Clang's own CUDA headers and warpwise's stand-ins are not headers the
    // file includes, nor ones nvcc reads.
    llvm::StringRef Name = llvm::sys::path::filename(First.PreviousFile);
    First.PreviousInToolHeader =
        Name == StubHeaderName || Name == HintsHeaderName ||
        Name == "warpwise_omp_stub.h" ||
        (!ResourceDir.empty() &&
         llvm::StringRef(First.PreviousFile).starts_with(ResourceDir));
  }

  /// The macros an error in a system header came through (a command-line
  /// `-DN=4096` expanding in cuda.h's `size_t N`).
  void noteHeaderMacros(const clang::SourceManager &SM,
                        clang::SourceLocation Loc) {
    if (!SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      return;
    for (; Loc.isMacroID(); Loc = SM.getImmediateMacroCallerLoc(Loc))
      HeaderErrorMacros.insert(
          clang::Lexer::getImmediateMacroName(Loc, SM, *Lang).str());
  }

  /// Where the first error is, and the statement it is in.
  void locate(const clang::SourceManager &SM, clang::SourceLocation Loc) {
    clang::PresumedLoc P = SM.getPresumedLoc(Loc);
    if (P.isValid()) {
      First.File = P.getFilename();
      First.Line = P.getLine();
      First.Column = P.getColumn();
    }
    clang::SourceLocation E = SM.getExpansionLoc(Loc);
    First.InSystemHeader = SM.isInSystemHeader(E);
    First.InMainFile = SM.isInMainFile(E);
    bool Invalid = false;
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(E), &Invalid);
    if (Invalid)
      return;
    First.Statement =
        statementBefore(Buffer.substr(0, SM.getFileOffset(E))).str();
  }

  /// The end of \p Before from its last `;`, `{` or `}` outside comments and
  /// literals (an asm string holds `;`), within its last few lines.
  static llvm::StringRef statementBefore(llvm::StringRef Before) {
    llvm::StringRef Window = Before.take_back(4096);
    if (Window.size() < Before.size())
      Window = Window.drop_until([](char C) { return C == '\n'; });
    size_t Start = 0;
    char Quote = 0;
    for (size_t I = 0; I < Window.size(); ++I) {
      char C = Window[I];
      if (Quote) {
        if (C == '\\')
          ++I;
        else if (C == Quote || C == '\n')
          Quote = 0;
      } else if (C == '"' || C == '\'') {
        Quote = C;
      } else if (Window.substr(I).starts_with("//")) {
        I = std::min(Window.find('\n', I), Window.size());
      } else if (Window.substr(I).starts_with("/*")) {
        size_t End = Window.find("*/", I + 2);
        I = End == llvm::StringRef::npos ? Window.size() : End + 1;
      } else if (C == ';' || C == '{' || C == '}') {
        Start = I + 1;
      }
    }
    return Window.substr(Start);
  }

  /// clang's messages, printed by the caller through the file's log.
  std::string Printed;
  llvm::raw_string_ostream Stream;
  clang::DiagnosticOptions DiagOpts;
  clang::TextDiagnosticPrinter Printer;
  bool Verbose;
  bool LastWasError = false;
  unsigned Errors = 0;
  FirstCompileError First;
  std::string ResourceDir;
  const clang::LangOptions *Lang = nullptr;
  std::set<std::string> HeaderErrorMacros;
};

/// The definition a -D option at \p K of \p Args gives (`N=4096` of
/// `-DN=4096` or `-D N=4096`), or "".
std::string definitionAt(const std::vector<std::string> &Args, size_t K) {
  llvm::StringRef A = Args[K];
  if (A == "-D")
    return K + 1 < Args.size() ? Args[K + 1] : "";
  return A.starts_with("-D") ? A.substr(2).str() : "";
}

/// The macro name of a -D definition (`F` of `F(x)=x`).
std::string macroName(const std::string &Def) {
  return Def.substr(0, Def.find_first_of("=("));
}

/// \p Args with the -D options of \p Names taken out and, where the first
/// was, `-include Header`, whose text (\p Text) defines them: after
/// clang's CUDA wrapper, which the driver includes first.
std::vector<std::string> deferMacros(const std::vector<std::string> &Args,
                                     const std::set<std::string> &Names,
                                     const std::string &Header,
                                     std::string &Text) {
  std::vector<std::string> Out;
  bool Placed = false;
  for (size_t K = 0; K < Args.size(); ++K) {
    std::string Def = definitionAt(Args, K);
    if (Def.empty() || !Names.count(macroName(Def))) {
      Out.push_back(Args[K]);
      continue;
    }
    size_t Eq = Def.find('=');
    Text += "#define " +
            (Eq == std::string::npos
                 ? Def + " 1"
                 : Def.substr(0, Eq) + " " + Def.substr(Eq + 1)) +
            "\n";
    if (!Placed)
      Out.insert(Out.end(), {"-include", Header});
    Placed = true;
    K += Args[K] == "-D";
  }
  return Out;
}

/// The names of the -D options of \p Args among \p Suspects.
std::set<std::string> definedAmong(const std::vector<std::string> &Args,
                                   const std::set<std::string> &Suspects) {
  std::set<std::string> Names;
  for (size_t K = 0; K < Args.size(); ++K) {
    std::string Name = macroName(definitionAt(Args, K));
    if (!Name.empty() && Suspects.count(Name))
      Names.insert(Name);
  }
  return Names;
}

class HandlerConsumer : public clang::ASTConsumer {
public:
  HandlerConsumer(ASTHandler &H, std::string File, bool &Called)
      : Handler(H), File(std::move(File)), Called(Called) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred())
      return;
    Called = true;
    Handler.handleTranslationUnit(Ctx, File);
  }

private:
  ASTHandler &Handler;
  std::string File;
  bool &Called;
};

class HandlerAction : public clang::ASTFrontendAction {
public:
  HandlerAction(ASTHandler &H, std::string File, bool &Called)
      : Handler(H), File(std::move(File)), Called(Called) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<HandlerConsumer>(Handler, File, Called);
  }
  bool BeginInvocation(clang::CompilerInstance &CI) override {
    // "1 warning generated when compiling for host." without the warning
    // (which is shown only with -v) says nothing; with -j it would also
    // land in another file's output.
    CI.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
    return true;
  }

private:
  ASTHandler &Handler;
  std::string File;
  bool &Called;
};

class HandlerActionFactory : public clang::tooling::FrontendActionFactory {
public:
  HandlerActionFactory(ASTHandler &H, std::string File, bool &Called)
      : Handler(H), File(std::move(File)), Called(Called) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<HandlerAction>(Handler, File, Called);
  }

private:
  ASTHandler &Handler;
  std::string File;
  bool &Called;
};
} // namespace

bool Frontend::parse(const std::string &File, const std::string &Display,
                     llvm::StringRef Contents, ASTHandler &Handler,
                     DiagnosticLog &Log,
                     const std::map<std::string, std::string> &Overlays) const {
  TranslatedFlags Flags = compileFlags(File);
  if (!Flags.Warning.empty())
    Log.report(diag::NoCompileCommand, Severity::Warning, Display, 0, 0,
               Flags.Warning);
  if (!Flags.Problems.empty()) {
    Log.report(diag::NoCompileCommand, Severity::Error, Display, 0, 0,
               Flags.Problems.front() +
                   "; the flags in it would be lost, so the file is not "
                   "analysed or rewritten");
    return false;
  }
  std::vector<std::string> Args = commandLine(File, Contents);
  if (effectiveMode(Contents) == ParseMode::Device &&
      Opts.Mode == ParseMode::Auto)
    Log.report(diag::DeviceOnlyParse, Severity::Remark, Display, 0, 0,
               "file uses __CUDA_ARCH__; parsed for the device "
               "(--cuda-device-only), so host code under "
               "'#ifndef __CUDA_ARCH__' is not seen");
  if (Opts.Verbose) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    if (!Flags.Source.empty())
      OS << "warpwise: " << Display << ": compile command from "
         << Flags.Source << "\n";
    for (const DroppedFlag &D : Flags.Dropped)
      OS << "warpwise: " << Display << ": dropped '" << D.Flag
         << "': " << D.Reason << "\n";
    OS << "warpwise: parsing with:";
    for (const std::string &A : Args)
      OS << ' ' << A;
    OS << "\nwarpwise: nvcc runs add:";
    for (const std::string &A : Flags.Nvcc)
      OS << ' ' << A;
    OS << "\n";
    Log.raw(std::move(Text));
  }
  // Parse exactly the bytes the driver read and will rewrite, with spaced
  // launch chevrons closed up (nvcc reads them; every offset stays).
  std::string Parsed = closeSpacedLaunchChevrons(Contents);
  // Mapped paths and texts are kept by reference: they outlive the runs.
  llvm::SmallString<256> Redirect;
  std::string CudaHRedirect;
  if (!UseStub && !Opts.OpenMPHost) {
    // Clang's CUDA wrapper includes "cuda.h" for CUDA_VERSION, which the
    // include path can resolve to a project header of that name (nvcc's
    // headers never include it). The wrapper's own directory is searched
    // first: there, "cuda.h" is the toolkit's.
    Redirect = resourceDir();
    llvm::sys::path::append(Redirect, "include", "cuda.h");
    llvm::SmallString<256> Real(Toolkit.Path);
    llvm::sys::path::append(Real, "include", "cuda.h");
    CudaHRedirect = "#include \"" + Real.str().str() + "\"\n";
  }
  // A rewritten text that includes warpwise's runtime finds it beside
  // itself, as the output will.
  std::map<std::string, std::string> Mapped =
      withRuntimeHeader(File, Contents, Overlays);
  bool Called = false;
  auto Run = [&](const std::vector<std::string> &A, ErrorCollector &Errors) {
    // The command is complete: a fixed database with exactly these
    // arguments.
    std::vector<std::string> ToolFlags(A.begin() + 1, A.end() - 1);
    clang::tooling::FixedCompilationDatabase DB(".", ToolFlags);
    clang::tooling::ClangTool Tool(DB, {File});
    Tool.clearArgumentsAdjusters();
    Tool.mapVirtualFile(File, Parsed);
    if (!CudaHRedirect.empty())
      Tool.mapVirtualFile(Redirect, CudaHRedirect);
    for (const auto &[Path, Text] : Mapped)
      Tool.mapVirtualFile(Path, Text);
    Tool.setDiagnosticConsumer(&Errors);
    Tool.setPrintErrorMessage(false); // Our WW1004 summary says it better.
    HandlerActionFactory Factory(Handler, File, Called);
    int RC = Tool.run(&Factory);
    Errors.Stream.flush();
    return RC;
  };
  auto Errors = std::make_unique<ErrorCollector>(Opts.Verbose, Opts.Colors,
                                                 resourceDir());
  int RC = Run(Args, *Errors);
  // A -D of the build that breaks clang's CUDA headers (cuda.h names a
  // parameter N; nvcc's headers do not include it): parse again with it
  // defined after them, as the program sees it.
  std::set<std::string> Clashing =
      Opts.OpenMPHost || Called || !Errors->First.InSystemHeader
          ? std::set<std::string>()
          : definedAmong(Args, Errors->HeaderErrorMacros);
  if (!Clashing.empty()) {
    std::string Header = StubDir + "/warpwise_command_line_macros.h";
    std::string &Text = Mapped[Header];
    std::vector<std::string> Deferred =
        deferMacros(Args, Clashing, Header, Text);
    Errors = std::make_unique<ErrorCollector>(Opts.Verbose, Opts.Colors,
                                              resourceDir());
    RC = Run(Deferred, *Errors);
    std::string Names;
    for (const std::string &N : Clashing)
      Names += (Names.empty() ? "'" : ", '") + N + "'";
    Log.report(diag::DeferredMacros, Severity::Remark, Display, 0, 0,
               std::string(Clashing.size() > 1 ? "the command-line macros "
                                               : "the command-line macro ") +
                   Names + (Clashing.size() > 1 ? " break" : " breaks") +
                   " clang's CUDA headers, which nvcc does not read: "
                   "warpwise's parse defines " +
                   (Clashing.size() > 1 ? "them" : "it") +
                   " after those headers; nvcc's runs get the flags as given");
  }
  // Clang names the files by the paths it was given (absolute); the user's
  // spelling, as warpwise's own diagnostics have it.
  Log.raw(respellPaths(Errors->Printed, File, Display));
  if (Errors->Errors > 0 || RC != 0 || !Called) {
    const FirstCompileError &First = Errors->First;
    std::string Where = First.File.empty() ? File : First.File;
    std::string What = Errors->Errors
                           ? std::to_string(Errors->Errors) + " compile error" +
                                 (Errors->Errors == 1 ? "" : "s") +
                                 " (first: " + First.Message + ")"
                           : std::string("clang could not parse it");
    if (Where != File)
      What += " in " + displayPath(Where);
    std::string Fix =
        compileErrorAdvice(First, Opts.OpenMPHost ? nullptr : &Toolkit);
    Log.report(diag::CompileErrors, Severity::Error, Display,
               Where == File ? First.Line : 0,
               Where == File ? First.Column : 0,
               What + "; the file is not analysed or rewritten (" + Fix + ")");
    return false;
  }
  return true;
}

} // namespace warpwise
