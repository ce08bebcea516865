//===- Offload.h - OpenMP parallel loops to CUDA kernels --------*- C++ -*-===//
//
// `warpwise offload`: the OpenMP-to-GPGPU translation of seed 002 (Lee, Min
// and Eigenmann). Each offloadable `parallel for` (also `parallel` + `for`
// and `target teams distribute parallel for`) becomes a __global__ kernel
// with one thread per iteration (grid-stride beyond the grid's cap); the host
// code around it allocates device copies, moves only what the kernels read
// before writing and what the host looks at afterwards, and keeps arrays
// resident across consecutive offloaded loops. Everything that cannot be
// proven safe stays on the host, with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_H
#define WARPWISE_OFFLOAD_H

#include "warpwise/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace warpwise {

namespace diag {
/// A loop was offloaded to the GPU (remark).
constexpr const char *Offloaded = "WW5001";
/// A directive stays on the host: what it would need and why it cannot.
constexpr const char *KeptOnHost = "WW5002";
/// A clause or construct mapped or ignored, with what that means (note).
constexpr const char *OffloadNote = "WW5003";
/// Loop swap: the nest was interchanged so that consecutive threads touch
/// consecutive addresses (remark), or why it was not.
constexpr const char *LoopSwap = "WW5004";
/// The data plan of a group of offloaded loops: what is copied in, out, and
/// kept resident (remark).
constexpr const char *DataPlan = "WW5005";
/// A C input's K&R definitions, implicit ints and implicit declarations,
/// written in C++ (remark), or a call nothing declares (warning).
constexpr const char *OldC = "WW5006";
} // namespace diag

struct OffloadOptions {
  unsigned BlockSize = 256; ///< Threads per block of a 1-D loop.
  /// --fmad=false: each floating-point product of a kernel is rounded on
  /// its own (`__fmul_rn`), as the host's OpenMP build rounds it, whatever
  /// nvcc's -fmad; a loop whose products cannot be written so stays on the
  /// host.
  bool RoundProducts = false;
  /// --whole-program: every call of the file's functions is in the file,
  /// external ones' included (CallerExtents).
  bool WholeProgram = false;
  /// The input's absolute path and the clang-format style of the inserted
  /// code (--style; "" : the nearest .clang-format, else LLVM).
  std::string Path, Style;
  /// A parallel region whose loops are not all offloadable is split into
  /// one region per loop, and the split input translated instead
  /// (OffloadResult::SplitInput); off for that second translation.
  bool SplitRegions = true;
  /// For the split input: the input's lines after which the split added
  /// three lines each, so that decisions give the input's line numbers.
  std::vector<unsigned> SplitAfterLines;
};

/// One decision of the translation, located in the input.
struct OffloadDecision {
  const char *Id = diag::Offloaded;
  Severity Level = Severity::Remark;
  unsigned Line = 0, Column = 0;
  std::string Message;
  /// "offloaded", "host", "note", "swap", "data".
  std::string Kind;
  std::string Kernel; ///< The generated kernel, when there is one.
};

struct OffloadResult {
  std::string Output; ///< The CUDA text (the input when nothing changed).
  /// Output includes offload's run-time support (OffloadSupportHeaderName),
  /// which is then written beside it.
  bool IncludesSupport = false;
  std::vector<OffloadDecision> Decisions;
  unsigned Offloaded = 0, KeptOnHost = 0;
  /// An internal inconsistency (overlapping edits): nothing is rewritten.
  std::string InternalError;
  /// clang-format refused the style: the output is written unformatted.
  std::string FormatProblem;
  /// Set (and nothing else) when a parallel region must be split first:
  /// the input with those regions split, and the input's lines after which
  /// each split added its three lines. Translate SplitInput instead.
  std::string SplitInput;
  std::vector<unsigned> SplitAfterLines;
};

/// Translates the main file of \p Ctx (parsed with -fopenmp), whose bytes are
/// \p Contents. \p IsC: the input is C, so the output (C++ for nvcc) also
/// gets the casts C leaves implicit.
OffloadResult offloadOpenMP(clang::ASTContext &Ctx, llvm::StringRef Contents,
                            bool IsC, const OffloadOptions &Opts);

/// offload's run-time support (src/runtime/offload, embedded as one file):
/// the name warpwise writes it as, beside each output with an offloaded loop
/// (so that the user's build finds it with no flag), ...
extern const char *const OffloadSupportHeaderName;
/// ... the line (with its comment) an output includes it with, ...
std::string offloadSupportIncludeLine();
/// ... and its text.
const char *offloadSupportHeaderText();

struct Options;
/// The offload command: reads, parses, translates and writes (the output
/// and, beside it, the run-time support it includes); prints the decisions,
/// --diff and --report. When the output should then be rewritten in place,
/// \p ThenRewrite receives that `rewrite` command's arguments.
int runOffloadCommand(const Options &Opts,
                      std::vector<std::string> &ThenRewrite);

/// After the rewrite of the output (exit code \p RewriteRC): an output the
/// rewrite could not parse (WW1004, exit 1) is not valid CUDA, so it is
/// removed (the run-time support beside it stays: other outputs may include
/// it), and the command fails with the same code. Returns the exit code.
int finishOffloadRewrite(const Options &Opts, int RewriteRC);

} // namespace warpwise

#endif
