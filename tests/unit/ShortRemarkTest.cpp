#include "warpwise/Diagnostics.h"

#include <catch2/catch.hpp>

#include <string>

using namespace warpwise;

namespace {
std::string repeat(const std::string &S, int N) {
  std::string Out;
  for (int I = 0; I < N; ++I)
    Out += (I ? "; " : "") + S;
  return Out;
}
} // namespace

TEST_CASE("a short remark is kept as it is", "[diagnostics]") {
  std::string M = "fission: loop at line 30: the loop calls `__syncthreads` "
                  "(line 47); not split";
  CHECK(DiagnosticLog::shortRemark(M) == M);
}

TEST_CASE("a long remark keeps its subject and its outcome", "[diagnostics]") {
  // The subject without its parenthesised why; the reason before a bare
  // verdict; the clauses between as "...".
  std::string M = "fuse: if-else at line 28 is divergent (`x` (line 3) "
                  "depends on `threadIdx.x`; really); " +
                  repeat("model: 33 -> 15 issue slots, predicted 1.2x", 6) +
                  "; but registers 27 -> 34; declined";
  CHECK(DiagnosticLog::shortRemark(M) ==
        "fuse: if-else at line 28 is divergent; ...; but registers 27 -> 34; "
        "declined");
  // A verdict of several words is the outcome alone.
  std::string N = "share: `k` (launch-uniform `p`); " +
                  repeat("filled by one thread, registers 40 -> 32", 5) +
                  "; declined: no occupancy step is gained";
  CHECK(DiagnosticLog::shortRemark(N) ==
        "share: `k` (launch-uniform `p`); ...; declined: no occupancy step is "
        "gained");
  // A long subject ends at the colon after it.
  std::string R = "realloc: the partner guard `p > tid` at line 32: each pair "
                  "is worked on by one thread as before, in the same barrier "
                  "interval; " +
                  repeat("at 64 threads 164 -> 84 warp-steps", 6) + "; applied";
  CHECK(DiagnosticLog::shortRemark(R) ==
        "realloc: the partner guard `p > tid` at line 32; ...; at 64 threads "
        "164 -> 84 warp-steps; applied");
}

TEST_CASE("a short remark's parts are cut at a word", "[diagnostics]") {
  // One long clause: cut, "..." added.
  std::string One = "split: " + std::string(250, 'a') + " tail";
  std::string S = DiagnosticLog::shortRemark(One);
  CHECK(S.size() <= DiagnosticLog::MaxShortRemark + 4);
  CHECK(llvm::StringRef(S).ends_with(" ..."));
  // A long reason before the verdict is cut; the verdict stays.
  std::string M = "fuse: if-else at line 1 is divergent; a; b; " +
                  std::string(60, 'c') + " " + std::string(120, 'd') +
                  "; declined";
  std::string T = DiagnosticLog::shortRemark(M);
  CHECK(llvm::StringRef(T).starts_with(
      "fuse: if-else at line 1 is divergent; ...; cccc"));
  CHECK(llvm::StringRef(T).ends_with(" ...; declined"));
  // `;` inside backquotes or parentheses does not separate clauses.
  std::string Q = "meld: `a; b` (c; d) " + std::string(200, 'e') + "; applied";
  CHECK(llvm::StringRef(DiagnosticLog::shortRemark(Q)).ends_with("; applied"));
}
