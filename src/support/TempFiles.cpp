//===- TempFiles.cpp - Temporary files that never outlive warpwise --------===//
#include "warpwise/TempFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <atomic>
#include <cstring>
#include <cstdint>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

namespace warpwise {

std::string firstErrorLine(llvm::StringRef Output) {
  llvm::SmallVector<llvm::StringRef> Lines;
  Output.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef L : Lines)
    if (L.contains("error") || L.contains("Error") || L.contains("fatal"))
      return L.trim().str();
  for (llvm::StringRef L : Lines) {
    llvm::StringRef T = L.trim();
    if (!T.empty() && !T.starts_with("In function") &&
        !T.starts_with("In file included from") &&
        !T.starts_with("In member function") &&
        !T.starts_with("In instantiation of") && !T.ends_with(":"))
      return T.str();
  }
  return Lines.empty() ? "" : Lines.front().trim().str();
}

namespace {
std::mutex RootMutex;
std::string Root;
std::atomic<bool> Keep{false};
/// A copy of Root for the signal handler, which must not allocate or lock.
char RootForSignal[4096];

/// The kernel's directory entry, as getdents64 writes it (glibc's
/// struct dirent64 has the same layout, but we depend only on the system
/// call here).
struct LinuxDirent64 {
  uint64_t Inode;
  int64_t Offset;
  unsigned short RecordLength;
  unsigned char Type;
  char Name[];
};

/// Depth-first removal with nothing but system calls and stack buffers:
/// this runs in a signal handler, which may have interrupted malloc, so
/// nothing here may allocate (opendir does: it once corrupted the heap on
/// SIGINT).
void removeTree(const char *Path) {
  int Fd = open(Path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd >= 0) {
    alignas(8) char Buffer[4096];
    long N;
    while ((N = syscall(SYS_getdents64, Fd, Buffer, sizeof(Buffer))) > 0) {
      for (long At = 0; At < N;) {
        auto *E = reinterpret_cast<LinuxDirent64 *>(Buffer + At);
        At += E->RecordLength;
        if (!strcmp(E->Name, ".") || !strcmp(E->Name, ".."))
          continue;
        char Child[4096];
        size_t PathLength = strlen(Path), NameLength = strlen(E->Name);
        if (PathLength + NameLength + 2 > sizeof(Child))
          continue;
        memcpy(Child, Path, PathLength);
        Child[PathLength] = '/';
        memcpy(Child + PathLength + 1, E->Name, NameLength + 1);
        struct stat St;
        if (lstat(Child, &St) == 0 && S_ISDIR(St.st_mode))
          removeTree(Child);
        else
          unlink(Child);
      }
    }
    close(Fd);
  }
  rmdir(Path);
}

void onInterrupt() {
  if (RootForSignal[0] && !Keep.load())
    removeTree(RootForSignal);
  // The default action of the signal that brought us here: exit as
  // interrupted (128 + SIGINT), the shell convention.
  _exit(130);
}

std::error_code ensureRoot(std::string &Out) {
  std::lock_guard<std::mutex> Lock(RootMutex);
  if (Root.empty()) {
    llvm::SmallString<128> Dir;
    if (std::error_code EC =
            llvm::sys::fs::createUniqueDirectory("warpwise", Dir))
      return EC;
    Root = Dir.str().str();
    if (Root.size() < sizeof(RootForSignal))
      memcpy(RootForSignal, Root.c_str(), Root.size() + 1);
    llvm::sys::SetInterruptFunction(onInterrupt);
  }
  Out = Root;
  return {};
}
} // namespace

std::error_code createTemporaryDirectory(llvm::StringRef Prefix,
                                         llvm::SmallVectorImpl<char> &Path) {
  std::string R;
  if (std::error_code EC = ensureRoot(R))
    return EC;
  llvm::SmallString<256> Model(R);
  llvm::sys::path::append(Model, Prefix); // "-XXXXXX" is appended.
  return llvm::sys::fs::createUniqueDirectory(Model, Path);
}

std::error_code createTemporaryFile(llvm::StringRef Prefix,
                                    llvm::StringRef Suffix,
                                    llvm::SmallVectorImpl<char> &Path) {
  std::string R;
  if (std::error_code EC = ensureRoot(R))
    return EC;
  llvm::SmallString<256> Model(R);
  llvm::sys::path::append(Model, Prefix + "-%%%%%%." + Suffix);
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Path))
    return EC;
  ::close(FD);
  return {};
}

std::vector<std::string>
toolEnvironment(const std::vector<std::string> &Extra) {
  std::vector<std::string> Set = Extra;
  std::string R;
  if (!ensureRoot(R))
    Set.push_back("TMPDIR=" + R);
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E) {
    llvm::StringRef Var(*E);
    bool Replaced = false;
    for (const std::string &S : Set)
      Replaced |= Var.split('=').first == llvm::StringRef(S).split('=').first;
    if (!Replaced)
      Env.push_back(*E);
  }
  Env.insert(Env.end(), Set.begin(), Set.end());
  return Env;
}

void keepTemporaries() { Keep = true; }

std::string temporaryRoot() {
  std::lock_guard<std::mutex> Lock(RootMutex);
  return Root;
}

void removeTemporaries() {
  std::lock_guard<std::mutex> Lock(RootMutex);
  if (Root.empty() || Keep)
    return;
  llvm::sys::fs::remove_directories(Root);
  RootForSignal[0] = 0;
  Root.clear();
}

} // namespace warpwise
