#include "warpwise/Occupancy.h"

#include <catch2/catch.hpp>

using namespace warpwise;

static const ArchTable &table() {
  static ArchTable T = [] {
    auto L = ArchTable::load();
    REQUIRE(static_cast<bool>(L));
    return std::move(*L);
  }();
  return T;
}

TEST_CASE("the table covers CC 1.0 through 12.x", "[occupancy]") {
  for (const char *A : {"sm_10", "sm_13", "sm_20", "sm_35", "sm_52", "sm_61",
                        "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                        "sm_90a", "sm_100", "sm_120", "9.0", "compute_75"})
    CHECK(table().find(A) != nullptr);
  CHECK(table().find("sm_999") == nullptr);
  CHECK(table().find("banana") == nullptr);
}

TEST_CASE("G80 facts from the CF'09 paper", "[occupancy]") {
  const ArchLimits &G80 = *table().find("sm_10");
  // 256 threads at 13 registers: 67%; at 10 registers: 100%.
  OccupancyResult R13 = computeOccupancy(G80, {13, 256, 0});
  CHECK(R13.BlocksPerSM == 2);
  CHECK(R13.Percent == Approx(200.0 / 3));
  CHECK(R13.Limiter == OccupancyLimiter::Registers);
  OccupancyResult R10 = computeOccupancy(G80, {10, 256, 0});
  CHECK(R10.Percent == Approx(100.0));
  // 16 SMs x 768 threads = the 12,288-thread limit of a GeForce 8800 GTX.
  CHECK(16 * R10.ActiveWarpsPerSM * G80.WarpSize == 12288);
  // 11 registers no longer fit 768 threads.
  CHECK(computeOccupancy(G80, {11, 256, 0}).Percent < 100.0);
}

TEST_CASE("H100 occupancy steps at 256 threads", "[occupancy]") {
  const ArchLimits &H100 = *table().find("sm_90");
  std::vector<std::pair<unsigned, double>> Steps = registerSteps(H100, 256);
  auto At = [&](unsigned Regs) {
    return computeOccupancy(H100, {Regs, 256, 0}).Percent;
  };
  CHECK(At(32) == 100.0);
  CHECK(At(33) == 75.0);
  CHECK(At(40) == 75.0);
  CHECK(At(48) == 62.5);
  CHECK(At(64) == 50.0);
  CHECK(At(80) == 37.5);
  CHECK(At(128) == 25.0);
  CHECK(At(255) == 12.5);
  REQUIRE(!Steps.empty());
  CHECK(Steps.front() == std::make_pair(32u, 100.0));
}

TEST_CASE("impossible launches are reported, not computed", "[occupancy]") {
  const ArchLimits &T = *table().find("sm_75");
  CHECK_FALSE(computeOccupancy(T, {32, 2048, 0}).Launchable);
  CHECK_FALSE(computeOccupancy(T, {300, 128, 0}).Launchable);
  CHECK_FALSE(computeOccupancy(T, {32, 128, 200 * 1024}).Launchable);
  CHECK_FALSE(computeOccupancy(T, {32, 0, 0}).Launchable);
}

TEST_CASE("a malformed table is an error", "[occupancy]") {
  auto Bad = ArchTable::parse("{\"arches\": [{\"cc\": \"9.0\"}]}");
  REQUIRE_FALSE(static_cast<bool>(Bad));
  llvm::consumeError(Bad.takeError());
  auto NotJson = ArchTable::parse("not json");
  REQUIRE_FALSE(static_cast<bool>(NotJson));
  llvm::consumeError(NotJson.takeError());
}
