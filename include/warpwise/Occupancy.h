//===- Occupancy.h - Occupancy model from rules/arches.json -----*- C++ -*-===//
//
// The arithmetic follows NVIDIA's (cuda_occupancy.h for CC >= 3.0, the
// occupancy calculator spreadsheet for 1.x and 2.x); every number it uses comes
// from rules/arches.json, none is written in code.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OCCUPANCY_H
#define WARPWISE_OCCUPANCY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace warpwise {

struct ArchLimits {
  std::string Cc;   ///< "9.0"
  std::string Name; ///< "Hopper GH100 (H100, H200)"
  unsigned Major = 0, Minor = 0;
  unsigned WarpSize = 32;
  unsigned MaxThreadsPerBlock = 0;
  unsigned MaxThreadsPerSM = 0;
  unsigned MaxBlocksPerSM = 0;
  unsigned RegistersPerSM = 0;
  unsigned RegistersPerBlock = 0;
  unsigned MaxRegistersPerThread = 0;
  unsigned RegisterAllocationUnit = 0;
  bool RegistersPerWarp = true; ///< false: allocated per block (CC 1.x).
  unsigned WarpAllocationGranularity = 1; ///< Sub-partitions on CC >= 3.0.
  /// GP100 is also checked as if it had this many sub-partitions.
  unsigned HardwareCheckWarpAllocationGranularity = 0;
  unsigned long SharedPerSM = 0;
  unsigned long SharedPerBlock = 0;
  unsigned long SharedPerBlockOptin = 0;
  unsigned SharedAllocationUnit = 0;
  unsigned SharedReservedPerBlock = 0;
  std::vector<unsigned long> SharedConfigs; ///< Carve-outs, CC >= 7.0.

  unsigned maxWarpsPerSM() const { return MaxThreadsPerSM / WarpSize; }
  std::string smName() const; ///< "sm_90"
};

class ArchTable {
public:
  /// Parses a table in the format of rules/arches.json.
  static llvm::Expected<ArchTable> parse(llvm::StringRef Json);
  /// The table built into the binary, or \p OverridePath when not empty.
  static llvm::Expected<ArchTable> load(const std::string &OverridePath = "");

  /// Finds "sm_90", "sm_90a", "compute_90", "9.0" or "90".
  const ArchLimits *find(llvm::StringRef Arch) const;
  const std::vector<ArchLimits> &all() const { return Arches; }

private:
  std::vector<ArchLimits> Arches;
};

enum class OccupancyLimiter { None, Registers, SharedMemory, Warps, Blocks };
const char *limiterName(OccupancyLimiter L);

struct OccupancyInput {
  unsigned Registers = 0;       ///< Per thread.
  unsigned ThreadsPerBlock = 0;
  unsigned long SharedBytes = 0; ///< Static plus dynamic, per block.
};

struct OccupancyResult {
  bool Launchable = false;
  std::string Problem; ///< Why no block fits, when !Launchable.
  unsigned BlocksPerSM = 0;
  unsigned ActiveWarpsPerSM = 0;
  unsigned MaxWarpsPerSM = 0;
  double Percent = 0; ///< Active warps / max warps, 0..100.
  OccupancyLimiter Limiter = OccupancyLimiter::None;
  unsigned BlocksByRegisters = 0, BlocksBySharedMemory = 0, BlocksByWarps = 0,
           BlocksByBlockLimit = 0;
  unsigned RegistersPerBlock = 0; ///< As allocated.
  unsigned long SharedPerBlock = 0; ///< As allocated.
};

OccupancyResult computeOccupancy(const ArchLimits &A, const OccupancyInput &In);

/// The register counts at which occupancy changes for a block size: each entry
/// is (largest register count, occupancy percent at that count).
std::vector<std::pair<unsigned, double>>
registerSteps(const ArchLimits &A, unsigned ThreadsPerBlock,
              unsigned long SharedBytes = 0);

} // namespace warpwise

#endif
