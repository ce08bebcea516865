//===- Format.cpp - clang-format for the code warpwise inserts ------------===//
#include "warpwise/Format.h"

#include "clang/Format/Format.h"

namespace warpwise {

llvm::Error checkStyle(const std::string &Style) {
  if (Style.empty() || Style == "file")
    return llvm::Error::success();
  auto S = clang::format::getStyle(Style, "warpwise.cu", "LLVM");
  if (!S)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--style: " +
                                       llvm::toString(S.takeError()));
  return llvm::Error::success();
}

llvm::Expected<clang::tooling::Replacements>
formatEdits(const clang::tooling::Replacements &Edits, llvm::StringRef Original,
            llvm::StringRef Path, const std::string &Style) {
  if (Edits.empty())
    return Edits;
  // clang-format picks the language by the name: a .cuh, or a file parsed
  // with --assume-cuda, is C++ to it as well.
  std::string Named = Path.ends_with(".cu") ? Path.str() : (Path + ".cu").str();
  auto S = clang::format::getStyle(Style.empty() ? "file" : Style, Named,
                                   "LLVM", Original);
  if (!S)
    return S.takeError();
  return clang::format::formatReplacements(Original, Edits, *S);
}

} // namespace warpwise
