//===- SourceScope.cpp - Which files warpwise analyses and rewrites -------===//
#include "warpwise/SourceScope.h"

#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace warpwise {

using namespace clang;

SourceScope::SourceScope(const SourceManager &SM,
                         const std::string &HeaderFilter)
    : SM(SM) {
  // An empty filter is clang-tidy's "no headers"; `^$` matches no absolute
  // path either, so both leave the scope at the main file.
  if (HeaderFilter.empty())
    return;
  auto R = std::make_unique<llvm::Regex>(HeaderFilter);
  std::string Error;
  if (R->isValid(Error))
    Filter = std::move(R);
}

std::string SourceScope::normalise(llvm::StringRef Path) {
  return normalisePath(Path);
}

std::string SourceScope::displayPath(const std::string &Absolute) {
  return warpwise::displayPath(Absolute);
}

bool SourceScope::containsFile(FileID FID) const {
  if (FID.isInvalid())
    return false;
  if (FID == SM.getMainFileID())
    return true;
  auto Hit = InScope.find(FID);
  if (Hit != InScope.end())
    return Hit->second;
  bool In = false;
  SourceLocation Start = SM.getLocForStartOfFile(FID);
  // A header's kind comes from the directory it was found in: the toolkit,
  // CCCL, clang's resource directory and -isystem directories are system
  // headers, whatever the filter says.
  if (Filter && !SM.isInSystemHeader(Start) && SM.getFileEntryRefForID(FID)) {
    std::string P = path(FID);
    In = Filter->match(P) && !Excluded.count(P);
  }
  InScope[FID] = In;
  return In;
}

bool SourceScope::contains(SourceLocation Loc) const {
  if (Loc.isInvalid())
    return false;
  return containsFile(SM.getFileID(SM.getExpansionLoc(Loc)));
}

std::string SourceScope::path(FileID FID) const {
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return "";
  // Relative include paths are relative to the directory clang works in
  // (the compile command's), which the FileManager knows.
  llvm::SmallString<256> P(FE->getName());
  SM.getFileManager().makeAbsolutePath(P);
  return normalise(P);
}

llvm::StringRef SourceScope::text(FileID FID) const {
  return SM.getBufferData(FID);
}

FilePosition SourceScope::position(SourceLocation Loc) const {
  FilePosition P;
  if (Loc.isInvalid())
    return P;
  SourceLocation E = SM.getExpansionLoc(Loc);
  FileID FID = SM.getFileID(E);
  P.File = path(FID);
  P.Text = text(FID);
  P.Offset = SM.getFileOffset(E);
  P.Main = FID == SM.getMainFileID();
  return P;
}

llvm::StringRef SourceScope::textOf(const std::string &Path,
                                    bool &Found) const {
  Found = false;
  if (path(SM.getMainFileID()) == Path) {
    Found = true;
    return text(SM.getMainFileID());
  }
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    FileID FID = SM.translateFile(It->first);
    if (FID.isValid() && containsFile(FID) && path(FID) == Path) {
      Found = true;
      return text(FID);
    }
  }
  return "";
}

std::string SourceScope::display(FileID FID,
                                 const std::string &MainDisplay) const {
  if (FID == SM.getMainFileID())
    return MainDisplay;
  return displayPath(path(FID));
}

std::string SourceScope::display(SourceLocation Loc,
                                 const std::string &MainDisplay) const {
  if (Loc.isInvalid())
    return MainDisplay;
  return display(SM.getFileID(SM.getExpansionLoc(Loc)), MainDisplay);
}

} // namespace warpwise
