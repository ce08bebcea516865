//===- Edits.cpp - Edit sets with all-or-nothing changes ------------------===//
#include "warpwise/Edits.h"

namespace warpwise {

using clang::tooling::Replacement;
using clang::tooling::Replacements;

static std::string describeRange(const Replacement &R) {
  return "offset " + std::to_string(R.getOffset()) + ", length " +
         std::to_string(R.getLength());
}

llvm::Error EditSet::add(const Change &C) {
  // Stage everything on copies so a refused change leaves the set untouched.
  std::map<std::string, Replacements> Staged;
  for (const Replacement &R : C.Edits) {
    const std::string File = R.getFilePath().str();
    auto It = Staged.find(File);
    if (It == Staged.end())
      It = Staged.emplace(File, forFile(File)).first;
    // tooling::Replacements would merge some overlapping edits into one; two
    // decisions touching the same bytes is a planning bug we want to see.
    for (const Replacement &Old : It->second) {
      unsigned OldEnd = Old.getOffset() + Old.getLength();
      unsigned NewEnd = R.getOffset() + R.getLength();
      bool Overlap = R.getOffset() < OldEnd && Old.getOffset() < NewEnd;
      bool SameInsertPoint = R.getLength() == 0 && Old.getLength() == 0 &&
                             R.getOffset() == Old.getOffset();
      if (Overlap || SameInsertPoint) {
        std::string Other = "an earlier edit of the same change";
        auto OwnerIt = Owner[File].find(Old.getOffset());
        if (OwnerIt != Owner[File].end())
          Other = "'" + OwnerIt->second + "'";
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "edit of '" + C.Description + "' at " + describeRange(R) +
                " overlaps " + Other + " at " + describeRange(Old) + " in " +
                File);
      }
    }
    if (llvm::Error E = It->second.add(R))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "edit of '" + C.Description + "' in " + File +
              " was refused: " + llvm::toString(std::move(E)));
  }
  for (auto &[File, Reps] : Staged)
    ByFile[File] = std::move(Reps);
  for (const Replacement &R : C.Edits)
    Owner[R.getFilePath().str()][R.getOffset()] = C.Description;
  Accepted.push_back(C.Description);
  return llvm::Error::success();
}

void EditSet::compose(const std::string &File, const Replacements &Next,
                      const std::vector<std::string> &Descriptions) {
  if (Next.empty())
    return;
  ByFile[File] = forFile(File).merge(Next);
  // Offsets of the earlier changes no longer name single edits.
  Owner[File].clear();
  Accepted.insert(Accepted.end(), Descriptions.begin(), Descriptions.end());
}

Replacements EditSet::forFile(const std::string &File) const {
  auto It = ByFile.find(File);
  return It == ByFile.end() ? Replacements() : It->second;
}

llvm::Expected<std::string> applyEdits(llvm::StringRef Code,
                                       const Replacements &Edits) {
  for (const Replacement &R : Edits)
    if (R.getOffset() + R.getLength() > Code.size())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "edit at " + describeRange(R) + " lies past the end of " +
              R.getFilePath().str() + " (" + std::to_string(Code.size()) +
              " bytes)");
  return clang::tooling::applyAllReplacements(Code, Edits);
}

} // namespace warpwise
