//===- Ptxas.h - Real register counts from nvcc/ptxas -----------*- C++ -*-===//
//
// The register estimate is a proxy; ptxas knows. When a toolkit is present the
// file is compiled for the target (or, for architectures nvcc no longer
// supports, the oldest it does) with -Xptxas -v, and the counts are attached
// to the kernels. Results are cached by a hash of everything that affects
// them, so repeated runs cost nothing.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_PTXAS_H
#define WARPWISE_PTXAS_H

#include "warpwise/Analysis.h"
#include "warpwise/Diagnostics.h"
#include "warpwise/Frontend.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SHA256.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpwise {

/// Parses `-Xptxas -v` output: mangled entry name -> resources.
std::map<std::string, PtxasInfo> parsePtxasOutput(llvm::StringRef Output);

/// --cache-dir, else $XDG_CACHE_HOME/warpwise, else ~/.cache/warpwise
/// (empty: no persistent cache).
std::string cacheDirectory(const std::string &Given);

/// The plain function name of a mangled kernel ("_Z1tILi3EEvPf" -> "t").
std::string kernelBaseName(llvm::StringRef Mangled);

/// Adds to \p Hash each of \p Files, spelt by \p Spell, and its bytes
/// ("<unreadable>" when it cannot be read): what a compile cache keys on
/// for the project headers a translation unit reads (analyze's ptxas
/// cache, rewrite's measurements).
void hashFilesRead(llvm::SHA256 &Hash, const std::vector<std::string> &Files,
                   llvm::function_ref<std::string(llvm::StringRef)> Spell);

class PtxasRunner {
public:
  PtxasRunner(const CudaToolkit &Toolkit, std::string CacheDir,
              DiagnosticLog &Log);

  /// Compiles \p AbsPath (whose bytes are \p Contents) with the nvcc
  /// \p Flags of its compile command and fills in KernelInfo::Ptxas for
  /// every kernel of \p A it can match. The persistent cache is keyed on
  /// the bytes of every file in \p FilesRead (the project headers the
  /// translation unit read) as well.
  void annotate(const std::string &Display, llvm::StringRef Contents,
                const std::string &AbsPath,
                const std::vector<std::string> &Flags,
                const std::vector<std::string> &FilesRead,
                const ArchLimits &Arch, FileAnalysis &A);

  /// Runs nvcc for \p Arch ("sm_90") on \p AbsPath; the raw ptxas output or
  /// std::nullopt with \p Error set.
  std::optional<std::string> compile(const std::string &AbsPath,
                                     const std::string &Arch,
                                     const std::vector<std::string> &Flags,
                                     std::string &Error) const;

  /// Oldest architecture the toolkit's nvcc accepts; sm_75 for CUDA 13.
  static std::string nvccArchFor(const ArchLimits &Arch);

private:
  const CudaToolkit &Toolkit;
  std::string CacheDir;
  DiagnosticLog &Log;
};

} // namespace warpwise

#endif
