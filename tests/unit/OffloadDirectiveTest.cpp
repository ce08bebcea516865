// offload's directive model on its own: canonical loop headers, the clauses
// of a directive, the nest it covers and what each variable becomes.
#include "OffloadTestSupport.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace offload_test;
using namespace warpwise::offload;

namespace {

/// The for loops of function \p Name, in source order.
std::vector<const clang::ForStmt *> loopsOf(Parsed &In, llvm::StringRef Name) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    std::vector<const clang::ForStmt *> Found;
    bool VisitForStmt(clang::ForStmt *F) {
      Found.push_back(F);
      return true;
    }
  } F;
  F.TraverseDecl(const_cast<clang::FunctionDecl *>(In.function(Name)));
  return F.Found;
}

std::string text(Parsed &In, const clang::Expr *E) {
  return E ? normalised(In.ctx(), E) : "";
}

KernelPlan planOf(Parsed &In, llvm::StringRef Function, bool &Read) {
  KernelPlan P;
  FunctionData Fn;
  Read = readFirstPlan(In, Function, P, Fn);
  return P;
}

} // namespace

TEST_CASE(
    "offload directive: canonical loop headers: bounds, direction and step",
    "[offload][directive]") {
  auto In = parse(R"(
void f(int n) {
  int i;
  for (int i = 0; i < n; i++) {}
  for (i = n - 1; i >= 0; i--) {}
  for (int i = 0; i != n; ++i) {}
  for (int i = 0; n > i; i += 2) {}
  for (int i = 1; i <= n; i = i + 4) {}
}
)");
  auto Loops = loopsOf(*In, "f");
  REQUIRE(Loops.size() == 5);
  std::string Why;
  LoopLevel L;
  REQUIRE(readCanonicalLoop(*In->Src, Loops[0], L, Why));
  CHECK(L.Var->getName() == "i");
  CHECK(text(*In, L.Lb) == "0");
  CHECK(text(*In, L.Ub) == "n");
  CHECK(L.Cmp == clang::BO_LT);
  CHECK(L.UnitStep);
  CHECK_FALSE(L.Decreasing);
  CHECK(L.Step == nullptr);

  L = LoopLevel();
  REQUIRE(readCanonicalLoop(*In->Src, Loops[1], L, Why));
  CHECK(text(*In, L.Lb) == "n-1");
  CHECK(L.Cmp == clang::BO_GE);
  CHECK(L.Decreasing);
  CHECK(L.UnitStep);

  // `!=` with a unit step counts as `<` (or `>` going down).
  L = LoopLevel();
  REQUIRE(readCanonicalLoop(*In->Src, Loops[2], L, Why));
  CHECK(L.Cmp == clang::BO_LT);

  // `n > i` is read as `i < n`; a constant step of 2 is not a unit step.
  L = LoopLevel();
  REQUIRE(readCanonicalLoop(*In->Src, Loops[3], L, Why));
  CHECK(L.Cmp == clang::BO_LT);
  CHECK(text(*In, L.Ub) == "n");
  CHECK(text(*In, L.Step) == "2");
  CHECK_FALSE(L.UnitStep);

  L = LoopLevel();
  REQUIRE(readCanonicalLoop(*In->Src, Loops[4], L, Why));
  CHECK(L.Cmp == clang::BO_LE);
  CHECK(text(*In, L.Step) == "4");
}

TEST_CASE("offload directive: loop headers that are not canonical say why",
          "[offload][directive]") {
  auto In = parse(R"(
void f(int n, double *p, double *e) {
  for (int i = 0; i < n; i *= 2) {}
  for (int i = 0; i < n; i--) {}
  for (int i = 0; i < n; i++) { n--; }
  for (double *q = p; q < e; q++) {}
  for (int i = 0, j = 0; i < n; i++) {}
  for (int i = 0; i != n; i += 2) {}
}
)");
  auto Loops = loopsOf(*In, "f");
  REQUIRE(Loops.size() == 6);
  auto Why = [&](size_t K) {
    LoopLevel L;
    std::string W;
    CHECK_FALSE(readCanonicalLoop(*In->Src, Loops[K], L, W));
    return W;
  };
  CHECK(Why(0) == "the loop at line 3 is not in the canonical form: its "
                  "increment is not 'i++', 'i--', 'i += step' or 'i = i + "
                  "step'");
  CHECK(Why(1) == "the loop at line 4 is not in the canonical form: its step "
                  "goes away from its bound");
  CHECK(Why(2) == "the loop at line 5 is not in the canonical form: its body "
                  "changes 'n', which its header uses");
  CHECK(Why(3) == "the loop at line 6 is not in the canonical form: its "
                  "variable 'q' is not an integer (pointers and iterators "
                  "are not supported)");
  CHECK(Why(4) == "the loop at line 7 is not in the canonical form: it "
                  "declares several variables");
  CHECK(Why(5) == "the loop at line 8 is not in the canonical form: '!=' is "
                  "supported with a unit step only");
}

TEST_CASE("offload directive: clauses: private, firstprivate, reductions, maps "
          "and notes",
          "[offload][directive]") {
  auto In = parse(R"(
void f(int n, double *a, double *b) {
  double s = 0;
  float m = 0;
  int lo = 0, t, k = 3;
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n]) reduction(+:s) reduction(max:m) reduction(min:lo) private(t) firstprivate(k) schedule(static) num_teams(4)
  for (int i = 0; i < n; i++) {
    t = i * k;
    b[i] = a[i] + t;
    s += a[i];
    m = m > a[i] ? m : (float)a[i];
    lo = lo < i ? lo : i;
  }
}
)");
  auto Ds = In->directives();
  REQUIRE(Ds.size() == 1);
  KernelPlan P;
  P.Directive = Ds[0];
  REQUIRE(readDirectiveHead(*In->Src, P));
  CHECK(P.Line == 6);
  CHECK(P.Column == 1);
  CHECK(llvm::StringRef(P.PragmaText)
            .starts_with("#pragma omp target teams distribute parallel for "
                         "map(to: a[0:n])"));
  const clang::OMPLoopDirective *Loop = nullptr;
  std::vector<const clang::OMPClause *> Clauses;
  REQUIRE(selectLoop(P, Loop, Clauses) == LoopForm::Loop);
  CHECK(Loop == Ds[0]);
  ClauseSet C;
  REQUIRE(readClauses(In->ctx(), Clauses, P, C));
  CHECK(C.Collapse == 1);
  REQUIRE(C.Private.size() == 1);
  CHECK((*C.Private.begin())->getName() == "t");
  REQUIRE(C.Firstprivate.size() == 1);
  CHECK((*C.Firstprivate.begin())->getName() == "k");
  std::map<std::string, MapKind> Kinds;
  for (auto [V, K] : C.MapKinds)
    Kinds[V->getNameAsString()] = K;
  CHECK(Kinds == std::map<std::string, MapKind>{{"a", MapKind::To},
                                                {"b", MapKind::From}});
  CHECK(C.MapSection.size() == 2);
  REQUIRE(P.Reductions.size() == 3);
  CHECK(P.Reductions[0].Var->getName() == "s");
  CHECK(P.Reductions[0].Op == "ww_omp_plus");
  CHECK(P.Reductions[0].Identity == "(double)0");
  CHECK(P.Reductions[1].Op == "ww_omp_max");
  CHECK(P.Reductions[1].Identity == "(float)-FLT_MAX");
  CHECK(P.Reductions[2].Op == "ww_omp_min");
  CHECK(P.Reductions[2].Identity == "(int)INT_MAX");
  REQUIRE(P.Notes.size() == 2);
  CHECK(P.Notes[0] == "'schedule(static)' has no GPU counterpart: each "
                      "iteration is one thread, and the hardware schedules "
                      "the blocks");
  CHECK(P.Notes[1] ==
        "'num_teams' is ignored: the grid has one thread per iteration");
}

TEST_CASE(
    "offload directive: clauses and directives that keep a loop on the host",
    "[offload][directive]") {
  auto In = parse(R"(
void f(int n, double *a) {
  int x = 0;
#pragma omp parallel for reduction(&:x)
  for (int i = 0; i < n; i++) x &= i;
#pragma omp parallel for lastprivate(x)
  for (int i = 0; i < n; i++) x = i;
#pragma omp parallel for collapse(4)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        for (int l = 0; l < n; l++) a[i] = 0;
#pragma omp parallel
  {
#pragma omp single
    a[0] = 1;
  }
}
)");
  auto Ds = In->directives();
  REQUIRE(Ds.size() == 5);
  auto Refusal = [&](const clang::OMPExecutableDirective *D) {
    KernelPlan P;
    P.Directive = D;
    REQUIRE(readDirectiveHead(*In->Src, P));
    const clang::OMPLoopDirective *Loop = nullptr;
    std::vector<const clang::OMPClause *> Clauses;
    LoopForm Form = selectLoop(P, Loop, Clauses);
    if (Form == LoopForm::Loop) {
      ClauseSet C;
      CHECK_FALSE(readClauses(In->ctx(), Clauses, P, C));
    }
    if (Form == LoopForm::Group)
      return std::string("(group)");
    return P.Refusal;
  };
  // Clang names the operator "operator&" (as the output has said so far).
  CHECK(Refusal(Ds[0]) == "'reduction(operator&:...)' is not supported (+, "
                          "-, *, min and max are)");
  CHECK(Refusal(Ds[1]) == "the clause 'lastprivate' is not supported");
  CHECK(Refusal(Ds[2]) ==
        "collapse(4) is deeper than a grid's three dimensions");
  // A parallel region that is not one loop is planned as a group of loops.
  CHECK(Refusal(Ds[3]) == "(group)");
  KernelPlan Single;
  Single.Directive = Ds[4];
  REQUIRE(readDirectiveHead(*In->Src, Single));
  const clang::OMPLoopDirective *Loop = nullptr;
  std::vector<const clang::OMPClause *> Clauses;
  CHECK(selectLoop(Single, Loop, Clauses) == LoopForm::Refused);
  CHECK(Single.Refusal ==
        "'omp single' is not an offloadable loop (parallel for, parallel + "
        "for, target teams distribute parallel for)");
}

TEST_CASE(
    "offload directive: a parallel region around one for takes both's clauses",
    "[offload][directive]") {
  auto In = parse(R"(
void f(int n, double *a) {
  double s = 0;
#pragma omp parallel num_threads(8)
#pragma omp for reduction(+:s)
  for (int i = 0; i < n; i++) s += a[i];
}
)");
  auto Ds = In->directives();
  REQUIRE(Ds.size() == 2);
  KernelPlan P;
  P.Directive = Ds[0];
  REQUIRE(readDirectiveHead(*In->Src, P));
  const clang::OMPLoopDirective *Loop = nullptr;
  std::vector<const clang::OMPClause *> Clauses;
  REQUIRE(selectLoop(P, Loop, Clauses) == LoopForm::Loop);
  CHECK(Loop == Ds[1]);
  ClauseSet C;
  REQUIRE(readClauses(In->ctx(), Clauses, P, C));
  REQUIRE(P.Reductions.size() == 1);
  CHECK(P.Notes.size() == 1);
}

TEST_CASE("offload directive: the nest: collapsed loops, rectangular or not",
          "[offload][directive]") {
  auto In = parse(R"(
void rect(int n, int m, double a[100][100]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j] = i + j;
}
void tri(int n, double a[100][100]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      a[i][j] = 0;
}
void imperfect(int n, double a[100][100]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++) {
    a[i][0] = 1;
    for (int j = 0; j < n; j++)
      a[i][j] = 0;
  }
}
)");
  bool Read = false;
  KernelPlan P = planOf(*In, "rect", Read);
  REQUIRE(Read);
  REQUIRE(P.Levels.size() == 2);
  CHECK(P.Levels[0].Var->getName() == "i");
  CHECK(P.Levels[1].Var->getName() == "j");
  CHECK(P.Body == P.Levels[1].For->getBody());
  KernelPlan T = planOf(*In, "tri", Read);
  CHECK_FALSE(Read);
  CHECK(T.Refusal == "the collapsed nest is not rectangular: the bounds of "
                     "'j' use 'i'");
  KernelPlan I = planOf(*In, "imperfect", Read);
  CHECK_FALSE(Read);
  CHECK(I.Refusal == "collapse(2) needs perfectly nested loops");
}

TEST_CASE("offload directive: what each variable of the nest becomes",
          "[offload][directive]") {
  auto In = parse(R"(
void *malloc(unsigned long);
struct params { double scale; int shift; };
void ok(int n, struct params pr, double b[64]) {
  double *a = malloc(n * sizeof(double));
  double t;
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++) {
    t = b[i % 64] * pr.scale;
    a[i] = t + pr.shift;
  }
}
void race(int n, double *a) {
  double last = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) last = a[i];
}
void param(int n, double *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}
)");
  bool Read = false;
  KernelPlan P = planOf(*In, "ok", Read);
  INFO(P.Refusal);
  REQUIRE(Read);
  CHECK(names(P.Private) == std::vector<std::string>{"t"});
  // In the order of their first mention: the bound first.
  CHECK(names(P.ByValue) == std::vector<std::string>{"n", "pr"});
  REQUIRE(P.Arrays.size() == 2);
  CHECK(P.Arrays[0].Name == "b");
  CHECK(P.Arrays[0].ExtentFrom == "its declaration");
  CHECK(P.Arrays[0].Count == "(64)");
  CHECK_FALSE(P.Arrays[0].Written);
  CHECK(P.Arrays[1].Name == "a");
  CHECK(P.Arrays[1].Written);
  CHECK(P.Arrays[1].ExtentFrom == "its malloc at line 5");
  CHECK(P.Arrays[1].Count == "ww_extent_a");
  CHECK(P.Arrays[1].CaptureText == "(n)");

  KernelPlan R = planOf(*In, "race", Read);
  CHECK_FALSE(Read);
  CHECK(R.Refusal == "the shared scalar 'last' is written by every iteration "
                     "(a data race; make it private or a reduction)");
  KernelPlan Q = planOf(*In, "param", Read);
  CHECK_FALSE(Read);
  CHECK(Q.Refusal == "the extent of 'a' is unknown: it is a pointer "
                     "parameter, and 'param' may be called from other files "
                     "(declare it static, or pass --whole-program if this "
                     "file is the whole program); give it with a map clause: "
                     "'#pragma omp "
                     "target teams distribute parallel for map(tofrom: "
                     "a[0:n])'");
}

TEST_CASE("offload directive: atomic updates: a scalar's are a reduction, an "
          "element's stay "
          "atomic",
          "[offload][directive]") {
  auto In = parse(R"(
void f(int h[16], const int key[64]) {
  int count = 0;
#pragma omp parallel for
  for (int i = 0; i < 64; i++) {
#pragma omp atomic
    h[key[i] % 16] += 1;
#pragma omp atomic
    count++;
  }
}
void mixed(int n) {
  int count = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    count += i;
    if (count > 3) {}
  }
}
)");
  bool Read = false;
  KernelPlan P = planOf(*In, "f", Read);
  INFO(P.Refusal);
  REQUIRE(Read);
  REQUIRE(P.Atomics.size() == 2);
  CHECK(P.Atomics[0].Element);
  CHECK(P.Atomics[0].Var->getName() == "h");
  CHECK_FALSE(P.Atomics[1].Element);
  REQUIRE(P.Reductions.size() == 1);
  CHECK(P.Reductions[0].Var->getName() == "count");
  CHECK(P.Reductions[0].Identity == "(int)0");
  REQUIRE(P.Notes.size() == 1);
  CHECK(llvm::StringRef(P.Notes[0])
            .starts_with("the atomic updates of 'count' are a sum"));
  KernelPlan M = planOf(*In, "mixed", Read);
  CHECK_FALSE(Read);
  CHECK(M.Refusal ==
        "'count' is updated atomically and also used otherwise in the loop");
}

TEST_CASE("offload directive: calls: functions of the file run on the device, "
          "host globals do "
          "not",
          "[offload][directive]") {
  auto In = parse(R"(
double sqrt(double);
int G;
static double sq(double x) { return x * x; }
static double norm(double x) { return sqrt(sq(x)); }
static double global(double x) { return x + G; }
void ok(int n, double a[64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++) a[i] = norm(a[i]);
}
void bad(int n, double a[64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++) a[i] = global(a[i]);
}
)");
  bool Read = false;
  KernelPlan P = planOf(*In, "ok", Read);
  INFO(P.Refusal);
  REQUIRE(Read);
  // norm and the sq it calls (sqrt is CUDA's own).
  std::set<std::string> Names;
  for (const clang::FunctionDecl *F : P.DeviceFunctions)
    Names.insert(F->getNameAsString());
  CHECK(Names == std::set<std::string>{"norm", "sq"});
  KernelPlan B = planOf(*In, "bad", Read);
  CHECK_FALSE(Read);
  CHECK(B.Refusal ==
        "the loop calls 'global', which reads the global 'G' (host memory)");
}

TEST_CASE("offload directive: what device code cannot have in the nest",
          "[offload][directive]") {
  auto In = parse(R"(
void ptr(double (*f)(double), double a[64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++)
    a[i] = f(a[i]);
}
void crit(double a[64]) {
#pragma omp parallel for
  for (int i = 0; i < 64; i++) {
#pragma omp critical
    a[0] += 1;
  }
}
void bound(int n, double a[64]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < n; j++)
      n = a[j];
}
)");
  bool Read = true;
  KernelPlan P = planOf(*In, "ptr", Read);
  CHECK_FALSE(Read);
  CHECK(P.Refusal == "the loop calls through a pointer (line 5)");
  KernelPlan C = planOf(*In, "crit", Read);
  CHECK_FALSE(Read);
  CHECK(C.Refusal == "the loop contains '#pragma omp critical' (line 10)");
  KernelPlan B = planOf(*In, "bound", Read);
  CHECK_FALSE(Read);
  CHECK(B.Refusal == "the loop at line 17 is not in the canonical form: its "
                     "body changes 'n', which its header uses");
}
