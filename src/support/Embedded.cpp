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

std::string embeddedBody(const std::string &Name) {
  const char *Contents = findEmbeddedFile(Name);
  if (!Contents)
    return "";
  llvm::StringRef Rest(Contents);
  while (Rest.starts_with("//"))
    Rest = Rest.split('\n').second;
  if (Rest.starts_with("\n"))
    Rest = Rest.drop_front();
  return Rest.str();
}
} // namespace warpwise
