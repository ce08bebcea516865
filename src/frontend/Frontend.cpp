//===- Frontend.cpp - ClangTool setup for CUDA ----------------------------===//
#include "warpwise/Frontend.h"

#include "warpwise/Embedded.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace warpwise {

const char *const StubHeaderName = "warpwise_cuda_stub.h";
/// Headers a CUDA file may include that the stub already covers.
static const char *const StubbedHeaders[] = {
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
    "device_launch_parameters.h", "cuda_device_runtime_api.h"};

ASTHandler::~ASTHandler() = default;

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
  if (llvm::sys::fs::createUniqueDirectory("warpwise-stub", Dir)) {
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
  bool OK = Write(StubHeaderName, findEmbeddedFile(StubHeaderName));
  for (const char *H : StubbedHeaders)
    OK &= Write(H, "/* provided by warpwise's stub header */\n#include \"" +
                       std::string(StubHeaderName) + "\"\n");
  if (!OK)
    Log.report(diag::NoCudaToolkit, Severity::Error, "", 0, 0,
               "cannot write the stub header to " + StubDir);
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
  if (UseStub && !writeStubDirectory())
    return false;
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

/// Flags of nvcc (or of another compiler) that clang cannot take are
/// dropped: compile databases written by CMake for .cu files hold nvcc command
/// lines. Flags with a separate value (-I dir) are handled by the caller.
static bool keepJoinedUserArg(llvm::StringRef A) {
  for (const char *P : {"-I", "-D", "-U", "-isystem", "-include", "-iquote",
                        "-idirafter"})
    if (A.starts_with(P))
      return true;
  if (A.starts_with("-std=") || A.starts_with("--std="))
    return true;
  if (A.starts_with("-f") || A.starts_with("-W"))
    return !A.starts_with("-Werror") && !A.starts_with("-Wl,") &&
           !A.starts_with("-Wno-deprecated-gpu-targets");
  return A == "-w";
}

std::vector<std::string> Frontend::userArgs(const std::string &File) const {
  std::vector<std::string> Raw;
  if (Database) {
    std::vector<clang::tooling::CompileCommand> Cmds =
        Database->getCompileCommands(File);
    if (!Cmds.empty()) {
      // Drop the compiler and the file itself; keep the flags clang knows.
      const std::vector<std::string> &CL = Cmds.front().CommandLine;
      for (size_t I = 1; I < CL.size(); ++I) {
        llvm::StringRef A = CL[I];
        static const char *const WithValue[] = {"-I", "-D", "-U", "-isystem",
                                                "-include", "-iquote",
                                                "-idirafter"};
        bool Separate = false;
        for (const char *P : WithValue)
          Separate |= A == P;
        if (Separate && I + 1 < CL.size()) {
          std::string Value = CL[I + 1];
          // Relative include paths are relative to the command's directory.
          if ((A == "-I" || A == "-isystem" || A == "-iquote") &&
              !llvm::sys::path::is_absolute(Value)) {
            llvm::SmallString<256> Abs(Cmds.front().Directory);
            llvm::sys::path::append(Abs, Value);
            Value = Abs.str().str();
          }
          Raw.push_back(A.str());
          Raw.push_back(Value);
          ++I;
          continue;
        }
        if (A.starts_with("-I") && A.size() > 2 &&
            !llvm::sys::path::is_absolute(A.drop_front(2))) {
          llvm::SmallString<256> Abs(Cmds.front().Directory);
          llvm::sys::path::append(Abs, A.drop_front(2));
          Raw.push_back("-I" + Abs.str().str());
          continue;
        }
        if (keepJoinedUserArg(A))
          Raw.push_back(A.str());
      }
    } else {
      Log.report(diag::NoCompileCommand, Severity::Warning, File, 0, 0,
                 "no entry for this file in " + Opts.CompileCommandsDir +
                     "/compile_commands.json; using the flags after '--'");
    }
  }
  Raw.insert(Raw.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  return Raw;
}

std::vector<std::string> Frontend::commandLine(const std::string &File,
                                               llvm::StringRef Contents) const {
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
  std::vector<std::string> User = userArgs(File);
  Args.insert(Args.end(), User.begin(), User.end());
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
  ErrorCollector(bool Verbose)
      : Printer(llvm::errs(), DiagOpts), Verbose(Verbose) {}

  void BeginSourceFile(const clang::LangOptions &LO,
                       const clang::Preprocessor *PP) override {
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
    if (IsError && FirstError.empty()) {
      llvm::SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      FirstError = Msg.str().str();
      if (Info.hasSourceManager() && Info.getLocation().isValid()) {
        clang::PresumedLoc P =
            Info.getSourceManager().getPresumedLoc(Info.getLocation());
        if (P.isValid()) {
          FirstFile = P.getFilename();
          FirstLine = P.getLine();
          FirstColumn = P.getColumn();
        }
      }
    }
  }

  clang::DiagnosticOptions DiagOpts;
  clang::TextDiagnosticPrinter Printer;
  bool Verbose;
  bool LastWasError = false;
  unsigned Errors = 0;
  std::string FirstError, FirstFile;
  unsigned FirstLine = 0, FirstColumn = 0;
};

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
                     const std::map<std::string, std::string> &Overlays) {
  std::vector<std::string> Args = commandLine(File, Contents);
  if (effectiveMode(Contents) == ParseMode::Device &&
      Opts.Mode == ParseMode::Auto)
    Log.report(diag::DeviceOnlyParse, Severity::Remark, Display, 0, 0,
               "file uses __CUDA_ARCH__; parsed for the device "
               "(--cuda-device-only), so host code under "
               "'#ifndef __CUDA_ARCH__' is not seen");
  if (Opts.Verbose) {
    llvm::errs() << "warpwise: parsing with:";
    for (const std::string &A : Args)
      llvm::errs() << ' ' << A;
    llvm::errs() << "\n";
  }
  // The command is complete: a fixed database with exactly these arguments.
  std::vector<std::string> Flags(Args.begin() + 1, Args.end() - 1);
  clang::tooling::FixedCompilationDatabase DB(".", Flags);
  clang::tooling::ClangTool Tool(DB, {File});
  Tool.clearArgumentsAdjusters();
  // Parse exactly the bytes the driver read and will rewrite.
  Tool.mapVirtualFile(File, Contents);
  for (const auto &[Path, Text] : Overlays)
    Tool.mapVirtualFile(Path, Text);
  ErrorCollector Errors(Opts.Verbose);
  Tool.setDiagnosticConsumer(&Errors);
  Tool.setPrintErrorMessage(false); // Our WW1004 summary says it better.
  bool Called = false;
  HandlerActionFactory Factory(Handler, File, Called);
  int RC = Tool.run(&Factory);
  if (Errors.Errors > 0 || RC != 0 || !Called) {
    std::string Where = Errors.FirstFile.empty() ? File : Errors.FirstFile;
    std::string What =
        Errors.Errors
            ? std::to_string(Errors.Errors) + " compile error" +
                  (Errors.Errors == 1 ? "" : "s") + " (first: " +
                  Errors.FirstError + ")"
            : std::string("clang could not parse it");
    if (Where != File)
      What += " in " + Where;
    Log.report(diag::CompileErrors, Severity::Error, Display,
               Where == File ? Errors.FirstLine : 0,
               Where == File ? Errors.FirstColumn : 0,
               What + "; the file is not analysed or rewritten");
    return false;
  }
  return true;
}

} // namespace warpwise
