//===- Embedded.h - Data files compiled into the binary ---------*- C++ -*-===//
//
// The rule tables and the CUDA stub header travel inside the executable so
// that a copied or installed warpwise needs no data directory.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_EMBEDDED_H
#define WARPWISE_EMBEDDED_H

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

} // namespace warpwise

#endif
