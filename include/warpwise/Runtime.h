//===- Runtime.h - warpwise's run-time support beside outputs ---*- C++ -*-===//
//
// Rewritten programs call code of warpwise's at run time (the compact split's
// list pool, the adaptive split's dispatch): real CUDA headers under
// src/runtime/warpwise, embedded into the binary as one file. A rewritten
// file that needs them includes that file with one line,
// `#include "warpwise_runtime.cuh"`, and warpwise writes the file beside
// every output that includes it, so that the user's build finds it with no
// flag. warpwise's own parses and nvcc runs of such a text see the same file
// beside it (addRuntimeHeader).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_RUNTIME_H
#define WARPWISE_RUNTIME_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>

namespace warpwise {

/// The run-time support's file name, beside the files that include it.
extern const char *const RuntimeHeaderName;

/// The line (with its newline) that a rewritten file includes it with.
std::string runtimeIncludeLine();

/// Whether \p Text includes the run-time support (a line
/// `#include "warpwise_runtime.cuh"`).
bool includesRuntimeHeader(llvm::StringRef Text);

/// The run-time support's text as warpwise writes it: the embedded headers
/// with the policy of rules/split.json.
const std::string &runtimeHeaderText();

/// The path of the run-time support beside \p File.
std::string runtimeHeaderBeside(llvm::StringRef File);

/// When \p Text, the text of \p File, includes the run-time support: adds
/// it beside \p File to \p Files (path -> text), where a parse or an nvcc
/// run of \p Text finds it. Returns whether it did.
bool addRuntimeHeader(llvm::StringRef File, llvm::StringRef Text,
                      std::map<std::string, std::string> &Files);

} // namespace warpwise

#endif
