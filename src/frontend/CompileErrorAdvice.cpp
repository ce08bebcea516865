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

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

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
  if (Msg.contains("file not found"))
    return "if the build finds that file, give warpwise its include "
           "directories: -p BUILD_DIR (a compile_commands.json) or '-- -I "
           "DIR'";
  if (Msg.contains("undeclared identifier") ||
      Msg.contains("unknown type name") || Msg.contains("no member named"))
    return "if the build defines it, pass the build's flags: -p BUILD_DIR "
           "(a compile_commands.json) or '-- -DNAME' / '-- -include "
           "HEADER'";
  return "clang rejects this code; if the build's macros select other "
         "code, pass them (-p BUILD_DIR, or '-- -DNAME'); if nvcc builds "
         "the file as it is, it accepts code clang does not, which warpwise "
         "cannot parse";
}

} // namespace warpwise
