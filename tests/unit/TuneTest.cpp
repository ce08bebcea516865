// rewrite --tune without a GPU: a cached verdict is used as it was
// measured; without one, the execution model decides and a warning says so.
#include "warpwise/Tune.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

using namespace warpwise;

namespace {
TuneRequest request(const std::string &Dir) {
  TuneRequest R;
  R.File = Dir + "/k.cu";
  std::ofstream(R.File) << "__global__ void k(int *p) { p[0] = 1; }\n";
  R.Arch = "sm_90";
  R.RewriteArgs = {"--arch", "sm_90"};
  R.Transforms = {"meld", "fuse", "realloc"};
  R.CachePath = Dir + "/tune.json";
  return R;
}
std::string scratch(const char *Name) {
  std::string Dir =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
      "/warpwise-tune-test-" + Name;
  std::system(("rm -rf '" + Dir + "' && mkdir -p '" + Dir + "'").c_str());
  return Dir;
}
} // namespace

TEST_CASE("tune: a cached verdict is applied without a GPU") {
  std::string Dir = scratch("cached");
  TuneRequest R = request(Dir);
  std::string Text = "__global__ void k(int *p) { p[0] = 1; }\n";
  nlohmann::json Cache = {{"version", 1},
                          {"entries",
                           {{tuneCacheKey(R, Text),
                             {{"original", false},
                              {"meld_form", "merged"},
                              {"transforms", {"meld", "fuse"}},
                              {"gpu", "a test GPU"},
                              {"summary", "kept merged melds (1.50x)"}}}}}};
  std::ofstream(R.CachePath) << Cache.dump();
  DiagnosticLog Log;
  TuneChoice C = tune(R, Log);
  REQUIRE(C.Decided);
  CHECK_FALSE(C.Original);
  CHECK(C.MeldForm == "merged");
  CHECK(C.Transforms == std::vector<std::string>{"meld", "fuse"});
  REQUIRE(Log.all().size() == 1);
  CHECK(Log.all()[0].Id == "WW4010");
  CHECK(Log.all()[0].Message.find("kept merged melds (1.50x)") !=
        std::string::npos);

  // Another arch, other options or another source: not that verdict.
  R.Arch = "sm_80";
  CHECK(tuneCacheKey(R, Text) != Cache["entries"].begin().key());
  R.Arch = "sm_90";
  R.RunArgs = {"24"};
  CHECK(tuneCacheKey(R, Text) != Cache["entries"].begin().key());
  R.RunArgs.clear();
  CHECK(tuneCacheKey(R, Text + " ") != Cache["entries"].begin().key());
}

TEST_CASE("tune: without a GPU or a verdict the model decides") {
  std::string Dir = scratch("nogpu");
  TuneRequest R = request(Dir);
  std::string Saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", Dir.c_str(), 1); // No nvidia-smi there.
  DiagnosticLog Log;
  TuneChoice C = tune(R, Log);
  setenv("PATH", Saved.c_str(), 1);
  CHECK_FALSE(C.Decided);
  REQUIRE(Log.all().size() == 1);
  CHECK(Log.all()[0].Id == "WW1020");
  CHECK(Log.all()[0].Level == Severity::Warning);
  CHECK(Log.all()[0].Message.find("the execution model decides") !=
        std::string::npos);
}
