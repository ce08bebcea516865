//===- CompileErrorAdvice.cpp - What a file's first compile error means ---===//
//
// A file that clang rejects is not analysed (WW1004). The message ends with
// what usually fixes it, and that depends on why clang rejects the file:
// most often the build's flags are missing (an include directory, a macro),
// but some code nvcc accepts is code no flag makes clang accept (an
// initialised __shared__ variable, an initialised variable-length array,
// inline asm nvcc is lenient about), and some is code the toolkit's nvcc
// rejects as well (texture references, removed in CUDA 12). Each class is
// recognised from clang's first error: its text, and for inline asm the
// statement it is in.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Frontend.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <string>
#include <vector>

namespace warpwise {

namespace {

/// "the CUDA 13.0 toolkit's nvcc", or "nvcc" when the version is unknown.
std::string toolkitNvcc(const std::string &Version) {
  if (Version.empty() || Version == "unknown")
    return "the toolkit's nvcc";
  return "the CUDA " + Version + " toolkit's nvcc";
}

bool isTextureReference(llvm::StringRef Msg) {
  static const char *const Patterns[] = {
      "no template named 'texture'", "unknown type name 'texture'",
      "undeclared identifier 'cudaBindTexture",
      "undeclared identifier 'cudaUnbindTexture",
      "undeclared identifier 'cudaGetTextureReference",
      "undeclared identifier 'cudaGetTextureAlignmentOffset"};
  for (const char *P : Patterns)
    if (Msg.contains(P))
      return true;
  return false;
}

/// The statement around the error holds an `asm` keyword.
bool inInlineAsm(llvm::StringRef Statement) {
  static const llvm::Regex Asm("(^|[^A-Za-z0-9_])(asm|__asm|__asm__)"
                               "([^A-Za-z0-9_]|$)");
  return Asm.match(Statement);
}

bool isNamed(llvm::StringRef Path, llvm::StringRef Name) {
  return llvm::sys::path::filename(Path) == Name;
}

/// How a source beside \p File uses it, by that source's file name: one
/// that `#include`s it (any directory in the quoted path; Rodinia's bfs,
/// srad, myocyte, ... compile a kernel file only through the source that
/// defines what it uses and then includes it), or one that names it in a
/// string and calls NVRTC (cuda-samples' *_nvrtc: compiled at run time).
struct UseBeside {
  std::string Includer, NvrtcUser;
};

UseBeside usesBeside(llvm::StringRef File) {
  UseBeside Use;
  llvm::StringRef Name = llvm::sys::path::filename(File);
  llvm::StringRef Dir = llvm::sys::path::parent_path(File);
  if (Name.empty() || Dir.empty())
    return Use;
  std::vector<std::string> Includers, NvrtcUsers;
  std::string Quoted = ("\"" + Name + "\"").str();
  std::error_code EC;
  unsigned Seen = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End;
       It != End && !EC && Seen < 500; It.increment(EC), ++Seen) {
    llvm::StringRef Path = It->path();
    llvm::StringRef Ext = llvm::sys::path::extension(Path);
    if (Path == File || !(Ext == ".cu" || Ext == ".cuh" || Ext == ".cpp" ||
                          Ext == ".cc" || Ext == ".c" || Ext == ".h"))
      continue;
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer || (*Buffer)->getBufferSize() > (1u << 20))
      continue;
    llvm::StringRef Text = (*Buffer)->getBuffer();
    std::string Base = llvm::sys::path::filename(Path).str();
    if (Text.contains(Quoted) && Text.contains("nvrtc"))
      NvrtcUsers.push_back(Base);
    llvm::SmallVector<llvm::StringRef> Lines;
    Text.split(Lines, '\n');
    for (llvm::StringRef L : Lines) {
      L = L.ltrim();
      if (!L.consume_front("#"))
        continue;
      L = L.ltrim();
      if (!L.consume_front("include"))
        continue;
      L = L.ltrim();
      if (!L.consume_front("\""))
        continue;
      llvm::StringRef Included = L.take_until([](char C) { return C == '"'; });
      if (llvm::sys::path::filename(Included) == Name) {
        Includers.push_back(Base);
        break;
      }
    }
  }
  std::sort(Includers.begin(), Includers.end());
  std::sort(NvrtcUsers.begin(), NvrtcUsers.end());
  if (!Includers.empty())
    Use.Includer = Includers.front();
  if (!NvrtcUsers.empty())
    Use.NvrtcUser = NvrtcUsers.front();
  return Use;
}

} // namespace

std::string compileErrorAdvice(const FirstCompileError &E,
                               const CudaToolkit *Toolkit) {
  llvm::StringRef Msg = E.Message;
  if (!Toolkit) // A C or C++ file (offload): the flags are the usual cause.
    return Msg.contains("file not found")
               ? "if the build finds that file, give warpwise its include "
                 "directories: -p BUILD_DIR (a compile_commands.json) or "
                 "'-- -I DIR'"
               : "if the build compiles this file, pass its flags: -p "
                 "BUILD_DIR (a compile_commands.json) or after '--'";
  std::string Nvcc = toolkitNvcc(Toolkit->Version);
  if (isTextureReference(Msg))
    return "texture references (`texture<...>`, cudaBindTexture) were "
           "removed in CUDA 12, so " +
           Nvcc +
           " rejects this file too: port them to texture objects "
           "(cudaTextureObject_t), or --cuda-path a CUDA 11 toolkit";
  // A header of the project's named cuda.h that stands in for the toolkit's
  // (the way Clang's own tests declare the CUDA API with -nocudainc).
  if (isNamed(E.File, "cuda.h") && !E.InSystemHeader)
    return "the project's own header " + E.File +
           " declares what the CUDA runtime declares (it stands in for the "
           "toolkit's headers, as in code written for `clang -nocudainc`), "
           "so " +
           Nvcc +
           " rejects this file too; no flag of warpwise's changes that";
  if (Msg.contains("undeclared identifier 'cuda") ||
      Msg.contains("in 'cudaDeviceProp'"))
    return "the CUDA toolkit it is parsed with no longer has that API, so "
           "its nvcc cannot build the file either: --cuda-path the "
           "toolkit the build uses, or update the call";
  if (Msg.contains("initialization is not supported for __shared__"))
    return "clang rejects a __shared__ variable with an initialiser or a "
           "constructor that does work (nvcc accepts it and leaves the "
           "variable uninitialised, as for `__shared__ cuda::barrier<...>`); "
           "no compile flag changes that: construct the object from one "
           "thread instead (placement new, or cuda::init), or leave the file "
           "to nvcc";
  if (Msg.contains("variable-sized object may not be initialized"))
    return "clang rejects an initialiser on a variable-length array (`T "
           "a[n] = {0}`, a GCC extension nvcc's host compiler accepts); no "
           "compile flag changes that: give the array a constant size, or "
           "fill it with a loop or memset";
  if (Msg.contains("requires relocatable device code"))
    return "the file launches kernels from device code (dynamic "
           "parallelism), which the build compiles with -rdc=true: pass its "
           "flags, -p BUILD_DIR (a compile_commands.json) or '-- -rdc=true'";
  if (inInlineAsm(E.Statement))
    return "clang rejects this inline asm statement, which nvcc accepts "
           "(nvcc does not check an asm statement's operands as strictly: a "
           "missing comma between operands, a register or constraint clang "
           "does not know); no compile flag changes that: correct the "
           "statement";
  if (Msg.contains("no matching function for call to 'min'") ||
      Msg.contains("no matching function for call to 'max'") ||
      Msg.contains("call to 'min' is ambiguous") ||
      Msg.contains("call to 'max' is ambiguous"))
    return "no overload of nvcc's min and max takes these argument types "
           "either (they take two of int, unsigned, long, long long, float "
           "or double, in matching or mixed signedness), so nvcc rejects "
           "the call too: cast the arguments to one type";
  if (Msg.contains("redefinition") && !E.PreviousFile.empty() &&
      !E.InMainFile && !E.PreviousInMainFile && !E.PreviousInToolHeader &&
      E.PreviousFile != E.File)
    return "two headers the file includes both declare that name (" + E.File +
           ":" + std::to_string(E.Line) + " and " + E.PreviousFile + ":" +
           std::to_string(E.PreviousLine) +
           "); if the build includes only one of them, pass its include "
           "directories and macros (-p BUILD_DIR, or '-- -I DIR -DNAME'); "
           "with the same flags " +
           Nvcc + " reads the same two headers and rejects the file too";
  if (Msg.contains("file not found"))
    return "if the build finds that file, give warpwise its include "
           "directories: -p BUILD_DIR (a compile_commands.json) or '-- -I "
           "DIR'";
  bool UnknownName = Msg.contains("undeclared identifier") ||
                     Msg.contains("unknown type name") ||
                     Msg.contains("no member named");
  UseBeside Use;
  if (UnknownName && !E.File.empty())
    Use = usesBeside(E.File);
  if (!Use.Includer.empty())
    return "it is #included by " + Use.Includer +
           " beside it, so the build likely compiles it only through that "
           "file, which may define what it uses before the include: "
           "rewrite " +
           Use.Includer +
           " instead; warpwise analyses and rewrites the kernels of the "
           "project files a file includes";
  if (!Use.NvrtcUser.empty())
    return Use.NvrtcUser +
           " beside it names it and calls NVRTC, so it is likely compiled "
           "at run time, where NVRTC declares some names itself (assert, "
           "printf) and the program passes its own options: give warpwise "
           "what the file then relies on, e.g. '-- -include assert.h', and "
           "the options the program passes to nvrtcCompileProgram";
  if (UnknownName)
    return "if the build defines it, pass the build's flags: -p BUILD_DIR "
           "(a compile_commands.json) or '-- -DNAME' / '-- -include "
           "HEADER'";
  return "clang rejects this code; if the build's macros select other "
         "code, pass them (-p BUILD_DIR, or '-- -DNAME'); if nvcc builds "
         "the file as it is, it accepts code clang does not, which warpwise "
         "cannot parse";
}

} // namespace warpwise
