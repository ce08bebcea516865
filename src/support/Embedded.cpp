//===- Embedded.cpp - Lookup of data compiled into the binary -------------===//
#include "warpwise/Embedded.h"

#include <cstring>

#include "warpwise/Embedded.inc"

namespace warpwise {
const char *findEmbeddedFile(const std::string &Name) {
  for (const EmbeddedFile *F = EmbeddedFiles; F->Name; ++F)
    if (Name == F->Name)
      return F->Contents;
  return nullptr;
}
} // namespace warpwise
