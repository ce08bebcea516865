//===- Occupancy.cpp - Occupancy model ------------------------------------===//
#include "warpwise/Occupancy.h"

#include "warpwise/Embedded.h"

#include "llvm/Support/MemoryBuffer.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

namespace warpwise {

std::string ArchLimits::smName() const {
  return "sm_" + std::to_string(Major * 10 + Minor);
}

static llvm::Error tableError(const std::string &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "architecture table: " + Why);
}

llvm::Expected<ArchTable> ArchTable::parse(llvm::StringRef Text) {
  nlohmann::json Doc = nlohmann::json::parse(Text.begin(), Text.end(), nullptr,
                                             /*allow_exceptions=*/false);
  if (Doc.is_discarded() || !Doc.contains("arches") ||
      !Doc["arches"].is_array())
    return tableError("not valid JSON with an 'arches' array");
  ArchTable T;
  for (const nlohmann::json &E : Doc["arches"]) {
    ArchLimits A;
    auto Get = [&](const char *Key, auto &Field) -> bool {
      if (!E.contains(Key))
        return false;
      Field = E[Key].get<std::remove_reference_t<decltype(Field)>>();
      return true;
    };
    bool OK = Get("cc", A.Cc) && Get("max_threads_per_block",
                                     A.MaxThreadsPerBlock) &&
              Get("max_threads_per_sm", A.MaxThreadsPerSM) &&
              Get("max_blocks_per_sm", A.MaxBlocksPerSM) &&
              Get("registers_per_sm", A.RegistersPerSM) &&
              Get("registers_per_block", A.RegistersPerBlock) &&
              Get("max_registers_per_thread", A.MaxRegistersPerThread) &&
              Get("register_allocation_unit", A.RegisterAllocationUnit) &&
              Get("warp_allocation_granularity", A.WarpAllocationGranularity) &&
              Get("shared_memory_per_sm", A.SharedPerSM) &&
              Get("shared_memory_per_block", A.SharedPerBlock) &&
              Get("shared_memory_per_block_optin", A.SharedPerBlockOptin) &&
              Get("shared_memory_allocation_unit", A.SharedAllocationUnit) &&
              Get("shared_memory_reserved_per_block", A.SharedReservedPerBlock);
    if (!OK)
      return tableError("entry " + E.dump() + " lacks a required field");
    Get("name", A.Name);
    Get("warp_size", A.WarpSize);
    Get("hardware_check_warp_allocation_granularity",
        A.HardwareCheckWarpAllocationGranularity);
    Get("shared_memory_configs", A.SharedConfigs);
    std::string Gran;
    Get("register_allocation_granularity", Gran);
    A.RegistersPerWarp = Gran != "block";
    size_t Dot = A.Cc.find('.');
    if (Dot == std::string::npos)
      return tableError("bad cc '" + A.Cc + "'");
    A.Major = std::stoi(A.Cc.substr(0, Dot));
    A.Minor = std::stoi(A.Cc.substr(Dot + 1));
    if (!A.WarpSize || !A.RegisterAllocationUnit ||
        !A.WarpAllocationGranularity || !A.SharedAllocationUnit)
      return tableError("zero unit in cc " + A.Cc);
    T.Arches.push_back(std::move(A));
  }
  return T;
}

llvm::Expected<ArchTable> ArchTable::load(const std::string &OverridePath) {
  if (OverridePath.empty())
    return parse(findEmbeddedFile("arches.json"));
  auto Buf = llvm::MemoryBuffer::getFile(OverridePath);
  if (!Buf)
    return tableError("cannot read '" + OverridePath +
                      "': " + Buf.getError().message());
  return parse((*Buf)->getBuffer());
}

const ArchLimits *ArchTable::find(llvm::StringRef Arch) const {
  llvm::StringRef S = Arch.trim();
  unsigned Major = 0, Minor = 0;
  if (S.contains('.')) {
    auto [Ma, Mi] = S.split('.');
    if (Ma.getAsInteger(10, Major) || Mi.getAsInteger(10, Minor))
      return nullptr;
  } else {
    if (!S.consume_front("sm_"))
      S.consume_front("compute_");
    S = S.take_while([](char C) { return C >= '0' && C <= '9'; });
    unsigned N = 0;
    if (S.empty() || S.getAsInteger(10, N))
      return nullptr;
    Major = N / 10;
    Minor = N % 10;
  }
  for (const ArchLimits &A : Arches)
    if (A.Major == Major && A.Minor == Minor)
      return &A;
  return nullptr;
}

const char *limiterName(OccupancyLimiter L) {
  switch (L) {
  case OccupancyLimiter::None:
    return "none";
  case OccupancyLimiter::Registers:
    return "registers";
  case OccupancyLimiter::SharedMemory:
    return "shared memory";
  case OccupancyLimiter::Warps:
    return "warps";
  case OccupancyLimiter::Blocks:
    return "blocks per SM";
  }
  return "none";
}

static unsigned long roundUp(unsigned long X, unsigned long Unit) {
  return Unit ? (X + Unit - 1) / Unit * Unit : X;
}

/// Blocks per SM allowed by registers, per warp (CC >= 2.0).
static unsigned blocksByRegistersPerWarp(const ArchLimits &A, unsigned Regs,
                                         unsigned Warps, unsigned SubPartitions,
                                         unsigned &AllocatedPerBlock) {
  unsigned PerWarp = roundUp(Regs * A.WarpSize, A.RegisterAllocationUnit);
  AllocatedPerBlock = PerWarp * Warps;
  // The hardware assumes whole sub-partitions' worth of warps per block.
  unsigned Assumed = PerWarp * roundUp(Warps, SubPartitions);
  if (A.RegistersPerBlock < Assumed || A.RegistersPerBlock < AllocatedPerBlock ||
      Regs > A.MaxRegistersPerThread)
    return 0;
  if (PerWarp == 0)
    return UINT_MAX;
  unsigned WarpsPerSub = (A.RegistersPerSM / SubPartitions) / PerWarp;
  return WarpsPerSub * SubPartitions / Warps;
}

OccupancyResult computeOccupancy(const ArchLimits &A, const OccupancyInput &In) {
  OccupancyResult R;
  R.MaxWarpsPerSM = A.maxWarpsPerSM();
  if (In.ThreadsPerBlock == 0) {
    R.Problem = "block size is 0";
    return R;
  }
  if (In.ThreadsPerBlock > A.MaxThreadsPerBlock) {
    R.Problem = std::to_string(In.ThreadsPerBlock) +
                " threads per block exceed the limit of " +
                std::to_string(A.MaxThreadsPerBlock) + " on CC " + A.Cc;
    return R;
  }
  if (In.Registers > A.MaxRegistersPerThread) {
    R.Problem = std::to_string(In.Registers) +
                " registers per thread exceed the limit of " +
                std::to_string(A.MaxRegistersPerThread) + " on CC " + A.Cc;
    return R;
  }
  unsigned Warps = (In.ThreadsPerBlock + A.WarpSize - 1) / A.WarpSize;

  R.BlocksByWarps = A.maxWarpsPerSM() / Warps;
  R.BlocksByBlockLimit = A.MaxBlocksPerSM;

  if (A.RegistersPerWarp) {
    R.BlocksByRegisters = blocksByRegistersPerWarp(
        A, In.Registers, Warps, A.WarpAllocationGranularity,
        R.RegistersPerBlock);
    if (R.BlocksByRegisters && A.HardwareCheckWarpAllocationGranularity) {
      unsigned Ignored;
      if (!blocksByRegistersPerWarp(A, In.Registers, Warps,
                                    A.HardwareCheckWarpAllocationGranularity,
                                    Ignored))
        R.BlocksByRegisters = 0;
    }
  } else {
    // CC 1.x allocates a block's registers at once, for warps rounded up to
    // the warp allocation granularity.
    R.RegistersPerBlock =
        roundUp(roundUp(Warps, A.WarpAllocationGranularity) * A.WarpSize *
                    In.Registers,
                A.RegisterAllocationUnit);
    if (R.RegistersPerBlock > A.RegistersPerBlock)
      R.BlocksByRegisters = 0;
    else
      R.BlocksByRegisters =
          R.RegistersPerBlock ? A.RegistersPerSM / R.RegistersPerBlock
                              : UINT_MAX;
  }

  unsigned long Total = In.SharedBytes + A.SharedReservedPerBlock;
  R.SharedPerBlock = roundUp(Total, A.SharedAllocationUnit);
  // A launch that asks for more than the default per-block limit must have
  // opted in (cudaFuncSetAttribute); otherwise it would not run at all.
  unsigned long Limit = In.SharedBytes > A.SharedPerBlock
                            ? A.SharedPerBlockOptin
                            : A.SharedPerBlock;
  if (A.Major >= 8)
    Limit += A.SharedReservedPerBlock;
  if (R.SharedPerBlock > Limit) {
    R.BlocksBySharedMemory = 0;
  } else if (R.SharedPerBlock == 0) {
    R.BlocksBySharedMemory = UINT_MAX;
  } else {
    unsigned long PerSM = A.SharedPerSM;
    if (!A.SharedConfigs.empty() && PerSM < R.SharedPerBlock) {
      PerSM = A.SharedConfigs.back();
      for (unsigned long C : A.SharedConfigs)
        if (C >= R.SharedPerBlock) {
          PerSM = C;
          break;
        }
    }
    R.BlocksBySharedMemory = PerSM / R.SharedPerBlock;
  }

  R.BlocksPerSM = std::min({R.BlocksByRegisters, R.BlocksBySharedMemory,
                            R.BlocksByWarps, R.BlocksByBlockLimit});
  if (R.BlocksPerSM == 0) {
    if (R.BlocksByRegisters == 0)
      R.Problem = "a block's registers (" + std::to_string(In.Registers) +
                  " per thread) do not fit on CC " + A.Cc;
    else
      R.Problem = "a block's shared memory (" + std::to_string(In.SharedBytes) +
                  " bytes) does not fit on CC " + A.Cc;
    return R;
  }
  R.Launchable = true;
  R.ActiveWarpsPerSM = R.BlocksPerSM * Warps;
  R.Percent = 100.0 * R.ActiveWarpsPerSM / R.MaxWarpsPerSM;
  if (R.BlocksPerSM == R.BlocksByRegisters)
    R.Limiter = OccupancyLimiter::Registers;
  else if (R.BlocksPerSM == R.BlocksBySharedMemory)
    R.Limiter = OccupancyLimiter::SharedMemory;
  else if (R.BlocksPerSM == R.BlocksByWarps)
    R.Limiter = OccupancyLimiter::Warps;
  else
    R.Limiter = OccupancyLimiter::Blocks;
  if (R.ActiveWarpsPerSM == R.MaxWarpsPerSM)
    R.Limiter = OccupancyLimiter::None;
  return R;
}

std::vector<std::pair<unsigned, double>>
registerSteps(const ArchLimits &A, unsigned ThreadsPerBlock,
              unsigned long SharedBytes) {
  std::vector<std::pair<unsigned, double>> Steps;
  for (unsigned Regs = 1; Regs <= A.MaxRegistersPerThread; ++Regs) {
    OccupancyResult R =
        computeOccupancy(A, {Regs, ThreadsPerBlock, SharedBytes});
    double P = R.Launchable ? R.Percent : 0;
    if (!Steps.empty() && Steps.back().second == P)
      Steps.back().first = Regs;
    else
      Steps.push_back({Regs, P});
  }
  return Steps;
}

} // namespace warpwise
