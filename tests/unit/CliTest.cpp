#include "warpwise/Cli.h"
#include "warpwise/Embedded.h"

#include <catch2/catch.hpp>

using namespace warpwise;

TEST_CASE("suggestions are the closest known word, when close", "[cli]") {
  std::vector<std::string> Known = {"--diff", "--out-dir", "--transforms",
                                    "-o"};
  CHECK(closestMatch("--difff", Known) == "--diff");
  CHECK(closestMatch("--outdir", Known) == "--out-dir");
  CHECK(closestMatch("--transform", Known) == "--transforms");
  CHECK(closestMatch("--frobnicate", Known).empty());
  // Short words are near everything: nothing is suggested.
  CHECK(closestMatch("-x", Known).empty());
  CHECK(unknownCommandMessage("rewirte") ==
        "unknown command 'rewirte'; did you mean 'rewrite'?");
  CHECK(unknownOptionMessage("--transform=fuse", Command::Rewrite) ==
        "unknown option '--transform=fuse'; did you mean '--transforms'?");
}

TEST_CASE("the diagnostics table is read by its header's columns", "[cli]") {
  auto Docs = parseDiagnosticTable("text\n"
                                   "| id | severity | when | what you can do "
                                   "| evidence |\n"
                                   "|---|---|---|---|---|\n"
                                   "| WW1001 | error | a | b | c |\n"
                                   "| WW1002 | error | d | e | f |\n"
                                   "| WW2001 | remark | g | h | i |\n");
  REQUIRE(Docs.size() == 3);
  CHECK(Docs[1].Id == "WW1002");
  CHECK(Docs[1].WhatToDo == "e");
  CHECK(Docs[2].Evidence == "i");
  CHECK(idRanges(Docs) == "WW1001-WW1002, WW2001");
}

TEST_CASE("every id in the embedded docs/diagnostics.md has all fields",
          "[cli]") {
  const char *Markdown = findEmbeddedFile("diagnostics.md");
  REQUIRE(Markdown);
  auto Docs = parseDiagnosticTable(Markdown);
  CHECK(Docs.size() >= 30);
  for (const DiagnosticDoc &D : Docs) {
    INFO(D.Id);
    CHECK(!D.Severity.empty());
    CHECK(!D.When.empty());
    CHECK(!D.WhatToDo.empty());
    CHECK(!D.Evidence.empty());
  }
}

TEST_CASE("options a command does not read are usage errors", "[cli]") {
  Options Opts;
  Opts.Cmd = Command::Analyze;
  Opts.Given = {"--arch", "--diff"};
  CHECK(checkOptionsApply(Opts) ==
        "'--diff' is an option of 'warpwise rewrite' and 'warpwise offload', "
        "not of 'warpwise analyze'");
  Opts.Cmd = Command::Occupancy;
  Opts.Given = {"--regs", "-j"};
  CHECK(checkOptionsApply(Opts) ==
        "'-j' is an option of 'warpwise analyze' and 'warpwise rewrite', not "
        "of 'warpwise occupancy'");
  Opts.Cmd = Command::Rewrite;
  Opts.Given = {"--block-size", "-i", "--fmad=false", "-k"};
  CHECK(checkOptionsApply(Opts).empty());
  // offload reads its own options and the front door's, not rewrite's.
  Opts.Cmd = Command::Offload;
  Opts.Given = {"-o", "--no-rewrite", "--report", "--", "-q"};
  CHECK(checkOptionsApply(Opts).empty());
  Opts.Given = {"--transforms"};
  CHECK(checkOptionsApply(Opts) ==
        "'--transforms' is an option of 'warpwise rewrite', not of 'warpwise "
        "offload'");
}
