//===- AtomicFile.h - Writing a file whole or not at all --------*- C++ -*-===//
//
// Every file warpwise writes (outputs, reports, the caches of nvcc's
// results) is written this way, so that a reader, an interrupt or a second
// warpwise never sees half of it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_ATOMICFILE_H
#define WARPWISE_ATOMICFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace warpwise {

/// Writes \p Contents to \p Path through a temporary file in the same
/// directory and a rename, so \p Path is either the old file or the whole new
/// one. An existing file's permissions are kept. A path that is a device
/// or a pipe (/dev/null, /dev/stdout, a named pipe) is written to directly,
/// never replaced.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

} // namespace warpwise

#endif
