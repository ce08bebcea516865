//===- Frontend.h - One Clang parse per CUDA file ---------------*- C++ -*-===//
//
// Builds the clang command line for a CUDA file (always -x cuda, exactly one of
// --cuda-host-only/--cuda-device-only, one --cuda-gpu-arch), finds the CUDA
// toolkit or falls back to our stub header, and hands the AST of every file that
// parsed without errors to an ASTHandler. Files with errors are reported and
// never reach the handler, so they can never be rewritten.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_FRONTEND_H
#define WARPWISE_FRONTEND_H

#include "warpwise/CompileFlags.h"
#include "warpwise/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clang {
class SourceManager;
class ASTContext;
namespace tooling {
class CompilationDatabase;
}
} // namespace clang
namespace llvm {
class raw_ostream;
}

namespace warpwise {

struct CudaToolkit {
  bool Found = false;
  std::string Path;
  std::string Version;     ///< "13.0", from include/cuda.h.
  std::string FoundVia;    ///< "--cuda-path", "CUDA_PATH", "/usr/local/cuda", "PATH".
  std::string Problem;     ///< Why the explicit or environment path was refused.
};

/// Looks for a toolkit: \p Explicit (from --cuda-path) alone when given,
/// otherwise $CUDA_PATH, /usr/local/cuda, then the nvcc on $PATH.
CudaToolkit findCudaToolkit(const std::string &Explicit);

enum class ParseMode { Auto, Host, Device };

struct FrontendOptions {
  std::string Arch = "sm_90"; ///< Target architecture asked for by the user.
  /// offload: parse the input as C or C++ (by its extension) with -fopenmp,
  /// not as CUDA.
  bool OpenMPHost = false;
  std::string CudaPath;       ///< --cuda-path.
  bool StubHeaders = false;   ///< --stub-cuda: never use the toolkit's headers.
  bool AllowStubFallback = true; ///< false with --no-stub-cuda.
  ParseMode Mode = ParseMode::Auto;
  std::string ResourceDir;        ///< Override for clang's resource directory.
  std::string CompileCommandsDir; ///< -p.
  std::vector<std::string> ExtraArgs; ///< After `--` and --extra-arg.
  std::vector<std::string> ExtraArgsBefore; ///< --extra-arg-before.
  /// Without -p and without `--`, look for compile_commands.json in the
  /// file's directory and its parents.
  bool DiscoverDatabase = false;
  bool Verbose = false;
  /// --color: clang's own diagnostics (a file that does not compile) are
  /// coloured as warpwise's are.
  bool Colors = false;
};

/// Receives the AST of each file that parsed without errors.
class ASTHandler {
public:
  virtual ~ASTHandler();
  virtual void handleTranslationUnit(clang::ASTContext &Ctx,
                                     const std::string &File) = 0;
};

class Frontend {
public:
  Frontend(FrontendOptions Opts, DiagnosticLog &Log);
  ~Frontend();

  /// Finds the toolkit and the compilation database. Returns false (with a
  /// diagnostic) when neither the toolkit nor the stub may be used.
  bool initialize();

  /// Parses \p File, whose bytes are \p Contents (read once by the driver, so
  /// the edits are computed against exactly the bytes that are rewritten).
  /// Returns false when the file has errors; the handler is then not called.
  /// Diagnostics name the file as \p Display (the user's spelling).
  /// \p Overlays maps headers' absolute paths to the text parsed in their
  /// place (the rewrite's later passes parse its rewritten headers).
  /// Reports go to \p Log, not the frontend's: files parsed in parallel
  /// (-j) each have their own log, replayed in input order.
  bool parse(const std::string &File, const std::string &Display,
             llvm::StringRef Contents, ASTHandler &Handler, DiagnosticLog &Log,
             const std::map<std::string, std::string> &Overlays = {}) const;

  /// The full clang command line used for \p File, for -v and for tests.
  std::vector<std::string> commandLine(const std::string &File,
                                       llvm::StringRef Contents) const;

  void printConfiguration(llvm::raw_ostream &OS) const;

  /// The compile command of \p File (database entry, then `--` flags),
  /// translated for clang and for warpwise's nvcc runs. Computed once.
  TranslatedFlags compileFlags(const std::string &File) const;

  const CudaToolkit &toolkit() const { return Toolkit; }
  bool usingStubHeaders() const { return UseStub; }
  std::string resourceDir() const;
  /// The architecture clang parses for (clang knows no G80..Maxwell targets).
  std::string parseArch() const;

private:
  ParseMode effectiveMode(llvm::StringRef Contents) const;
  bool writeStubDirectory();

  FrontendOptions Opts;
  DiagnosticLog &Log;
  CudaToolkit Toolkit;
  bool UseStub = false;
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// Temporary directory with warpwise's parsing headers: the cache-hint
  /// declarations, and with UseStub the stub headers.
  std::string StubDir;
  /// offload: a directory with a declarations-only omp.h, searched after
  /// every other (-idirafter), for machines whose clang has none.
  std::string OmpStubDir;
  mutable std::mutex FlagsMutex;
  mutable std::map<std::string, TranslatedFlags> FlagsCache;
};

/// The files other than the main file that a translation unit read and that
/// are not system headers (the project's headers), absolute and without
/// `..`, sorted: what a depfile lists and what cached results depend on.
std::vector<std::string> projectFilesRead(const clang::SourceManager &SM);

/// Clang's first error in a file it rejects.
struct FirstCompileError {
  std::string Message; ///< Clang's text.
  std::string File;    ///< The file it is in, as clang names it.
  unsigned Line = 0, Column = 0;
  bool InSystemHeader = false;
  bool InMainFile = false;
  /// The source from the start of the statement the error is in (after the
  /// last `;`, `{` or `}`) up to the error.
  std::string Statement;
  /// Where the error's "previous definition is here" note points (a
  /// redefinition's other half); empty when it has none.
  std::string PreviousFile;
  unsigned PreviousLine = 0;
  bool PreviousInMainFile = false;
  /// The other half is in clang's own headers or warpwise's stand-ins.
  bool PreviousInToolHeader = false;
};

/// What usually causes \p E and what fixes it, for the end of WW1004: the
/// build's flags where they can help, else why they cannot (code nvcc
/// accepts and clang does not, or code \p Toolkit's nvcc rejects too).
/// \p Toolkit is null for a C or C++ file (offload's input).
std::string compileErrorAdvice(const FirstCompileError &E,
                               const CudaToolkit *Toolkit);

/// \p Contents with launch chevrons written with spaces (`k << < g, b >> >
/// (args)`, which nvcc reads as `<<<` and `>>>` and clang does not) closed
/// up, the spaces moved after them so that every offset and line stays
/// where it was; \p Contents itself when it has none.
std::string closeSpacedLaunchChevrons(llvm::StringRef Contents);

/// File name of the stub header (embedded, written out in stub mode).
extern const char *const StubHeaderName;

/// Compute capability number from "sm_90" (90), or 0 when malformed.
unsigned parseSmArch(llvm::StringRef Arch);

} // namespace warpwise

#endif
