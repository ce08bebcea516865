//===- Feedback.h - What nvcc makes of a candidate --------------*- C++ -*-===//
//
// The truth is in the compiled code: nvcc hoists, sinks and if-converts on its
// own, and registers decide occupancy. CompileFeedback compiles a whole
// source text for the target, and reports per kernel the registers ptxas
// assigned, the spills, and the SASS instructions, branches and predicated
// instructions cuobjdump shows. Results are cached by content.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_FEEDBACK_H
#define WARPWISE_FEEDBACK_H

#include "warpwise/Frontend.h"
#include "warpwise/SassFp.h"

#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpwise {

/// One kernel's compiled code. A template kernel compiles once per
/// instantiation: then the counts are totals, Registers and SpillBytes the
/// largest, and Instances holds each instantiation on its own.
struct KernelStats {
  std::string Mangled; ///< Of an instantiation; empty in a total.
  unsigned Registers = 0;
  unsigned SpillBytes = 0;
  /// Local memory per thread: ptxas's stack frame (arrays indexed at run
  /// time, spills, calls' frames).
  unsigned StackBytes = 0;
  /// Static shared memory per block, as ptxas allocated it.
  unsigned long SharedBytes = 0;
  unsigned Instructions = 0; ///< SASS instructions, NOPs excluded.
  unsigned Branches = 0;     ///< BRA/BRX/JMP.
  unsigned Predicated = 0;   ///< Instructions under a predicate (@P).
  std::vector<KernelStats> Instances;
  /// The compiled code, its lines naming the files compiled (the main
  /// file and edited headers by their original paths); null in a total.
  std::shared_ptr<const SassFunction> Code;
};

/// Each project header of a translation unit (normalised absolute path),
/// with the files that include it: project headers and the main file.
using IncludeGraph = std::map<std::string, std::set<std::string>>;

/// The project headers that \p Includers shows on an include path from
/// \p Main to one of \p Edited, other than those: the unedited headers
/// through which the main file reaches an edited one (main.cu includes
/// mid.cuh, which includes the edited k.cuh). Sorted.
std::vector<std::string>
headersIncludingEdited(const IncludeGraph &Includers, const std::string &Main,
                       const std::set<std::string> &Edited);

class CompileFeedback {
public:
  CompileFeedback(const CudaToolkit &Toolkit, std::vector<std::string> Flags);
  virtual ~CompileFeedback() = default;

  virtual bool available() const { return Available; }

  /// Compiles \p Source as if it were the file \p OriginalPath (its
  /// directory is searched for includes) for \p Arch ("sm_90"). Keys are the
  /// kernels' plain names (a template's instantiations are gathered under
  /// its name); std::nullopt with \p Error on failure. \p Headers maps
  /// headers' normalised absolute paths to the text to compile in their
  /// place (a candidate edit of a kernel in a project header). Decision
  /// comments are blanked first (withDecisionCommentsBlank). Without
  /// \p NeedCode the caller reads only ptxas's numbers (registers, spills,
  /// stack and shared bytes): nvdisasm does not run, and the instruction
  /// counts and code are left empty, until a request that needs them
  /// lists the compiled code (nvdisasm is about a third of a compile).
  virtual std::optional<std::map<std::string, KernelStats>>
  measure(const std::string &Source, const std::string &OriginalPath,
          const std::string &Arch, std::string &Error,
          const std::map<std::string, std::string> &Headers = {},
          bool NeedCode = true);

  /// The nvcc flags of \p OriginalPath's compile command (the default is
  /// the constructor's).
  void setFileFlags(const std::string &OriginalPath,
                    std::vector<std::string> Flags);
  /// The nvcc flags \p OriginalPath is compiled with.
  std::vector<std::string> flagsFor(const std::string &OriginalPath);

  /// Which files include each project header of \p OriginalPath's
  /// translation unit (IncludeGraph). measure() mirrors, beside an edited
  /// header, every unedited header on an include path from the main file to
  /// it, so that the edited copy is the one compiled.
  void setIncluders(const std::string &OriginalPath, IncludeGraph Includers);

  /// The project headers \p OriginalPath's translation unit reads (their
  /// normalised absolute paths). Their bytes, read here, go into every
  /// measurement key of that file: a header edited between runs must not
  /// be answered from the persistent cache with the old header's counts.
  void setHeadersRead(const std::string &OriginalPath,
                      const std::vector<std::string> &Headers);

  /// Results are also kept in \p Dir (sass-<key>.json), for later runs;
  /// empty: in memory only.
  void setCacheDir(std::string Dir);

  const std::string &cuobjdumpPath() const { return Cuobjdump; }
  const std::string &nvdisasmPath() const { return Nvdisasm; }
  /// Why available() is false: which tool is missing and where it was
  /// looked for.
  const std::string &unavailableReason() const { return Missing; }
  /// Turns measurements off on request (rewrite --no-ptxas): available()
  /// is false from here on, and \p Why is the reason decisions give.
  void disable(std::string Why) {
    Available = false;
    Missing = std::move(Why);
  }

private:
  const CudaToolkit &Toolkit;
  std::vector<std::string> Flags;
  std::map<std::string, std::vector<std::string>> FileFlags;
  std::map<std::string, IncludeGraph> FileIncluders;
  /// Per main file: a digest of its project headers' paths and bytes.
  std::map<std::string, std::string> HeadersReadDigest;
  std::string Cuobjdump, Nvdisasm;
  bool Available = false;
  std::string Missing;
  std::string CacheDir;
  std::mutex Mutex; ///< Cache and FileFlags: files may be processed in parallel.
  std::map<std::string, std::map<std::string, KernelStats>> Cache;
  /// The texts nvcc rejected, with its first error.
  std::map<std::string, std::string> Rejections;
  /// A compile measured without its listing (measure()'s NeedCode false):
  /// ptxas's numbers, and what nvdisasm needs to list the code if a later
  /// request reads it. Cubin is empty where the persistent cache answered
  /// (that request compiles again).
  struct Unlisted {
    std::map<std::string, KernelStats> Stats;
    std::string Cubin;    ///< The compiled cubin's bytes.
    std::string PtxasOut; ///< nvcc's report (-Xptxas -v).
    /// The candidate copies' paths, with the files they copy.
    std::map<std::string, std::string> Originals;
  };
  std::map<std::string, Unlisted> UnlistedCompiles;
  /// A compile's result, or its error; Listed: with the code.
  struct Answer {
    std::optional<std::map<std::string, KernelStats>> Stats;
    std::string Error;
    bool Listed = true;
  };
  /// The keys being compiled (or listed) now, with the answer their
  /// requests wait for.
  std::map<std::string, std::shared_future<Answer>> InFlight;

  /// measure() past the in-memory cache: the persistent cache, else nvcc
  /// and, with \p NeedCode, nvdisasm (without it, \p Kept is what a later
  /// listing needs). \p Rejected: nvcc rejected the text (an answer that
  /// holds for the same text, unlike a tool that could not run).
  std::optional<std::map<std::string, KernelStats>>
  measureUncached(const std::string &Key, const std::string &Source,
                  const std::string &OriginalPath, const std::string &Arch,
                  const std::vector<std::string> &UseFlags,
                  const std::map<std::string, std::string> &Headers,
                  const std::vector<std::string> &Between, bool NeedCode,
                  std::string &Error, bool &Rejected,
                  std::optional<Unlisted> &Kept);
  /// The code of the compile \p U kept for \p Key: nvdisasm on its cubin,
  /// and the counts a compile with its listing gives.
  std::optional<std::map<std::string, KernelStats>>
  listUnlisted(const std::string &Key, const std::string &OriginalPath,
               const Unlisted &U, std::string &Error);
  /// nvdisasm's listing of \p Cubin, each instruction with its source line.
  bool listCubin(const std::string &Cubin, std::string &SassOut,
                 std::string &Error) const;
  /// The counts of a compile from its listing \p SassOut (the candidate's
  /// copies named by \p Originals mapped back), written to the persistent
  /// cache with the listing.
  std::map<std::string, KernelStats>
  statsOfListing(const std::string &Key, const std::string &OriginalPath,
                 const std::string &PtxasOut, const std::string &SassOut,
                 const std::map<std::string, std::string> &Originals) const;
};

/// A CUDA binary tool (nvcc, cuobjdump, nvdisasm): the toolkit's, the one
/// on PATH, then the copies installed beside warpwise
/// (<bin>/../libexec/warpwise) or fetched beside its build
/// (<bin>/../tools/bin). Empty when none is found; \p Looked lists the places
/// tried.
std::string findCudaTool(const CudaToolkit &Toolkit, const char *Name,
                         std::string *Looked = nullptr);

/// Why \p F cannot measure (null: parsing with the stub header).
std::string feedbackUnavailable(const CompileFeedback *F);

/// `nvcc -x cu` for an input that does not end in .cu (a .cuh, or a .cpp
/// parsed with --assume-cuda): nvcc decides the language by the extension.
bool needsExplicitCudaLanguage(llvm::StringRef Path);

/// The compiled instances of a kernel: its instantiations, or itself.
std::vector<KernelStats> compiledInstances(const KernelStats &S);

/// The instance in \p Candidates compiled from the same instantiation as
/// \p Of (same mangled name), or nullptr.
const KernelStats *sameInstance(const std::vector<KernelStats> &Candidates,
                                const KernelStats &Of);

/// `bitonic_tiles<64u>` for `_Z13bitonic_tilesILj64EEvPi`.
std::string instanceName(const std::string &Mangled);

/// Counts a function's instructions, branches and predicated instructions.
KernelStats statsOfCode(const SassFunction &F);

/// \p Text with each comment warpwise writes that stands alone on its line
/// (a decision's comment, `// warpwise WW4001 meld.k.1: ...`, or the mark a
/// candidate carries in its place) reduced to `// warpwise`: what
/// CompileFeedback compiles and keys its caches by. Such a comment changes
/// no instruction and no line, so an applied decision is answered by the
/// measurement of its candidate.
std::string withDecisionCommentsBlank(llvm::StringRef Text);

} // namespace warpwise

#endif
