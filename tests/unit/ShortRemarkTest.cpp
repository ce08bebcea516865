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
  std::string M = "fuse: if-else at line 1 is divergent; a; b; but " +
                  std::string(60, 'c') + " " + std::string(120, 'd') +
                  "; declined";
  std::string T = DiagnosticLog::shortRemark(M);
  CHECK(llvm::StringRef(T).starts_with(
      "fuse: if-else at line 1 is divergent; ...; but cccc"));
  CHECK(llvm::StringRef(T).ends_with(" ...; declined"));
  // Never inside a UTF-8 character.
  std::string Accents = "split: ";
  for (int I = 0; I < 150; ++I)
    Accents += "\xc3\xa9";
  std::string U = DiagnosticLog::shortRemark(Accents);
  CHECK((static_cast<unsigned char>(U[U.size() - 5]) & 0xC0) != 0xC0);
  // A verdict without spaces is cut too; a short form is never longer.
  std::string V =
      "fuse: if-else at line 1 is divergent; a; b; c; " + std::string(300, 'v');
  CHECK(DiagnosticLog::shortRemark(V).size() <= DiagnosticLog::MaxShortRemark);
  std::string W = std::string(60, 'a') + "; b; " + std::string(150, 'c');
  CHECK(DiagnosticLog::shortRemark(W).size() <= W.size());
  // `;` inside backquotes or parentheses does not separate clauses.
  std::string Q = "meld: `a; b` (c; d) " + std::string(200, 'e') + "; applied";
  CHECK(llvm::StringRef(DiagnosticLog::shortRemark(Q)).ends_with("; applied"));
}

TEST_CASE("a short remark keeps the verdict wherever it is said",
          "[diagnostics]") {
  // samples/dec2zero.cu's refill: the verdict is a middle clause, the
  // clauses after it left out.
  std::string Refill =
      "refill: the while loop at line 21 of `dec2zero`: each item's work is "
      "independent (stores only to the item's own element of `v`, no "
      "barrier); declined: the loop only steps `v[x]`, which its condition "
      "tests, so its trip count is known before it runs; the refill's chunk "
      "loop, which tests the condition before the step, makes nvcc store the "
      "stepped value to memory every iteration (--force-transforms applies "
      "it)";
  std::string R = DiagnosticLog::shortRemark(Refill);
  CHECK(llvm::StringRef(R).starts_with(
      "refill: the while loop at line 21 of `dec2zero`: each item's work is "
      "independent"));
  CHECK(R.find("; declined: the loop only steps `v[x]`, which its condition "
               "tests, so its trip count is known before it runs; ...") !=
        std::string::npos);
  CHECK(R.find("the refill's chunk loop") == std::string::npos);
  // One long clause: its start, where the verdict is.
  std::string One =
      "refill: the for loop at line 40 of `lbm_boundary_conditions`: not "
      "refilled: it reads `gridDim.x` at line 37, other than to form the "
      "item, and the refill runs the items on other threads and a smaller "
      "grid of blocks than the launch";
  CHECK(llvm::StringRef(DiagnosticLog::shortRemark(One))
            .starts_with("refill: the for loop at line 40 of "
                         "`lbm_boundary_conditions`: not refilled: it reads"));
  // "subject: why; declined": the why is the subject's clause.
  std::string Split =
      "split: if-else at line 30 of `k`: the adaptive split would apply, but "
      "whether nvcc would fuse the arithmetic differently is read from its "
      "output, and no CUDA toolkit was found (warpwise parses with its stub "
      "header); declined (legal because every launch passes distinct "
      "allocations)";
  CHECK(DiagnosticLog::shortRemark(Split) ==
        "split: if-else at line 30 of `k`: the adaptive split would apply, "
        "but whether nvcc would fuse the arithmetic differently is read from "
        "its output, and no CUDA ...; declined (legal because every launch "
        "passes distinct allocations)");
  // The outcome right after the subject's clause: that clause is the reason
  // (a public kernel's WW3006, cuda-samples cdpBitonicSort.cu).
  std::string Dispatch =
      "dispatch: `big_bitonicsort`: no measured dispatch: it calls "
      "`big_bitonicsort_kernel`, which an earlier transformation rewrote, so "
      "its original would run the rewritten code too; the rewrite runs on "
      "the model's decision alone";
  std::string D = DiagnosticLog::shortRemark(Dispatch);
  CHECK(llvm::StringRef(D).starts_with(
      "dispatch: `big_bitonicsort`: no measured dispatch: it calls "
      "`big_bitonicsort_kernel`, which an earlier transformation rewrote"));
  CHECK(llvm::StringRef(D).ends_with(
      " ...; the rewrite runs on the model's decision alone"));
  // A bare "declined" with no "but": the measure said after the subject.
  std::string Meld = "meld: if-else at line 30 is divergent; similarity 0.10 "
                     "(saves 97 of 964 cost units) is below the threshold "
                     "0.20 (rules/costs.json); " +
                     repeat("1 statement pair merged, 5 kept under guards", 4) +
                     "; declined";
  CHECK(DiagnosticLog::shortRemark(Meld) ==
        "meld: if-else at line 30 is divergent; similarity 0.10 is below the "
        "threshold 0.20; ...; declined");
  // Brackets that do not balance: split at every "; ", the verdict kept.
  std::string Unbalanced =
      "meld: if (x at line 3 " + std::string(200, 'z') + "; more; declined";
  CHECK(llvm::StringRef(DiagnosticLog::shortRemark(Unbalanced))
            .ends_with("; declined"));
}
