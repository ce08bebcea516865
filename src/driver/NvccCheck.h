//===- NvccCheck.h - The rewrite compiles, or its culprits go -*- C++ -*-===//
//
// Before a rewrite is written, clang (when no pass parsed its final text)
// and nvcc compile it; where one fails, the changes responsible are found
// pass by pass and dropped (WW1012).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_NVCCCHECK_H
#define WARPWISE_DRIVER_NVCCCHECK_H

#include "Session.h"

#include "warpwise/Diagnostics.h"
#include "warpwise/Feedback.h"
#include "warpwise/Frontend.h"
#include "warpwise/Occupancy.h"

#include "llvm/ADT/StringRef.h"

#include <functional>

namespace warpwise::driver {

/// The text of each file a rewrite changes: the main file's, and the
/// edited headers' by normalised absolute path.
struct RewriteTexts {
  std::string Main;
  std::map<std::string, std::string> Headers;
};

/// Whether a rewrite compiles: std::nullopt when it does, else what the
/// compiler said.
using CompileCheck =
    std::function<std::optional<std::string>(const RewriteTexts &)>;

/// What the frontend's compile-error diagnostic (WW1004) in \p Log says the
/// compiler found, without its advice about the build's flags: that advice
/// is for the user's own code, not for warpwise's rewrite of it.
std::optional<std::string> compileErrorIn(const DiagnosticLog &Log);

/// The rewrite compiled by clang, as warpwise parses the file.
CompileCheck clangCheck(const Frontend &Front, const InputFile &F);

/// The rewrite of \p F fails \p Check (with \p Error): drops the changes
/// responsible. They are in the latest pass whose starting text passes the
/// check: each of its changes is tried alone on that text, those that fail
/// are dropped and the others kept if together they pass (else the whole
/// pass goes, the changes breaking it together); the later passes, decided
/// on the failing text, go too. Each dropped change is reported as WW1012
/// and its decision no longer counts as applied. False when even the
/// original files fail the check: nothing is warpwise's to drop.
bool dropBrokenChanges(InputFile &F, const CompileCheck &Check,
                       llvm::StringRef Compiler, const std::string &Error,
                       DiagnosticLog &Log);

/// Before the rewrite of \p F is written: clang compiles it when no pass
/// parsed its final text (\p Parsed false: the passes ran out), and nvcc
/// when \p Feedback can run (clang accepting code is not nvcc accepting
/// it). Where one fails, the changes responsible are dropped (WW1012); the
/// text the search leaves is one the compiler accepted.
void checkRewriteCompiles(InputFile &F, bool Parsed, const Frontend &Front,
                          CompileFeedback *Feedback, const ArchLimits &Arch,
                          bool Verbose, DiagnosticLog &Log);

} // namespace warpwise::driver

#endif
