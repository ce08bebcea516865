//===- Embedded.h - Data files compiled into the binary ---------*- C++ -*-===//
//
// The rule tables, the CUDA stub header and warpwise's runtime travel inside
// the executable so that a copied or installed warpwise needs no data
// directory.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_EMBEDDED_H
#define WARPWISE_EMBEDDED_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>

namespace warpwise {

struct EmbeddedFile {
  const char *Name;
  const char *Contents;
};

/// Null-terminated table generated from cmake/Embed.cmake.
extern const EmbeddedFile EmbeddedFiles[];

/// Contents of the embedded file \p Name, or nullptr.
const char *findEmbeddedFile(const std::string &Name);

/// Contents of the embedded file \p Name, which the build must embed: a
/// missing one is an internal error (the process stops with a message).
const char *embeddedFile(const std::string &Name);

// warpwise's runtime: the code rewritten programs call at run time (the
// compact split's list pool, the adaptive split's dispatch), real CUDA
// headers under src/runtime/warpwise, embedded as one self-contained file
// (cmake/AmalgamateRuntime.cmake). A rewritten file that needs it includes
// it with one line, and warpwise writes it beside every output that does,
// so that the user's build finds it with no flag. warpwise's own parses and
// nvcc runs of such a text find it beside the text (withRuntimeHeader).

/// The runtime's file name, beside the files that include it.
extern const char *const RuntimeHeaderName;

/// The line, and the blank line after it, that a rewritten file includes
/// the runtime with; its comment names the diagnostic of the transformation
/// that needs it (\p Id).
std::string runtimeIncludeLine(const char *Id = "WW4003");

/// Whether \p Text includes the runtime (a line `#include
/// "warpwise_runtime.cuh"`).
bool includesRuntimeHeader(llvm::StringRef Text);

/// The runtime's text as warpwise writes it: the embedded headers, with
/// the adaptive split's policy of rules/split.json.
const std::string &runtimeHeaderText();

/// The API version a run-time support's \p Text declares with `#define
/// <Macro> N` (WARPWISE_RUNTIME_API, WARPWISE_OFFLOAD_API); 0 for none. A
/// header beside an output that declares a later API than the one this
/// warpwise embeds is left in place: outputs of the later warpwise beside it
/// may use names this one lacks, and the later API keeps this one's names.
unsigned declaredRuntimeApi(llvm::StringRef Text, llvm::StringRef Macro);

/// The path of the runtime beside \p File.
std::string runtimeHeaderBeside(llvm::StringRef File);

/// \p Headers (path -> text, the files a parse or an nvcc run of \p Text,
/// the text of \p File, sees in place of those on disk) with the runtime
/// beside \p File and beside each of \p Headers whose text includes it.
std::map<std::string, std::string>
withRuntimeHeader(llvm::StringRef File, llvm::StringRef Text,
                  const std::map<std::string, std::string> &Headers);

} // namespace warpwise

#endif
