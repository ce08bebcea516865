//===- AtomicFile.cpp - Writing a file whole or not at all ----------------===//
#include "warpwise/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/stat.h>

namespace warpwise {

static llvm::Error writeError(llvm::StringRef Path, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot write '" + Path.str() +
                                     "': " + Why.str());
}

llvm::Error writeFileAtomically(llvm::StringRef RequestedPath,
                                llvm::StringRef Contents) {
  namespace fs = llvm::sys::fs;
  // Replace the file a symbolic link points to, not the link itself.
  llvm::SmallString<256> Path(RequestedPath);
  if (fs::is_symlink_file(RequestedPath)) {
    llvm::SmallString<256> Real;
    if (!fs::real_path(RequestedPath, Real))
      Path = Real;
  }
  if (fs::is_directory(Path))
    return writeError(Path, "it is a directory");
  // A device or a pipe (-o /dev/null, /dev/stdout, a process substitution)
  // is written to, never replaced: the rename below would put a regular
  // file where the device was (run as root, /dev/null itself).
  fs::file_status Existing;
  if (!fs::status(Path, Existing) && fs::exists(Existing) &&
      Existing.type() != fs::file_type::regular_file) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, fs::OF_None);
    if (EC)
      return writeError(Path, EC.message());
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      return writeError(Path, Why);
    }
    return llvm::Error::success();
  }
  llvm::SmallString<256> Dir = llvm::sys::path::parent_path(Path);
  if (Dir.empty())
    Dir = ".";
  if (!fs::is_directory(Dir))
    return writeError(Path, "directory '" + Dir + "' does not exist");

  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model, "." + llvm::sys::path::filename(Path).str() +
                                     ".warpwise-%%%%%%");
  int FD = -1;
  llvm::SmallString<256> Temp;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Temp))
    return writeError(Path, "cannot create a temporary file in '" + Dir +
                                "': " + EC.message());
  // Interrupted before the rename, the output stays as it was and the
  // half-written temporary goes.
  llvm::sys::RemoveFileOnSignal(Temp);
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      fs::remove(Temp);
      llvm::sys::DontRemoveFileOnSignal(Temp);
      return writeError(Path, Why);
    }
  }
  // Keep the permissions of the file we replace; a new file gets the usual
  // 0666 less the umask rather than the temporary file's 0600.
  fs::file_status Old;
  unsigned Perms;
  if (!fs::status(Path, Old) && fs::exists(Old)) {
    Perms = Old.permissions();
  } else {
    mode_t Mask = ::umask(0);
    ::umask(Mask);
    Perms = 0666 & ~Mask;
  }
  fs::setPermissions(Temp, static_cast<fs::perms>(Perms));
  std::error_code Renamed = fs::rename(Temp, Path);
  if (Renamed)
    fs::remove(Temp);
  llvm::sys::DontRemoveFileOnSignal(Temp);
  if (Renamed)
    return writeError(Path, Renamed.message());
  return llvm::Error::success();
}

} // namespace warpwise
