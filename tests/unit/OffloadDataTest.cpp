// offload's data planner on its own: the extents of arrays (declarations,
// mallocs, map sections), the proof that a loop writes an array in full, and
// the data regions with their copy-in and copy-out decisions.
#include "OffloadTestSupport.h"
#include "offload/CallerExtents.h"

using namespace offload_test;
using namespace warpwise::offload;

namespace {

const char *Decls = R"(
void *malloc(unsigned long);
void *calloc(unsigned long, unsigned long);
void free(void *);
)";

std::string withDecls(const char *Code) { return std::string(Decls) + Code; }

const clang::VarDecl *param(Parsed &In, llvm::StringRef F, unsigned K) {
  return In.function(F)->getParamDecl(K);
}

} // namespace

TEST_CASE("offload data: extents from declarations keep the program's spelling",
          "[offload][data]") {
  auto In = parse(R"(
#define N 10
#define M 20
double g[N][M];
void f(double a[N][M], double (*p)[M], double **pp) {}
)");
  FunctionData Fn;
  Fn.reset(In->ctx(), In->function("f"));
  ExtentPlanner X(*In->Src, Fn);
  KernelPlan P;
  MappedArray A;
  REQUIRE(X.mapArray(P, param(*In, "f", 0), A));
  CHECK(A.ExtentFrom == "its declaration");
  CHECK(A.Count == "(N)");
  CHECK(A.Dim0Value == 10);
  CHECK(A.InnerDims == std::vector<std::string>{"M"});
  MappedArray B;
  REQUIRE(X.mapArray(P, param(*In, "f", 1), B));
  CHECK(B.Count.empty()); // A pointer: its extent comes from elsewhere.
  CHECK(B.InnerDims == std::vector<std::string>{"M"});
  MappedArray C;
  CHECK_FALSE(X.mapArray(P, param(*In, "f", 2), C));
  CHECK(P.Refusal == "'pp' is a pointer to pointers: its rows are separate "
                     "host allocations, which are not mapped");
}

TEST_CASE("offload data: extents from the one malloc of a pointer",
          "[offload][data]") {
  auto In = parse(withDecls(R"(
void elems(int n) {
  double *a = malloc(n * sizeof(double));
  int *c = calloc(n, sizeof(int));
  char *b = malloc(n + 16);
#pragma omp parallel for
  for (int i = 0; i < n; i++) { a[i] = i; c[i] = i; b[i] = 0; }
}
void twice(int n, int again) {
  double *a = malloc(n * sizeof(double));
  if (again)
    a = malloc(2 * n * sizeof(double));
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = i;
}
void late(int n) {
  double *a;
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = i;
  a = malloc(n * sizeof(double));
}
void moved(int n) {
  double *a = malloc(n * sizeof(double));
  a++;
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = i;
}
void nested(int n, int c) {
  double *a;
  if (c)
    a = malloc(n * sizeof(double));
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = i;
}
)"));
  KernelPlan P;
  FunctionData Fn;
  INFO(P.Refusal);
  REQUIRE(readFirstPlan(*In, "elems", P, Fn));
  REQUIRE(P.Arrays.size() == 3);
  const MappedArray &A = P.Arrays[0], &C = P.Arrays[1], &B = P.Arrays[2];
  CHECK(A.Name == "a");
  CHECK(A.ExtentFrom == "its malloc at line 7");
  CHECK(A.Count == "ww_extent_a");
  CHECK(A.CaptureText == "(n)");
  // The count is captured right after the malloc's statement.
  CHECK(In->Code.substr(A.CaptureAt - 2, 2) == ");");
  CHECK(C.CaptureText == "(n)");
  CHECK(B.CaptureText == "((n + 16) / sizeof(*b))");
  CHECK(B.CountExpr == nullptr);

  auto Refusal = [&](llvm::StringRef F) {
    KernelPlan Q;
    FunctionData G;
    CHECK_FALSE(readFirstPlan(*In, F, Q, G));
    return Q.Refusal;
  };
  const char *Hint = "; give it with a map clause: '#pragma omp target teams "
                     "distribute parallel for map(tofrom: a[0:n])'";
  CHECK(Refusal("twice") == std::string("the extent of 'a' is unknown: it is "
                                        "assigned more than once in 'twice'") +
                                Hint);
  // `a++` moves it off the malloc: copying n elements from there would
  // reach past the allocation.
  CHECK(Refusal("moved") == std::string("the extent of 'a' is unknown: it is "
                                        "assigned more than once in 'moved'") +
                                Hint);
  CHECK(Refusal("late") ==
        std::string("the extent of 'a' is unknown: its malloc comes after the "
                    "loop") +
            Hint);
  CHECK(Refusal("nested") ==
        std::string("the extent of 'a' is unknown: its malloc is not in a "
                    "block that contains the loop") +
            Hint);
}

TEST_CASE("offload data: extents from map sections", "[offload][data]") {
  auto In = parse(R"(
void f(int n, double *a, double *b) {
#pragma omp target teams distribute parallel for map(tofrom: a[2:n]) map(to: b[0:n+2])
  for (int i = 0; i < n; i++) a[i + 2] = b[i] + b[i + 2];
}
)");
  KernelPlan P;
  FunctionData Fn;
  INFO(P.Refusal);
  REQUIRE(readFirstPlan(*In, "f", P, Fn));
  REQUIRE(P.Arrays.size() == 2);
  CHECK(P.Arrays[0].Name == "a");
  CHECK(P.Arrays[0].Offset == "(2)");
  CHECK(P.Arrays[0].Count == "(n)");
  CHECK(P.Arrays[0].ExtentFrom == "its map clause");
  CHECK(P.Arrays[0].Map == MapKind::ToFrom);
  CHECK(P.Arrays[1].Offset == "0");
  CHECK(P.Arrays[1].Count == "(n+2)");
  CHECK(P.Arrays[1].Map == MapKind::To);
}

TEST_CASE(
    "offload data: a loop writes an array in full only over its whole extent",
    "[offload][data]") {
  auto In = parse(R"(
#define N 64
void full(double a[N], double b[N], double c[N], double d[N], double e[N]) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    a[i] = 1;
    b[i] += 1;
    if (i % 2)
      c[i] = 1;
    else
      c[i] = 2;
    d[i] = d[i] + 1;
    if (i > 3)
      e[i] = 0;
  }
}
void part(double a[N]) {
#pragma omp parallel for
  for (int i = 1; i < N; i++) a[i] = 0;
}
)");
  FunctionPlanner F(*In, "full");
  REQUIRE(F.Regions.size() == 1);
  KernelPlan &P = F.at(4);
  REQUIRE(P.Refusal.empty());
  std::map<std::string, bool> Full;
  for (const MappedArray &A : P.Arrays)
    Full[A.Name] = A.WrittenInFull;
  CHECK(
      Full ==
      std::map<std::string, bool>{
          {"a", true}, {"b", false}, {"c", true}, {"d", false}, {"e", false}});
  FunctionPlanner G(*In, "part");
  REQUIRE(G.at(18).Arrays.size() == 1);
  CHECK_FALSE(G.at(18).Arrays[0].WrittenInFull);
}

TEST_CASE("offload data: consecutive loops share a region; host code that "
          "reads ends it",
          "[offload][data]") {
  auto In = parse(withDecls(R"(
double data(int n, int steps) {
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  double *tmp = malloc(n * sizeof(double));
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      tmp[i] = a[i] * 0.5;
#pragma omp parallel for
    for (int i = 1; i < n; i++)
      a[i] = tmp[i] + tmp[i - 1];
  }
  double first = a[0];
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    b[i] = a[i] + first;
  double r = b[n - 1];
  free(a);
  free(b);
  free(tmp);
  return r;
}
)"));
  FunctionPlanner F(*In, "data");
  REQUIRE(F.Regions.size() == 2);
  const Region &Loop = F.Regions[0];
  REQUIRE(Loop.Units.size() == 1);
  CHECK(Loop.Units[0].InLoop);
  CHECK(Loop.Units[0].Kernels.size() == 2);
  CHECK(Loop.Index == 1);
  CHECK(names(Loop.Arrays) == std::vector<std::string>{"tmp", "a"});
  // Inside the time loop the kernels keep the data: tmp is written in full
  // first, and a host loop that may run zero times does not matter for an
  // array the host never reads.
  CHECK(copies(Loop, "tmp") == "device");
  CHECK(why(Loop, "tmp") == "not copied in: line 11 writes all of it first; "
                            "not copied out: the host never reads it "
                            "afterwards");
  CHECK(copies(Loop, "a") == "in+out");
  const Region &After = F.Regions[1];
  CHECK(After.Index == 2);
  CHECK(copies(After, "b") == "out");
  CHECK(why(After, "b") == "not copied in: line 19 writes all of it first");
  CHECK(copies(After, "a") == "in");
  CHECK(After.AliasPairs.empty());
}

TEST_CASE(
    "offload data: map clauses steer the copies; unproven arrays are checked",
    "[offload][data]") {
  auto In = parse(R"(
void f(int n, double *a, double *b, double *c) {
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n]) map(alloc: c[0:n])
  for (int i = 0; i < n; i++) {
    if (i % 2)
      b[i] = a[i];
    c[i] = 1;
    a[i] = 0;
  }
}
)");
  FunctionPlanner F(*In, "f");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  CHECK(copies(R, "a") == "in"); // Written but mapped 'to': stays there.
  CHECK(copies(R, "b") == "in+out");
  CHECK(why(R, "b") ==
        "copied in although mapped 'from': the loop at line 3 is not proven "
        "to write every element, and the ones it skips must keep their "
        "values");
  CHECK(copies(R, "c") == "device");
  // Pointer parameters may overlap: every pair with a written array.
  CHECK(R.AliasPairs.size() == 3);
}

TEST_CASE(
    "offload data: buffers the host swaps stay on the device and swap there",
    "[offload][data]") {
  auto In = parse(withDecls(R"(
void step(int n, int steps) {
  double *in = malloc(n * sizeof(double));
  double *out = malloc(n * sizeof(double));
  for (int t = 0; t < steps; t++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    double *tmp = in;
    in = out;
    out = tmp;
  }
  free(in);
  free(out);
}
)"));
  FunctionPlanner F(*In, "step");
  REQUIRE(F.Fn.Swaps.size() == 1);
  CHECK(F.Fn.Swaps[0].A->getName() == "in");
  CHECK(F.Fn.Swaps[0].B->getName() == "out");
  REQUIRE(F.Regions.size() == 1);
  const Region &R = F.Regions[0];
  REQUIRE(R.Units.size() == 1);
  CHECK(R.Units[0].Swaps.size() == 1);
  CHECK(copies(R, "in") == "in+out");
  CHECK(copies(R, "out") == "in+out");
  CHECK(why(R, "out") == "swapped with in by the host loop; the device "
                         "copies swap with them");
}

TEST_CASE("offload data: host statements between loops: inert or not",
          "[offload][data]") {
  auto In = parse(R"(
void f(double *a, double *q, int k) {
  double own[4];
  k = k + 1;
  own[0] = 1;
  q[0] = 1;
  a[1] = 2;
}
)");
  const clang::FunctionDecl *F = In->function("f");
  auto *Body = llvm::cast<clang::CompoundStmt>(F->getBody());
  std::vector<const clang::Stmt *> S(Body->body_begin(), Body->body_end());
  REQUIRE(S.size() == 5);
  std::set<const clang::VarDecl *> Mapped = {F->getParamDecl(0)};
  CHECK(RegionPlanner::inert(S[1], Mapped));
  CHECK(RegionPlanner::inert(S[2], Mapped));       // An array of its own.
  CHECK_FALSE(RegionPlanner::inert(S[3], Mapped)); // q may be a.
  CHECK_FALSE(RegionPlanner::inert(S[4], Mapped));
}

namespace {

/// The extent CallerExtents gives parameter \p K of \p F, or "refused: WHY".
std::string callerCount(Parsed &In, llvm::StringRef F, unsigned K) {
  CallerExtents X(*In.Src);
  CallerCount C;
  std::string Why;
  if (!X.countOf(In.function(F), In.function(F)->getParamDecl(K), C, Why))
    return "refused: " + Why;
  return C.Text;
}

} // namespace

TEST_CASE("offload data: a pointer parameter's extent from every call",
          "[offload][data]") {
  auto In = parse(withDecls(R"(
#define ROWS(r) (r)
static void step(int n, const float *in, float *out) {}
static void deep(float *v, int rows, int cols) {}
static void middle(float *w, int rows, int cols) {
  float *x = w;
  deep(x, rows, cols);
}
static void twosizes(float *v, int n) {}
static void offset(float *v, int n) {}
static void notpassed(float *v) {}
static void changed(float *v, int n) { n = n + 1; }
static void bypointer(float *v, int n) {}
static void (*fp)(float *, int) = bypointer;
static void inbody(float *v, int n) {}
int main(void) {
  int n = 8, m = 3;
  float *a = malloc(sizeof(float) * n * n);
  float *b = malloc(sizeof(float) * n * n);
  step(n, a, b);
  step(n, b, a);
  float *c = calloc(ROWS(n) * m, sizeof(float));
  middle(c, n, m);
  float *d = malloc(m * sizeof(float));
  twosizes(a, n);
  twosizes(d, m);
  offset(a + 1, n);
  notpassed(d);
  changed(d, m);
  int k = 3;
  float *e = malloc(k * sizeof(float));
  k = k + 1;
  inbody(e, k);
  return 0;
}
)"));
  // The size as main computes it, conversions explicit: sizeof(float) * n
  // * n without its sizeof factor.
  CHECK(callerCount(*In, "step", 1) ==
        "(((unsigned long)n) * ((unsigned long)n))");
  CHECK(callerCount(*In, "step", 2) ==
        "(((unsigned long)n) * ((unsigned long)n))");
  // Two calls up, through a copied pointer and a macro's argument.
  CHECK(callerCount(*In, "deep", 0) == "((unsigned long)(rows * cols))");
  CHECK(callerCount(*In, "twosizes", 0) ==
        "refused: its calls pass arrays of different extents ((((unsigned "
        "long)n) * ((unsigned long)n)) and, at line 30, ((unsigned long)n))");
  CHECK(callerCount(*In, "offset", 0) ==
        "refused: the call at line 31 passes 'a + 1', not a variable");
  CHECK(callerCount(*In, "notpassed", 0) ==
        "refused: its size reads 'm', which the call at line 32 does not "
        "pass to 'notpassed'");
  CHECK(callerCount(*In, "changed", 0) ==
        "refused: 'changed' changes its parameter 'n', which the extent "
        "reads");
  CHECK(callerCount(*In, "bypointer", 0) ==
        "refused: 'bypointer' is used other than by direct calls (a "
        "function pointer or a template's call)");
  CHECK(callerCount(*In, "inbody", 0) ==
        "refused: 'k', which the allocation's size reads, is changed at line "
        "36 in 'main'");
}

TEST_CASE("offload data: callers in other files, new[] and a size's macro",
          "[offload][data]") {
  // No main here: another file may call f with any array.
  auto Lib = parse(withDecls(R"(
void f(float *v, int n) {}
void g(int n) { float *a = malloc(n * sizeof(float)); f(a, n); }
)"));
  CHECK(callerCount(*Lib, "f", 0) ==
        "refused: 'f' may be called from other files (declare it static, or "
        "pass --whole-program if this file is the whole program)");
  auto Cpp = parse(R"(
#define SIZE (n * 2)
static void f(float *v, int n) {}
static void h(float *v, int n) {}
int main() {
  int n = 4;
  float *a = new float[n + 1];
  f(a, n);
  float *b = new float[SIZE];
  h(b, n);
  delete[] a;
  delete[] b;
}
)",
                   /*C=*/false);
  CHECK(callerCount(*Cpp, "f", 0) == "((unsigned long)(n + 1))");
  // sizeof(element) divides only the product at the top of the size: n *
  // sizeof(float) + 16 bytes are (4n + 16) / 4 elements, not n + 16.
  auto Sum = parse(withDecls(R"(
static void g(float *v, int n) {}
int main(void) {
  int n = 8;
  float *a = malloc(n * sizeof(float) + 16);
  g(a, n);
  return 0;
}
)"));
  CHECK(callerCount(*Sum, "g", 0) ==
        "(((((unsigned long)n) * 4UL) + 16UL) / 4UL)");
  // A macro's body is read as the AST has it, not copied as text.
  CHECK(callerCount(*Cpp, "h", 0) == "((unsigned long)(n * 2))");

  // Sizes and pointers a reference, a lambda or a reference parameter may
  // change are not followed; nor a function with external linkage.
  auto Alias = parse(R"(
static void byref(float *v, int n) {}
static void captured(float *v, int n) {}
static void refparam(float *v, int n) {}
static void shrink(float *&p) { delete[] p; p = new float[8]; }
void external(float *v, int n) {}
static void fromstatic(float *v, int n) {}
int main() {
  int n = 100, m = 100;
  int &r = n;
  float *a = new float[n];
  r = 1000000;
  byref(a, n);
  auto grow = [&] { m = 1000000; };
  float *b = new float[m];
  grow();
  captured(b, m);
  float *c = new float[n];
  shrink(c);
  refparam(c, n);
  float *d = new float[8];
  external(d, 8);
  static float *e = new float[n];
  fromstatic(e, n);
}
)",
                     /*C=*/false);
  CHECK(callerCount(*Alias, "byref", 0) ==
        "refused: 'n', which the allocation's size reads, is used other than "
        "by value at line 10 in 'main'");
  CHECK(callerCount(*Alias, "captured", 0) ==
        "refused: 'm', which the allocation's size reads, is used other than "
        "by value at line 14 in 'main'");
  CHECK(callerCount(*Alias, "refparam", 0) ==
        "refused: 'c' is used other than by value at line 19 in 'main'");
  // An arm of `?:` is read by value where the conditional is (Rodinia
  // hotspot: `writeoutput((1 & sim_time) ? result : temp, ...)`); bound to a
  // reference or assigned through, it is not.
  auto Arms = parse(R"(
static void step(float *v, int n) {}
static void step2(float *v, int n) {}
static void step3(float *v, int n) {}
static void show(const float *v) {}
int main(int argc, char **argv) {
  int n = 100;
  float *a = new float[n], *b = new float[n];
  step(a, n);
  show(argc > 1 ? a : (argc > 2 ? b : a));
  (argc > 1 ? a : b)[0] = 1;
  float *c = new float[n], *d = new float[n];
  step2(c, n);
  float *&r = argc > 1 ? c : d;
  float *e = new float[n], *f = new float[n];
  step3(e, n);
  (argc > 1 ? e : f) = nullptr;
}
)",
                    /*C=*/false);
  CHECK(callerCount(*Arms, "step", 0) == "((unsigned long)n)");
  CHECK(callerCount(*Arms, "step2", 0) ==
        "refused: 'c' is used other than by value at line 14 in 'main'");
  CHECK(callerCount(*Arms, "step3", 0) ==
        "refused: 'e' is used other than by value at line 17 in 'main'");
  // A static local keeps the first call's allocation.
  CHECK(callerCount(*Alias, "fromstatic", 0) ==
        "refused: 'e' is a global or static pointer");
  CHECK(callerCount(*Alias, "external", 0) ==
        "refused: 'external' may be called from other files (declare it "
        "static, or pass --whole-program if this file is the whole program)");
  // --whole-program: the file's calls are all the calls.
  {
    CallerExtents Whole(*Alias->Src, /*WholeProgram=*/true);
    CallerCount C;
    std::string Why;
    const clang::FunctionDecl *F = Alias->function("external");
    REQUIRE(F);
    CHECK(Whole.countOf(F, F->getParamDecl(0), C, Why));
    CHECK(C.Text == "8UL");
  }

  // A template's calls name its instantiations: not followed.
  auto Tpl = parse(R"(
template <typename T> static void copy(T *dst, int n) {}
int main() {
  float *a = new float[8];
  copy(a, 8);
  delete[] a;
}
)",
                   /*C=*/false);
  const clang::FunctionDecl *Copy = nullptr;
  for (clang::Decl *D : Tpl->ctx().getTranslationUnitDecl()->decls())
    if (auto *T = llvm::dyn_cast<clang::FunctionTemplateDecl>(D))
      Copy = T->getTemplatedDecl();
  REQUIRE(Copy);
  CallerExtents X(*Tpl->Src);
  CallerCount C;
  std::string Why;
  CHECK_FALSE(X.countOf(Copy, Copy->getParamDecl(0), C, Why));
  CHECK(Why == "'copy' is a function template, whose calls are not followed");
}
