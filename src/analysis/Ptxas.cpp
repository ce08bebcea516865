//===- Ptxas.cpp - nvcc/ptxas feedback with a content-addressed cache -----===//
#include "warpwise/Ptxas.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "warpwise/AtomicFile.h"
#include "warpwise/TempFiles.h"
#include <nlohmann/json.hpp>

#include <cstdlib>

namespace warpwise {

std::map<std::string, PtxasInfo> parsePtxasOutput(llvm::StringRef Output) {
  std::map<std::string, PtxasInfo> Result;
  std::string Current;
  llvm::SmallVector<llvm::StringRef> Lines;
  Output.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    L = L.trim();
    size_t Pos;
    if ((Pos = L.find("Compiling entry function '")) != llvm::StringRef::npos) {
      llvm::StringRef Rest = L.substr(Pos + strlen("Compiling entry function '"));
      Current = Rest.take_until([](char C) { return C == '\''; }).str();
      size_t For = Rest.find("for '");
      if (For != llvm::StringRef::npos)
        Result[Current].Arch =
            Rest.substr(For + 5).take_until([](char C) { return C == '\''; }).str();
      continue;
    }
    if (Current.empty())
      continue;
    PtxasInfo &I = Result[Current];
    auto NumberBefore = [&](llvm::StringRef Unit) -> std::optional<unsigned long> {
      size_t P = L.find(Unit);
      if (P == llvm::StringRef::npos)
        return std::nullopt;
      llvm::StringRef Head = L.substr(0, P).rtrim();
      size_t Start = Head.find_last_not_of("0123456789");
      Head = Start == llvm::StringRef::npos ? Head : Head.substr(Start + 1);
      unsigned long N = 0;
      if (Head.getAsInteger(10, N))
        return std::nullopt;
      return N;
    };
    if (L.contains("bytes stack frame")) {
      I.StackBytes = NumberBefore(" bytes stack frame").value_or(0);
      I.SpillStores = NumberBefore(" bytes spill stores").value_or(0);
      I.SpillLoads = NumberBefore(" bytes spill loads").value_or(0);
    } else if (L.contains("Used ") && L.contains(" registers")) {
      I.Registers = NumberBefore(" registers").value_or(0);
      I.SharedBytes = NumberBefore(" bytes smem").value_or(0);
    }
  }
  return Result;
}

std::string kernelBaseName(llvm::StringRef Mangled) {
  std::string D = llvm::demangle(Mangled.str());
  // "void ns::t<3>(float*)": cut the parameters, the template arguments and
  // the return type.
  size_t Paren = D.find('(');
  std::string Head = Paren == std::string::npos ? D : D.substr(0, Paren);
  if (!Head.empty() && Head.back() == '>') {
    int Depth = 0;
    for (size_t I = Head.size(); I-- > 0;) {
      if (Head[I] == '>')
        ++Depth;
      else if (Head[I] == '<' && --Depth == 0) {
        Head = Head.substr(0, I);
        break;
      }
    }
  }
  size_t Space = Head.rfind(' ');
  if (Space != std::string::npos)
    Head = Head.substr(Space + 1);
  size_t Colon = Head.rfind("::");
  if (Colon != std::string::npos)
    Head = Head.substr(Colon + 2);
  return Head;
}

PtxasRunner::PtxasRunner(const CudaToolkit &T, std::string Dir,
                         DiagnosticLog &L)
    : Toolkit(T), CacheDir(cacheDirectory(Dir)), Log(L) {}

std::string cacheDirectory(const std::string &Given) {
  if (!Given.empty())
    return Given;
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    return std::string(X) + "/warpwise";
  if (const char *H = std::getenv("HOME"); H && *H)
    return std::string(H) + "/.cache/warpwise";
  return "";
}

std::string PtxasRunner::nvccArchFor(const ArchLimits &Arch) {
  unsigned N = Arch.Major * 10 + Arch.Minor;
  return N < 75 ? "sm_75" : Arch.smName();
}

std::optional<std::string>
PtxasRunner::compile(const std::string &AbsPath, const std::string &Arch,
                     const std::vector<std::string> &Flags,
                     std::string &Error) const {
  std::string Nvcc = Toolkit.Path + "/bin/nvcc";
  if (!llvm::sys::fs::can_execute(Nvcc)) {
    Error = "no nvcc at " + Nvcc;
    return std::nullopt;
  }
  llvm::SmallString<128> Cubin, Log;
  createTemporaryFile("ptxas", "cubin", Cubin);
  createTemporaryFile("ptxas", "log", Log);
  std::vector<std::string> Args = {Nvcc, "-arch=" + Arch, "-cubin", "-o",
                                   Cubin.str().str(), "-Xptxas", "-v"};
  Args.insert(Args.end(), Flags.begin(), Flags.end());
  // nvcc chooses the language by extension: a .cuh (or an --assume-cuda
  // .cpp) is CUDA only when told so.
  if (llvm::sys::path::extension(AbsPath) != ".cu") {
    Args.push_back("-x");
    Args.push_back("cu");
  }
  Args.push_back(AbsPath);
  std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                Log.str()};
  std::string ExecError;
  std::vector<std::string> EnvStrings = toolEnvironment();
  std::vector<llvm::StringRef> Env(EnvStrings.begin(), EnvStrings.end());
  int RC = llvm::sys::ExecuteAndWait(Nvcc, Refs, Env, Redirects,
                                     /*SecondsToWait=*/300, 0, &ExecError);
  auto Buf = llvm::MemoryBuffer::getFile(Log);
  std::string Output = Buf ? (*Buf)->getBuffer().str() : "";
  llvm::sys::fs::remove(Cubin);
  llvm::sys::fs::remove(Log);
  if (RC != 0) {
    std::string First = firstErrorLine(Output);
    Error = "nvcc -arch=" + Arch + " failed" +
            (ExecError.empty() ? "" : " (" + ExecError + ")") +
            (First.empty() ? "" : ": " + First);
    return std::nullopt;
  }
  return Output;
}

void hashFilesRead(llvm::SHA256 &Hash, const std::vector<std::string> &Files,
                   llvm::function_ref<std::string(llvm::StringRef)> Spell) {
  for (const std::string &Path : Files) {
    Hash.update(Spell(Path));
    if (auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false))
      Hash.update((*Buf)->getBuffer());
    else
      Hash.update("<unreadable>");
  }
}

void PtxasRunner::annotate(const std::string &Display, llvm::StringRef Contents,
                           const std::string &AbsPath,
                           const std::vector<std::string> &Flags,
                           const std::vector<std::string> &FilesRead,
                           const ArchLimits &Arch, FileAnalysis &A) {
  std::string NvArch = nvccArchFor(Arch);
  // Everything that changes the answer goes into the key.
  llvm::SHA256 Hash;
  Hash.update(Contents);
  Hash.update(NvArch);
  Hash.update(Toolkit.Path);
  Hash.update(Toolkit.Version);
  Hash.update(AbsPath); // Relative includes depend on where the file is.
  for (const std::string &F : Flags)
    Hash.update(F);
  // A header's __device__ function that grew heavy changes the registers
  // as much as the file itself; the toolkit's headers are covered by its
  // path and version above.
  hashFilesRead(Hash, FilesRead,
                [](llvm::StringRef Path) { return Path.str(); });
  std::string Key = llvm::toHex(Hash.final(), /*LowerCase=*/true);
  std::string CacheFile =
      CacheDir.empty() ? "" : CacheDir + "/ptxas-" + Key + ".txt";

  std::string Output;
  bool Cached = false;
  if (!CacheFile.empty())
    if (auto Buf = llvm::MemoryBuffer::getFile(CacheFile)) {
      Output = (*Buf)->getBuffer().str();
      Cached = true;
    }
  if (!Cached) {
    std::string Error;
    std::optional<std::string> Got = compile(AbsPath, NvArch, Flags, Error);
    if (!Got) {
      Log.report(diag::PtxasFailed, Severity::Warning, Display, 0, 0,
                 Error + "; register counts are estimates only");
      return;
    }
    Output = *Got;
    // A cache that cannot be written only costs time.
    if (!CacheFile.empty() &&
        !llvm::sys::fs::create_directories(CacheDir))
      llvm::consumeError(writeFileAtomically(CacheFile, Output));
  }
  std::map<std::string, PtxasInfo> Entries = parsePtxasOutput(Output);
  for (KernelInfo &K : A.Kernels) {
    auto It = K.MangledName.empty() ? Entries.end()
                                    : Entries.find(K.MangledName);
    if (It != Entries.end()) {
      K.Ptxas = It->second;
      K.Ptxas->Cached = Cached;
      continue;
    }
    // Template kernels: the most demanding instantiation in the file.
    for (auto &[Mangled, Info] : Entries)
      if (kernelBaseName(Mangled) == K.Name &&
          (!K.Ptxas || Info.Registers > K.Ptxas->Registers)) {
        K.Ptxas = Info;
        K.Ptxas->Cached = Cached;
      }
  }
}

} // namespace warpwise
