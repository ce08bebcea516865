//===- CompileFlags.h - Compile commands in, clang and nvcc flags out -*- C++ -*-===//
//
// A CUDA project's compile command is written for nvcc (CMake's database
// entries for .cu files), for gcc/clang, or for clang as the CUDA compiler.
// warpwise needs two things from it: the flags clang's parse needs (include
// paths, macros, the language standard, -fgpu-rdc) and the flags warpwise's
// own nvcc runs need to compile the code as the project does (the same, plus
// code generation options such as -maxrregcount or --use_fast_math). The
// translation is driven by rules/nvcc-flags.json; every option that is
// dropped says why, so that `-v` and the report can show it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_COMPILEFLAGS_H
#define WARPWISE_COMPILEFLAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace warpwise {

struct DroppedFlag {
  std::string Flag; ///< As written, with its value.
  std::string Reason;
};

struct TranslatedFlags {
  std::vector<std::string> Clang;
  std::vector<std::string> Nvcc;
  std::vector<DroppedFlag> Dropped;
  /// Response files that could not be read (a missing --options-file is an
  /// error: the include paths in it would be lost).
  std::vector<std::string> Problems;
  /// Where the command came from ("build/compile_commands.json"), for -v.
  std::string Source;
  /// Said when the file is parsed (a -p database without an entry for it).
  std::string Warning;
  /// The real architectures the command builds for ("sm_80"), from -arch,
  /// -code, -gencode/--generate-code, --cuda-gpu-arch and --offload-arch
  /// (a virtual compute_XX alone counts as sm_XX), each once, in order.
  std::vector<std::string> Arches;
};

class FlagTable;

/// The built-in table (rules/nvcc-flags.json), parsed once.
const FlagTable &builtinFlagTable();

/// Parses a table in the format of rules/nvcc-flags.json.
llvm::Expected<std::unique_ptr<FlagTable>> parseFlagTable(llvm::StringRef Json);

/// Translates \p Args (options only: no compiler name; positional arguments
/// such as the source file are dropped) of a command run in \p Directory.
/// Response files are expanded first.
TranslatedFlags translateCompileFlags(const FlagTable &Table,
                                      llvm::ArrayRef<std::string> Args,
                                      llvm::StringRef Directory);

/// The options of a database command line after the compiler (and a
/// compiler launcher such as ccache before it).
std::vector<std::string>
commandOptions(llvm::ArrayRef<std::string> CommandLine);

} // namespace warpwise

#endif
