//===- Analysis.h - Facts about kernels, as plain structs -------*- C++ -*-===//
//
// Analyses answer questions about the code and never edit it. Their results
// are plain structs the report prints as they are and the planner decides
// from.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_ANALYSIS_H
#define WARPWISE_ANALYSIS_H

#include "warpwise/Occupancy.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace warpwise {

/// The four-level uniformity lattice, ordered from most to least uniform.
enum class Uniformity { Uniform, BlockUniform, WarpUniform, Divergent };
const char *uniformityName(Uniformity U);

/// Register-pressure estimate for one region of a kernel.
struct RegionPressure {
  unsigned MaxLive = 0; ///< Peak 32-bit registers of live values.
  unsigned Line = 0;    ///< Where the peak is.
};

struct BranchInfo {
  unsigned Line = 0, Column = 0;
  std::string Function; ///< The kernel or __device__ function it is in.
  std::string Kind;     ///< "if", "if-else", "?:", "switch".
  Uniformity Level = Uniformity::Uniform;
  std::string Reason;
  RegionPressure Then, Else;
};

struct LoopInfo {
  unsigned Line = 0, Column = 0;
  std::string Function;
  std::string Kind;                       ///< "for", "while", "do".
  Uniformity Level = Uniformity::Uniform; ///< Of the exit condition.
  std::string Reason;
  RegionPressure Body;
};

/// A local variable of a kernel and the divergence analysis's verdict on the
/// values it holds (the join over every assignment).
struct VariableInfo {
  std::string Name;
  unsigned Line = 0, Column = 0; ///< Of its declaration.
  Uniformity Level = Uniformity::Uniform;
  std::string Reason;
};

struct LaunchInfo {
  /// The file it is written in, normalised and absolute, when that is a
  /// project header (a host wrapper beside its kernel); empty for the main
  /// file. Line and Column count in that file.
  std::string File;
  unsigned Line = 0, Column = 0;
  std::string Kernel;
  std::string Caller;
  std::string GridText, BlockText;      ///< As spelled.
  std::optional<unsigned> BlockThreads; ///< When the block size is constant.
  /// blockDim.x, .y, .z when every component is constant.
  std::optional<std::array<unsigned, 3>> BlockDims;
  /// For a launch written in a template (`k<N><<<g, N>>>`): the block shape
  /// of each instantiation of the enclosing function, when each is constant.
  std::vector<std::array<unsigned, 3>> InstanceBlockDims;
  bool InstanceDimsUnknown = false; ///< Some instantiation's shape is not.
  std::optional<unsigned long> DynamicShared;
  bool InMacro = false;

  /// Every block shape this launch is known to use: its own constant shape,
  /// else those of its instantiations; empty when any one is unknown.
  std::vector<std::array<unsigned, 3>> knownBlockDims() const {
    if (BlockDims)
      return {*BlockDims};
    if (InstanceDimsUnknown)
      return {};
    return InstanceBlockDims;
  }
};

/// "line 40", or "line 61 of addKernel.cuh" for a launch in a header.
std::string launchPlace(const LaunchInfo &L);

struct PtxasInfo {
  unsigned Registers = 0;
  unsigned SpillStores = 0, SpillLoads = 0;
  unsigned long SharedBytes = 0;
  unsigned long StackBytes = 0;
  std::string Arch;
  bool Cached = false;
};

struct KernelInfo {
  std::string Name;
  /// The file it is defined in, normalised and absolute, when that is a
  /// project header; empty for the main file. Line counts in that file.
  std::string File;
  unsigned Line = 0;
  bool IsTemplate = false;
  std::string MangledName; ///< For matching ptxas output; empty for templates.
  unsigned long StaticShared =
      0; ///< Bytes of __shared__ arrays declared in it.
  RegionPressure Registers;
  std::optional<PtxasInfo> Ptxas;
  unsigned BlockSize = 0;
  std::string
      BlockSizeSource; ///< "launch at line 40", "--block-size", "default".
  /// Every constant block size it is launched with (one entry when forced or
  /// defaulted); the register guards check each.
  std::vector<unsigned> BlockSizes;
  bool BlockSizeForced = false; ///< --block-size: it wins over the launches.
  std::optional<OccupancyResult> Occupancy;
  std::string OccupancyRegisterSource; ///< "ptxas" or "estimate".
  std::vector<BranchInfo> Branches;
  std::vector<LoopInfo> Loops;
  /// Its local variables (scalars and arrays), in declaration order.
  std::vector<VariableInfo> Variables;
};

/// A __device__ function, analysed in every context it is called from; its
/// verdicts are the join over those contexts.
struct DeviceFunctionInfo {
  std::string Name;
  std::string File; ///< As KernelInfo::File.
  unsigned Line = 0;
  unsigned Contexts = 0; ///< Distinct argument-uniformity contexts seen.
  std::vector<BranchInfo> Branches;
  std::vector<LoopInfo> Loops;
};

struct FileAnalysis {
  std::string File;
  std::vector<KernelInfo> Kernels;
  std::vector<DeviceFunctionInfo> DeviceFunctions;
  std::vector<LaunchInfo> Launches;
  /// Template kernels: the constant block sizes each instantiation (by
  /// mangled name, as ptxas names it) is launched with, where every launch
  /// of it shows one.
  std::map<std::string, std::vector<unsigned>> InstanceBlockSizes;
};

/// The block sizes to check an instance of \p K (mangled name \p Mangled,
/// empty for a plain kernel) at: its own launches' when known, else every
/// size the file launches \p K with.
/// A kernel's name as ptxas reports it (a template instantiation's mangled
/// name, a plain kernel's own when it is extern "C").
std::string kernelSymbolName(clang::ASTContext &Ctx,
                             const clang::FunctionDecl *FD);

std::vector<unsigned> blockSizesFor(const FileAnalysis &A, const KernelInfo &K,
                                    const std::string &Mangled);

/// The distinct constant block sizes, in threads, that \p Kernel is launched
/// with in the file (launches in template instantiations included),
/// ascending.
std::vector<unsigned> launchBlockSizes(const FileAnalysis &A,
                                       const std::string &Kernel);

class SourceScope;

/// Collects kernels, their branches and loops with uniformity verdicts and
/// register estimates, in the main file and in the project headers \p Scope
/// accepts (the main file only when it is null), and the launches in \p
/// File's main file.
FileAnalysis analyzeTranslationUnit(clang::ASTContext &Ctx,
                                    const std::string &File,
                                    const SourceScope *Scope = nullptr);

} // namespace warpwise

#endif
