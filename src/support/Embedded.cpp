//===- Embedded.cpp - Lookup of data compiled into the binary -------------===//
#include "warpwise/Embedded.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstring>

#include "warpwise/Embedded.inc"

namespace warpwise {
const char *findEmbeddedFile(const std::string &Name) {
  for (const EmbeddedFile *F = EmbeddedFiles; F->Name; ++F)
    if (Name == F->Name)
      return F->Contents;
  return nullptr;
}

const char *embeddedFile(const std::string &Name) {
  if (const char *Contents = findEmbeddedFile(Name))
    return Contents;
  // The build embeds every file the code names (CMakeLists.txt,
  // WARPWISE_EMBEDDED): a missing one is a broken build, not an input.
  llvm::report_fatal_error(
      llvm::Twine("warpwise: internal error: no embedded file '") + Name +
      "' (the build's WARPWISE_EMBEDDED list lacks it)");
}

} // namespace warpwise
