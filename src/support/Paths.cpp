//===- Paths.cpp - How warpwise spells and compares file paths ------------===//
#include "warpwise/Paths.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace warpwise {

std::string commonDirectory(llvm::ArrayRef<std::string> Paths) {
  if (Paths.empty())
    return ".";
  std::string Common = llvm::sys::path::parent_path(Paths.front()).str();
  for (const std::string &P : Paths) {
    llvm::SmallString<256> Out;
    auto IA = llvm::sys::path::begin(Common), EA = llvm::sys::path::end(Common);
    auto IB = llvm::sys::path::begin(P), EB = llvm::sys::path::end(P);
    for (; IA != EA && IB != EB && *IA == *IB; ++IA, ++IB)
      llvm::sys::path::append(Out, *IA);
    Common = Out.str().str();
  }
  return Common.empty() ? "/" : Common;
}

std::optional<std::string> pathBelow(llvm::StringRef Path,
                                     llvm::StringRef Dir) {
  if (Dir.size() > 1)
    Dir = Dir.rtrim('/');
  if (Path == Dir)
    return std::string(".");
  if (!Path.consume_front(Dir))
    return std::nullopt;
  if (!Dir.ends_with("/") && !Path.consume_front("/"))
    return std::nullopt;
  if (Path.empty())
    return std::string(".");
  return Path.str();
}

std::string normalisePath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

std::string displayPath(const std::string &Absolute) {
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd)) {
    llvm::StringRef Rel(Absolute);
    if (Rel.consume_front(Cwd) && Rel.consume_front("/") && !Rel.empty())
      return Rel.str();
  }
  return Absolute;
}

} // namespace warpwise
