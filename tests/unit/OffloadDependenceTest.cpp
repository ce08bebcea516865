// offload's dependence test on its own: small loop nests whose iterations
// touch separate elements (a[i], a[i][j - 1] with a[i][j], a[i * n + j]),
// and ones that may race (a[i + 1] = a[i], a[0], a write through &a[i]);
// and seed 002's loop swap, which asks the same of a row-outer nest.
#include "OffloadTestSupport.h"

using namespace offload_test;
using namespace warpwise::offload;

namespace {

/// The dependence test of the first directive of \p Function: "" when the
/// iterations are independent, else why not.
std::string race(Parsed &In, llvm::StringRef Function) {
  KernelPlan P;
  FunctionData Fn;
  bool Read = readFirstPlan(In, Function, P, Fn);
  INFO(P.Refusal);
  REQUIRE(Read);
  std::string Why;
  if (parallelIndependent(*In.Src, P, Why)) {
    CHECK(Why.empty());
    return "";
  }
  CHECK_FALSE(Why.empty());
  return Why;
}

const char *Nests = R"(
#define N 1000
void copy(double a[N], double b[N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) a[i] = b[i] + 1;
}
void shift(double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < N - 1; i++) a[i + 1] = a[i];
}
void offset(double a[N], double b[N], int c) {
#pragma omp parallel for
  for (int i = 0; i < N - 8; i++) a[i + c] = b[i] * a[i + c];
}
void sum(double a[N], double s[1]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) s[0] += a[i];
}
void rows(double a[N][N], double b[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 1; j < N; j++)
      a[i][j] = a[i][j - 1] + b[i][j];
}
void cols(double a[N][N]) {
#pragma omp parallel for
  for (int j = 0; j < N; j++)
    for (int i = 1; i < N; i++)
      a[i][j] = a[i - 1][j];
}
void collapsed(double a[N][N]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = i * j;
}
void flat(int n, int m, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[i * n + j] = 0;
}
void interior(int n, double a[N]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      a[i * n + j] = 0;
}
void interiorle(int n, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= n - 1; j++)
      a[i * n + j] = 0;
}
void pastrow(int n, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= n; j++)
      a[i * n + j] = 0;
}
void pastrowminus(int n, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= n - 0; j++)
      a[i * n + j] = 0;
}
void castrow(int n, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n - 1; j++)
      a[i * (unsigned char)n + j] = 0;
}
void flatwrong(int n, int m, double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * n + j] = 0;
}
void byaddress(double a[N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double *p = &a[i];
    *p = 1;
  }
}
void atomics(int h[16], const int key[N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    h[key[i] % 16] += 1;
  }
}
void atomicandplain(int h[16]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    h[i % 16] += 1;
    h[0] = 0;
  }
}
)";

} // namespace

TEST_CASE("offload dependence: independent iterations: each owns its elements",
          "[offload][dependence]") {
  auto In = parse(Nests);
  CHECK(race(*In, "copy") == "");
  // a[i + c] in every access: the same position, shifted alike.
  CHECK(race(*In, "offset") == "");
  // Row i is the iteration's own: j - 1 and j stay in it.
  CHECK(race(*In, "rows") == "");
  CHECK(race(*In, "collapsed") == "");
  // Rows i - 1 and i meet in column j, but they are the inner loop's: the
  // parallel j owns the second position.
  CHECK(race(*In, "cols") == "");
  // The flattened a[i * n + j] with j over [0, n).
  CHECK(race(*In, "flat") == "");
  // A stencil's interior, j over [1, n - 1) or [0, n - 1], is inside [0, n)
  // too (collapsed or an inner loop).
  CHECK(race(*In, "interior") == "");
  CHECK(race(*In, "interiorle") == "");
  // Atomic updates may touch any element.
  CHECK(race(*In, "atomics") == "");
}

TEST_CASE("offload dependence: iterations that may race say which access",
          "[offload][dependence]") {
  auto In = parse(Nests);
  CHECK(race(*In, "shift") ==
        "'a' is accessed at [i+1] and at [i] in one iteration: another "
        "iteration may write what this one reads (a dependence or a race)");
  CHECK(race(*In, "sum") == "the loop writes 's' at [0], which is not proven "
                            "to differ between iterations of 'i' (a possible "
                            "race)");
  CHECK(race(*In, "flatwrong") ==
        "the loop writes 'a' at [i*n+j], which is not proven to differ "
        "between iterations of 'i' (a possible race)");
  // A row length cast to a narrower type is not n.
  CHECK(race(*In, "castrow") ==
        "the loop writes 'a' at [i*(unsignedchar)n+j], which is not proven "
        "to differ between iterations of 'i' (a possible race)");
  // j reaching n is the next row's first element.
  CHECK(race(*In, "pastrow") ==
        "the loop writes 'a' at [i*n+j], which is not proven to differ "
        "between iterations of 'i' (a possible race)");
  CHECK(race(*In, "pastrowminus") ==
        "the loop writes 'a' at [i*n+j], which is not proven to differ "
        "between iterations of 'i' (a possible race)");
  CHECK(race(*In, "byaddress") ==
        "the loop writes 'a' other than through full subscripts (a pointer, a "
        "row or a call), so its iterations are not proven independent");
  CHECK(race(*In, "atomicandplain") ==
        "'h' is updated atomically and also accessed otherwise in the loop (a "
        "race between the two)");
}

TEST_CASE("offload dependence: a local index set once before its uses is "
          "read as its value",
          "[offload][dependence]") {
  auto In = parse(R"(
#define M 4096
void assigned(int nr, int nc, float a[M]) {
  int i, j, k;
#pragma omp parallel for private(i, k)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      k = i + nr * j;
      a[k] = a[k] * 2;
    }
}
void declared(int nr, int nc, float a[M]) {
#pragma omp parallel for
  for (int j = 0; j < nc; j++)
    for (int i = 0; i < nr; i++) {
      int k = nr * j + i;
      a[k] = 1;
    }
}
void usedbefore(int nr, int nc, float a[M]) {
  int i, j, k;
#pragma omp parallel for private(i, k)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      a[k] = 0;
      k = i + nr * j;
      a[k] = 1;
    }
}
void inbranch(int nr, int nc, float a[M]) {
  int i, j, k;
#pragma omp parallel for private(i, k)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      if (i > 2) {
        k = i + nr * j;
      }
      a[k] = 1;
    }
}
void fromarray(int nr, int nc, float a[M], int idx[M]) {
  int i, j, k;
#pragma omp parallel for private(i, k)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      k = idx[i + nr * j];
      a[k] = 1;
    }
}
void moving(int nr, int nc, float a[M]) {
  int i, j, k, s;
#pragma omp parallel for private(i, k, s)
  for (j = 0; j < nc; j++)
    for (i = 0; i < nr; i++) {
      s = i;
      k = s + nr * j;
      s = 0;
      a[k] = 1;
    }
}
)");
  CHECK(race(*In, "assigned").empty());
  CHECK(race(*In, "declared").empty());
  // Read before it is set, set in a branch, or set from a variable that
  // changes later in the body: not followed.
  // A value read from memory is not followed (the memory may change
  // before the uses); the message names the local as written.
  CHECK(race(*In, "fromarray") == "the loop writes 'a' at [k], which is not "
                                  "proven to differ between iterations of "
                                  "'j' (a possible race)");
  for (const char *F : {"usedbefore", "inbranch", "moving"}) {
    INFO(F);
    CHECK(race(*In, F) == "the loop writes 'a' at [k], which is not proven "
                          "to differ between iterations of 'j' (a possible "
                          "race)");
  }
}

TEST_CASE("offload dependence: loop swap: a row-outer nest runs its contiguous "
          "loop across "
          "threads",
          "[offload][dependence]") {
  auto In = parse(R"(
#define N 512
void swapped(double a[N][N], double b[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      b[i][j] = 2 * a[i][j];
}
void kept(double a[N][N]) {
  double t;
#pragma omp parallel for private(t)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      t = a[i][j];
      a[i][j] = t * t;
    }
}
void triangle(double a[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++)
      a[i][j] = 0;
}
void carried(double a[N][N]) {
  double t = 0;
#pragma omp parallel for firstprivate(t)
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = t;
      t = a[i][j] + 1;
    }
}
)");
  FunctionPlanner S(*In, "swapped");
  KernelPlan &P = S.at(4);
  REQUIRE(P.Refusal.empty());
  CHECK(P.Swapped);
  REQUIRE(P.Levels.size() == 2);
  CHECK(P.Levels[1].Var->getName() == "j");
  CHECK(P.SwapNote ==
        "loop swap: 'j' (contiguous in memory) now runs across consecutive "
        "threads and 'i' across the grid's y dimension; legal because every "
        "(i, j) iteration touches its own elements");
  // `t`, a private declared outside, is set by the inner body's first
  // statement that mentions it: each (i, j) thread's own.
  FunctionPlanner K(*In, "kept");
  KernelPlan &Q = K.at(11);
  REQUIRE(Q.Refusal.empty());
  CHECK(Q.Swapped);
  CHECK(Q.Levels.size() == 2);
  // `t` read before it is set: it carries a value from one j to the next.
  FunctionPlanner C(*In, "carried");
  KernelPlan &Carried = C.at(26);
  CHECK_FALSE(Carried.Swapped);
  // A lower triangle (j < i): swapped over the rectangle up to the outer
  // loop's last i, N - 1, plus 0; threads with j >= i do nothing.
  FunctionPlanner T(*In, "triangle");
  KernelPlan &R = T.at(19);
  REQUIRE(R.Refusal.empty());
  CHECK(R.Swapped);
  REQUIRE(R.Levels.size() == 2);
  CHECK(R.Levels[1].HullFrom == nullptr);
  CHECK(R.Levels[1].HullUbFrom == R.Levels[0].Ub);
  CHECK(R.Levels[1].HullUbOffset == -1);
  CHECK(R.SwapNote == "loop swap: 'j' (contiguous in memory) now runs across "
                      "consecutive threads and 'i' across the grid's y "
                      "dimension; legal because every (i, j) iteration "
                      "touches its own elements ('j' ends at 'i': the grid "
                      "spans the rectangle around the triangle, and its "
                      "threads outside it do nothing)");
}

TEST_CASE("offload dependence: symmetric writes need an ordered triangle",
          "[offload][dependence]") {
  auto In = parse(R"(
#define N 64
void upper(double s[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = i; j < N; j++) {
      s[i][j] = i;
      s[j][i] = j;
    }
}
void lower(double s[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      s[i][j] = i;
      s[j][i] = j;
    }
}
void beyond(double s[N][N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i + 1; j++)
      s[i][j] = s[j][i];
}
)");
  for (const char *F : {"upper", "lower"}) {
    INFO(F);
    KernelPlan P;
    FunctionData Fn;
    REQUIRE(readFirstPlan(*In, F, P, Fn));
    auto *Inner = llvm::cast<clang::ForStmt>(soleStatement(P.Body));
    LoopLevel J;
    std::string Why;
    REQUIRE(readCanonicalLoop(*In->Src, Inner, J, Why));
    CHECK(swapIndependent(*In->Src, P, P.Levels[0].Var, J.Var, J, Why,
                          /*Ordered=*/true));
    CHECK_FALSE(
        swapIndependent(*In->Src, P, P.Levels[0].Var, J.Var, J, Why, false));
    CHECK(Why == "'s' is accessed at different subscripts ([i][j], ...)");
  }
  // j up to i + 1: (i, i + 1) and (i + 1, i) both write s[i][i + 1]; the
  // loop over i races already, so it stays on the host.
  FunctionPlanner B(*In, "beyond");
  CHECK_FALSE(B.at(20).Refusal.empty());
}

TEST_CASE("offload dependence: swap legality on its own: i and j each alone, "
          "or i * E + j",
          "[offload][dependence]") {
  auto In = parse(R"(
void f(int n, double a[4096], double b[64][64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      a[i * 64 + j] = b[i][j];
      b[i][j] = 0;
    }
}
void g(double b[64][64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      b[j][0] = b[i][j];
}
)");
  KernelPlan P;
  FunctionData Fn;
  REQUIRE(readFirstPlan(*In, "f", P, Fn));
  auto *Inner = llvm::cast<clang::ForStmt>(soleStatement(P.Body));
  LoopLevel J;
  std::string Why;
  REQUIRE(readCanonicalLoop(*In->Src, Inner, J, Why));
  CHECK(swapIndependent(*In->Src, P, P.Levels[0].Var, J.Var, J, Why));
  CHECK(Why.empty());

  KernelPlan G;
  FunctionData Gn;
  REQUIRE(readFirstPlan(*In, "g", G, Gn));
  auto *GInner = llvm::cast<clang::ForStmt>(soleStatement(G.Body));
  LoopLevel GJ;
  REQUIRE(readCanonicalLoop(*In->Src, GInner, GJ, Why));
  CHECK_FALSE(swapIndependent(*In->Src, G, G.Levels[0].Var, GJ.Var, GJ, Why));
  CHECK(Why == "'b' is accessed at different subscripts ([j][0], ...)");
}
