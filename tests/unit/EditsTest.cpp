#include "warpwise/Edits.h"

#include <catch2/catch.hpp>

using clang::tooling::Replacement;
using namespace warpwise;

/// True when \p E holds an error; the error is consumed.
static bool failed(llvm::Error E) {
  bool Failed = static_cast<bool>(E);
  llvm::consumeError(std::move(E));
  return Failed;
}

TEST_CASE("edits of one change apply together", "[edits]") {
  EditSet Set;
  Change C{"swap names", {Replacement("f.cu", 0, 3, "xyz"),
                          Replacement("f.cu", 8, 1, "Q")}};
  REQUIRE_FALSE(failed(Set.add(C)));
  auto Out = applyEdits("abc def ghi", Set.forFile("f.cu"));
  REQUIRE(static_cast<bool>(Out));
  CHECK(*Out == "xyz def Qhi");
  CHECK(Set.descriptions() == std::vector<std::string>{"swap names"});
}

TEST_CASE("overlapping changes are refused, naming both", "[edits]") {
  EditSet Set;
  REQUIRE_FALSE(failed(Set.add({"first", {Replacement("f.cu", 4, 3, "DEF")}})));
  llvm::Error E =
      Set.add({"second", {Replacement("f.cu", 10, 1, "!"),
                          Replacement("f.cu", 5, 4, "overlap")}});
  REQUIRE(static_cast<bool>(E));
  std::string Msg = llvm::toString(std::move(E));
  CHECK(Msg.find("'second'") != std::string::npos);
  CHECK(Msg.find("'first'") != std::string::npos);
  // All or nothing: the non-overlapping edit of "second" was not kept either.
  auto Out = applyEdits("abc def ghi", Set.forFile("f.cu"));
  REQUIRE(static_cast<bool>(Out));
  CHECK(*Out == "abc DEF ghi");
}

TEST_CASE("two insertions at one point are an overlap", "[edits]") {
  EditSet Set;
  REQUIRE_FALSE(failed(Set.add({"a", {Replacement("f.cu", 3, 0, "A")}})));
  llvm::Error E = Set.add({"b", {Replacement("f.cu", 3, 0, "B")}});
  CHECK(static_cast<bool>(E));
  llvm::consumeError(std::move(E));
}

TEST_CASE("adjacent edits are not overlaps", "[edits]") {
  EditSet Set;
  REQUIRE_FALSE(failed(Set.add({"a", {Replacement("f.cu", 0, 3, "A")}})));
  REQUIRE_FALSE(failed(Set.add({"b", {Replacement("f.cu", 3, 1, "B")}})));
  auto Out = applyEdits("abc def", Set.forFile("f.cu"));
  REQUIRE(static_cast<bool>(Out));
  CHECK(*Out == "ABdef");
}

TEST_CASE("edits past the end of the file are an error", "[edits]") {
  EditSet Set;
  REQUIRE_FALSE(failed(Set.add({"a", {Replacement("f.cu", 10, 5, "x")}})));
  auto Out = applyEdits("short", Set.forFile("f.cu"));
  REQUIRE_FALSE(static_cast<bool>(Out));
  llvm::consumeError(Out.takeError());
}

TEST_CASE("no edits reproduce the input", "[edits]") {
  EditSet Set;
  std::string Code = "line\r\nwith crlf\n\tand tab, no newline at end";
  auto Out = applyEdits(Code, Set.forFile("f.cu"));
  REQUIRE(static_cast<bool>(Out));
  CHECK(*Out == Code);
}
