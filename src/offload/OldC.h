//===- OldC.h - C that C++ does not accept, said in C++ ---------*- C++ -*-===//
//
// Rodinia-era C relies on what C89 allowed and gcc before 14 still accepts
// with a warning: K&R function definitions (`float squash(x) float x; {`),
// implicit int (`bump(n) int n; {`), and functions called before anything
// declares them (printf without <stdio.h>, a function defined further down).
// offload parses such a C input as gcc does and writes its output in C++,
// which has none of the three: a definition in prototype form, the int
// spelled, and for each implicitly declared function the header that
// declares it or a prototype of its later definition. A call it cannot
// declare (a function of another file, with no known header) is said with
// its line, since nvcc will reject it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_OLDC_H
#define WARPWISE_OFFLOAD_OLDC_H

#include "OffloadAst.h"
#include "RoundedProducts.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace warpwise {
namespace offload {

/// A call to a function nothing declares, which the output cannot declare
/// either.
struct UndeclaredCall {
  std::string Name;
  unsigned Line = 0, Column = 0;
};

/// A K&R definition left as written (Definition), or a function called
/// before its definition that gets no prototype; and why.
struct KeptDefinition {
  std::string Name;
  unsigned Line = 0, Column = 0;
  std::string Why;
  bool Definition = true;
};

struct OldCEdits {
  /// Definitions in prototype form, implicit ints spelled.
  std::vector<TextEdit> Edits;
  /// Prototypes of later definitions, on the lines before the function that
  /// first calls them: they go before Edits at the same place (the `int `
  /// of that function's implicit int).
  std::vector<TextEdit> Prototypes;
  /// The headers of implicitly declared library functions ("stdio.h").
  std::set<std::string> Headers;
  std::vector<UndeclaredCall> Undeclared;
  std::vector<KeptDefinition> Kept;
  unsigned KandR = 0, ImplicitInts = 0;
};

/// What C++ needs said of the C in \p Functions (the main file's functions
/// with a body). The header of a function clang does not know as a library
/// function comes from rules/c-headers.json. \p DeviceCallee: whether a
/// function is compiled for the device too (its prototype says so).
/// \p TypeText prints a type as a declaration of a name (the kernel
/// emitter's, so that C's `_Bool` reads as C++'s `bool`).
OldCEdits
oldCEdits(const OffloadSource &Src,
          const std::vector<const clang::FunctionDecl *> &Functions,
          const std::function<bool(const clang::FunctionDecl *)> &DeviceCallee,
          const std::function<std::string(clang::QualType, llvm::StringRef)>
              &TypeText);

/// \p Comment and `#define NAME <Prefix>NAME` for each of \p Names; "" for
/// none. The one form of every rename offload writes (C++ keywords, CUDA's
/// vector types).
std::string renamingMacros(llvm::StringRef Comment,
                           const std::set<std::string> &Names,
                           llvm::StringRef Prefix);

/// The C++ keywords a C program uses as names (`int new = 3;`), each
/// defined to another name (`#define new ww_c_new`): the main file's after
/// its includes (Macros), since C++ headers use the keywords; those of a
/// project file it includes (Rodinia heartwall's kernel.c names parameters
/// `public`) also before that include (Early, at offset EarlyAt), where no
/// system header is included after it. Keywords C also has as macros or
/// typedefs (`bool`, iso646.h's `and`) are left alone.
struct KeywordRenames {
  std::string Macros;
  std::string Early;
  unsigned EarlyAt = 0;
  /// The early names undefined again before the head that follows the
  /// includes (the run-time support and the headers oldC adds use the
  /// keywords: `template <class T>`); Macros defines the main file's again.
  std::string Undefs;
  /// Keywords of an included project file left as they are, since a system
  /// header is included after it (nvcc then rejects that file), and the
  /// line of the system header's include.
  std::set<std::string> Unrenamed;
  unsigned UnrenamedLine = 0;
  /// The main file's names, which Macros defines.
  std::set<std::string> MainNames;
};
KeywordRenames keywordRenames(const OffloadSource &Src);

/// `#undef private` before and `#define private ww_c_private` after each
/// `#pragma omp` line from offset \p From on that names one of \p Names
/// (`private(j)`): a pragma's tokens are macro-expanded, so a loop kept on
/// the host and built with -fopenmp would read `ww_c_private(j)`. Lines in
/// \p Replaced (an offloaded loop's, which the launch replaces) are left.
std::vector<TextEdit>
pragmaKeywordGuards(const OffloadSource &Src,
                    const std::set<std::string> &Names, unsigned From,
                    const std::vector<std::pair<unsigned, unsigned>> &Replaced);

} // namespace offload
} // namespace warpwise

#endif
