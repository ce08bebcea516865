//===- Offloader.cpp - OpenMP parallel loops to CUDA kernels --------------===//
//
// Seed 002's baseline translation and two of its optimisations, on Clang's
// OpenMP AST:
//
//  * kernel regions: each worksharing loop is one kernel, one thread per
//    iteration (grid-stride beyond the grid's cap); collapse(2|3) gives a
//    2-D/3-D grid whose x runs over the innermost loop;
//  * data mapping: shared arrays become device copies whose extent comes from
//    a map clause, the declaration, or the malloc of the same pointer in the
//    function; scalars are passed by value; private variables are the
//    thread's own; reductions are warp shuffles, a block reduction and one
//    partial per block, combined on the host in block order;
//  * memory-transfer reduction: consecutive offloaded loops (also a host loop
//    whose body is only offloaded loops, such as a time-step loop) share one
//    data region, so an array crosses the bus once in and once out; an array
//    the first kernel writes in full is not copied in, and one the host never
//    looks at afterwards is not copied out;
//  * parallel loop swap: a row-outer nest whose inner index is contiguous is
//    interchanged (and both loops spread over a 2-D grid) when every
//    iteration of the nest touches its own elements.
//
// Whatever cannot be proven stays on the host with a WW5002 saying why.
//
// This file runs the parts in order: per function, the directive model
// (Directive.h) reads each directive as the region planner (DataRegions.h)
// meets it, with the extents (DataExtents.h) and the dependence test
// (Dependence.h); then the kernel emitter (KernelEmitter.h) gives the text
// of every edit, and the edits are applied and formatted at once. The
// decisions (WW5001-WW5006) are said in source order.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Offload.h"

#include "DataExtents.h"
#include "DataRegions.h"
#include "Dependence.h"
#include "Directive.h"
#include "KernelEmitter.h"
#include "OldC.h"
#include "RoundedProducts.h"
#include "RowBlocking.h"
#include "WrittenBox.h"

#include "warpwise/Format.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>
#include <map>
#include <set>

using namespace clang;

namespace warpwise {

namespace {

using namespace offload;

struct Edit {
  unsigned Begin, End;
  std::string Text;
  unsigned Order; ///< Among insertions at one offset, lowest first.
};

/// The orders of the insertions that must come first where they share an
/// offset: the head (includes, renames) before C's prototypes, and both
/// before every other edit (a kernel that calls a prototyped function).
constexpr unsigned HeadOrder = 0, PrototypeOrder = 1, FirstEditOrder = 2;

class Offloader {
public:
  Offloader(ASTContext &Ctx, llvm::StringRef Contents, bool IsC,
            const OffloadOptions &Opts)
      : Src(Ctx, Contents), Ctx(Ctx), IsC(IsC), Opts(Opts),
        Emitter(Src, Opts.BlockSize, Opts.RoundProducts), Device(Ctx),
        Extents(Src, Fn) {
    Src.SplitAfterLines = Opts.SplitAfterLines;
    Extents.setWholeProgram(Opts.WholeProgram);
  }

  OffloadResult run();

private:
  // --- planning -----------------------------------------------------------
  KernelPlan &plan(const OMPExecutableDirective *D);
  void analyseDirective(KernelPlan &P);
  /// --fmad=false: whether \p P's products can be rounded on their own.
  bool roundProducts(KernelPlan &P);
  /// --fmad=false: the products of \p F, a function a kernel calls, can be
  /// rounded where it is defined.
  bool roundable(const FunctionDecl *F) const;
  bool NeedProductFunctions = false;
  void planGroup(KernelPlan &P);
  /// The input with each parallel region of MixedGroups split into one
  /// region per loop (Result.SplitInput); false when none can be.
  bool splitMixedGroups();
  void nameKernel(KernelPlan &P);
  void planFunction(const FunctionDecl *F);
  /// The functions with a body in the main file, in order.
  std::vector<const FunctionDecl *> mainFileFunctions() const;
  /// Plans every function, and the directives its walk did not reach.
  void planFunctions(const std::vector<const FunctionDecl *> &Functions);

  // --- edits and decisions ------------------------------------------------
  void addEdit(unsigned B, unsigned E, std::string T) {
    Edits.push_back(
        {B, E, std::move(T), (unsigned)Edits.size() + FirstEditOrder});
  }
  void decide(const KernelPlan &P, const char *Id, Severity Level,
              std::string Kind, std::string Message);
  /// The element counts of malloc'd arrays, kept where each malloc runs.
  void captureExtents();
  /// The directives of \p R become launches; the region's copies go around.
  void emitRegion(const Region &R,
                  std::set<const OMPExecutableDirective *> &InRegion,
                  std::set<const OMPExecutableDirective *> &Groups);
  /// The WW5005 remark of \p R: what crosses the bus and why.
  std::string dataPlanMessage(const Region &R) const;
  /// Each directive's verdict, in source order.
  void reportVerdicts(const std::set<const OMPExecutableDirective *> &InRegion);
  void reportOffloaded(const KernelPlan &P);
  /// Device copies of the functions the kernels call.
  void annotateDeviceFunctions();
  /// C leaves the conversion from void * implicit; C++ (nvcc) does not.
  void addVoidCasts(const std::vector<const FunctionDecl *> &Functions);
  /// For a C input: macros that keep C's conversions of the arguments of
  /// the <math.h>/<stdlib.h> calls C++ would overload ("" if none).
  std::string cMathMacros(const std::vector<const FunctionDecl *> &Functions);
  /// Macros that rename the program's own types (and make_ functions)
  /// named like CUDA's vector types, which nvcc declares before the file
  /// ("" if none).
  std::string cudaNameMacros() const;
  /// For a C input: its K&R definitions, implicit ints and implicit
  /// declarations said in C++ (OldC.h); the includes that declare the
  /// library functions it called undeclared ("" if none).
  std::string oldC(const std::vector<const FunctionDecl *> &Functions);
  /// The edits as one replacement per offset, formatted and applied to the
  /// input: Result.Output (or Result.InternalError).
  void applyEdits();

  OffloadSource Src;
  ASTContext &Ctx;
  bool IsC;
  OffloadOptions Opts;
  KernelEmitter Emitter;
  DeviceCode Device;
  /// The functions the offloaded loops call, their callees' callees too:
  /// compiled for both sides (not those of loops that stay on the host).
  std::set<const FunctionDecl *> OffloadedCallees;
  FunctionData Fn; ///< The function being planned.
  ExtentPlanner Extents;

  std::map<const OMPExecutableDirective *, KernelPlan> Plans;
  std::vector<Region> Regions;
  std::set<std::string> KernelNames;
  std::vector<Edit> Edits;
  std::vector<std::pair<unsigned, unsigned>> Replaced;
  /// Parallel regions of several loops, some offloadable and some not.
  std::vector<const KernelPlan *> MixedGroups;
  OffloadResult Result;
};

void Offloader::analyseDirective(KernelPlan &P) {
  if (!readDirectiveHead(Src, P))
    return;
  const OMPLoopDirective *Loop = nullptr;
  std::vector<const OMPClause *> Clauses;
  switch (selectLoop(P, Loop, Clauses)) {
  case LoopForm::Refused:
    return;
  case LoopForm::Group:
    planGroup(P);
    return;
  case LoopForm::Loop:
    break;
  }
  ClauseSet C;
  if (!readClauses(Ctx, Clauses, P, C) || !readNest(Src, P, Loop, C.Collapse))
    return;
  // What the nest does with each variable.
  UseCollector U = collectUses(P.Levels.front().For);
  auto MapArray = [&](KernelPlan &Q, const VarDecl *V, const UseCollector &X) {
    return Extents.mapShared(Q, V, X, C);
  };
  if (!checkNestBody(Src, P, U) || !Device.checkCalls(P, U) ||
      !readAtomics(P, U) || !classifyVariables(P, U, C, MapArray))
    return;
  std::string Race;
  if (!parallelIndependent(Src, P, Race)) {
    P.Refusal = Race;
    return;
  }
  if (Opts.RoundProducts && !roundProducts(P))
    return;
  proveFullWrites(Src, P);
  if (P.Levels.size() == 1)
    trySwap(Src, P);
  // After the swap: the box names the grid's levels in their final order.
  proveWrittenBoxes(Src, P);
  planRowBlocking(P);
}

bool Offloader::roundProducts(KernelPlan &P) {
  // --fmad=false: the body's products are rounded on their own; the
  // functions it calls are compiled for both sides as written, so nvcc may
  // still contract theirs.
  P.Refusal = productProblem(Src, P.Body);
  if (!P.Refusal.empty())
    return false;
  std::string Called; // P.DeviceFunctions: its callees' callees too.
  for (const FunctionDecl *F : P.DeviceFunctions)
    if (F->hasBody() && hasFloatProduct(F->getBody()) && !roundable(F))
      Called += (Called.empty() ? "'" : ", '") + F->getNameAsString() + "'";
  if (!Called.empty())
    P.Notes.push_back("--fmad=false rounds the loop's own products and those "
                      "of the functions it calls, except " +
                      Called +
                      " (a product partly in a macro, an atomic update or a "
                      "constant expression, a constexpr function, or one not "
                      "in this file), which follow nvcc's -fmad (build with "
                      "-fmad=false to round them too)");
  return true;
}

bool Offloader::roundable(const FunctionDecl *F) const {
  // Its products are rewritten where it is defined: in this file, each one
  // written there, not in a constexpr function (the rounding functions are
  // not constexpr).
  const FunctionDecl *D = F->getDefinition();
  return D && D->hasBody() && !D->isConstexpr() &&
         Src.SM.isInMainFile(Src.SM.getExpansionLoc(D->getLocation())) &&
         productProblem(Src, D->getBody()).empty();
}

KernelPlan &Offloader::plan(const OMPExecutableDirective *D) {
  auto [It, New] = Plans.try_emplace(D);
  KernelPlan &P = It->second;
  if (New) {
    P.Directive = D;
    P.Function = Fn.F;
    analyseDirective(P);
    if (P.Refusal.empty() && !P.Group)
      nameKernel(P);
  }
  return P;
}

void Offloader::nameKernel(KernelPlan &P) {
  std::string Base =
      "ww_omp_" + Fn.F->getNameAsString() + "_L" + std::to_string(P.Line);
  std::string Name = Base;
  for (unsigned K = 2; KernelNames.count(Name); ++K)
    Name = Base + "_" + std::to_string(K);
  KernelNames.insert(Name);
  P.Name = Name;
}

/// A parallel region holding only worksharing loops (and barriers): each
/// loop becomes a kernel, in order. The end of each loop is a barrier in
/// OpenMP, and a kernel boundary here; nothing runs between them.
void Offloader::planGroup(KernelPlan &P) {
  const OMPExecutableDirective *D = P.Directive;
  auto *C = dyn_cast_or_null<CompoundStmt>(directiveBody(D));
  std::vector<const OMPExecutableDirective *> Loops;
  if (C)
    for (const Stmt *S : C->body()) {
      if (isa<OMPBarrierDirective>(S))
        continue;
      if (isa<OMPForDirective>(S) || isa<OMPForSimdDirective>(S)) {
        Loops.push_back(cast<OMPExecutableDirective>(S));
        continue;
      }
      Loops.clear();
      break;
    }
  if (Loops.empty()) {
    P.Refusal = "the parallel region has statements other than "
                "worksharing loops (they would run once per thread); only "
                "regions of '#pragma omp for' loops are offloaded";
    return;
  }
  for (const OMPClause *Cl : D->clauses())
    if (Cl->getClauseKind() == llvm::omp::OMPC_reduction && !Cl->isImplicit()) {
      P.Refusal = "a reduction on a parallel region of several loops is not "
                  "supported (a reduction on each '#pragma omp for' is)";
      return;
    }
  P.Group = true;
  for (const OMPExecutableDirective *L : Loops) {
    auto [It, New] = Plans.try_emplace(L);
    KernelPlan &M = It->second;
    if (New) {
      M.Directive = L;
      M.Function = Fn.F;
      M.Enclosing = D;
      analyseDirective(M);
    }
    P.Members.push_back(&M);
    if (!M.Refusal.empty() && P.Refusal.empty())
      P.Refusal = "its loop at line " + std::to_string(M.Line) +
                  " cannot be offloaded: " + M.Refusal;
  }
  bool SomeOffloadable = llvm::any_of(
      P.Members, [](const KernelPlan *M) { return M->Refusal.empty(); });
  if (!P.Refusal.empty() && SomeOffloadable)
    MixedGroups.push_back(&P);
  if (P.Refusal.empty())
    if (const VarDecl *V = extentConflict(P.Members))
      P.Refusal =
          "its loops map different sections of '" + V->getNameAsString() + "'";
  for (KernelPlan *M : P.Members) {
    if (!P.Refusal.empty()) {
      M->Hidden = true;
      if (M->Refusal.empty())
        M->Refusal = "its parallel region stays on the host";
    } else {
      nameKernel(*M);
    }
  }
}

namespace {

/// The one-line pragma that opens \p D again, as written (continuation
/// lines joined), when its clauses mean the same for each loop on its own:
/// private, shared, default, num_threads, proc_bind. Else "" (firstprivate
/// copies, say, may carry values from one loop to the next in one thread).
std::string reopeningPragma(const OffloadSource &Src,
                            const OMPExecutableDirective *D) {
  for (const OMPClause *Cl : D->clauses()) {
    if (Cl->isImplicit())
      continue;
    switch (Cl->getClauseKind()) {
    case llvm::omp::OMPC_private:
    case llvm::omp::OMPC_shared:
    case llvm::omp::OMPC_default:
    case llvm::omp::OMPC_num_threads:
    case llvm::omp::OMPC_proc_bind:
      break;
    default:
      return "";
    }
  }
  auto [B, E] = Src.pragmaLines(D);
  std::string Text;
  llvm::StringRef Lines = Src.Contents.slice(B, E);
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Lines[I] == '\\' && I + 1 < Lines.size() && Lines[I + 1] == '\n') {
      ++I;
      continue;
    }
    if (Lines[I] != '\n')
      Text += Lines[I];
  }
  llvm::StringRef T = llvm::StringRef(Text).trim();
  if (!T.starts_with("#") || D->getBeginLoc().isMacroID())
    return "";
  return T.str();
}

} // namespace

/// A refused loop of a parallel region keeps only itself on the host: the
/// region becomes one region per loop, each with the region's pragma, and
/// that input is translated instead (each loop is then a `parallel` + one
/// `for` of its own, decided alone, and the data regions end and start
/// again around the host loop as around any host code). Each loop's end
/// closes the region and opens the next on three new lines, which the second
/// translation maps back to the input's lines. A worksharing loop ends in a
/// barrier, so nothing that ran in one region needs to see the next; only
/// clauses whose meaning does not carry from one loop to the next are
/// repeated (reopeningPragma).
bool Offloader::splitMixedGroups() {
  std::vector<std::pair<unsigned, std::string>> Inserts;
  for (const KernelPlan *G : MixedGroups) {
    std::string Pragma = reopeningPragma(Src, G->Directive);
    if (Pragma.empty())
      continue;
    std::vector<std::pair<unsigned, std::string>> Mine;
    std::set<unsigned> Lines;
    bool OK = true;
    for (size_t I = 0; I + 1 < G->Members.size(); ++I) {
      unsigned At = Src.endOf(G->Members[I]->Directive);
      unsigned Line = Src.SM.getLineNumber(Src.SM.getMainFileID(), At);
      OK &= Lines.insert(Line).second;
      std::string Reopen = "\n}\n" + Pragma + "\n{";
      assert(llvm::count(Reopen, '\n') == OffloadSource::SplitLinesAdded);
      Mine.push_back({At, Reopen});
    }
    if (OK)
      Inserts.insert(Inserts.end(), Mine.begin(), Mine.end());
  }
  if (Inserts.empty())
    return false;
  llvm::sort(Inserts);
  std::string Out;
  unsigned Last = 0;
  for (auto &[At, Text] : Inserts) {
    Out += Src.Contents.slice(Last, At).str() + Text;
    Last = At;
    Result.SplitAfterLines.push_back(
        Src.SM.getLineNumber(Src.SM.getMainFileID(), At));
  }
  Out += Src.Contents.substr(Last).str();
  Result.SplitInput = std::move(Out);
  return true;
}

namespace {

/// The `#define` lines of \p Fn (a function's text), continuations
/// included, each ending in a newline.
std::string definesIn(llvm::StringRef Fn) {
  std::string Defines;
  for (size_t Pos = 0; Pos < Fn.size();) {
    size_t End = Fn.find('\n', Pos);
    llvm::StringRef Line = Fn.slice(Pos, End);
    bool Define = Line.ltrim().starts_with("#") &&
                  Line.ltrim().drop_front().ltrim().starts_with("define");
    while (Define && Line.rtrim().ends_with("\\") &&
           End != llvm::StringRef::npos) {
      End = Fn.find('\n', End + 1);
      Line = Fn.slice(Pos, End);
    }
    if (Define)
      Defines += Line.trim().str() + "\n";
    if (End == llvm::StringRef::npos)
      break;
    Pos = End + 1;
  }
  return Defines;
}

} // namespace

void Offloader::planFunction(const FunctionDecl *F) {
  Fn.reset(Ctx, F);
  size_t FirstRegion = Regions.size();
  // Directives anywhere in the function are planned as the walk meets
  // them; those the walk never makes a unit of are refused ones.
  RegionPlanner Walker(
      Src, Fn,
      [&](const OMPExecutableDirective *D) -> KernelPlan & { return plan(D); },
      [&]() -> CallerExtents & { return Extents.callers(); }, Regions);
  Walker.walk(F->getBody(), false);
  // Directives nested where the walk did not look (inside refused
  // directives) are left alone with them.
  bool Template = F->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
                  isa<CXXMethodDecl>(F) || F->isDependentContext();
  if (Template) {
    for (auto &[D, P] : Plans)
      if (P.Function == F && P.Refusal.empty())
        P.Refusal = "the loop is in a template or member function, which "
                    "is not supported";
    Regions.resize(FirstRegion);
    return;
  }
  // Kernels go right before the function, in source order.
  std::vector<KernelPlan *> Ks;
  for (size_t I = FirstRegion; I < Regions.size(); ++I)
    for (const Unit &U : Regions[I].Units)
      for (KernelPlan *P : U.Kernels)
        Ks.push_back(P);
  llvm::sort(Ks, [](const KernelPlan *A, const KernelPlan *B) {
    return A->Line < B->Line;
  });
  if (Ks.empty())
    return;
  std::string Text;
  for (KernelPlan *P : Ks)
    Text += Emitter.kernelText(*P) + "\n";
  // Before the function and any comment directly above it? Before the
  // declaration's first token keeps a leading comment with its function.
  unsigned B = Src.lineStart(Src.offset(F->getBeginLoc()));
  // A macro the function defines in its body (correlation's
  // `#define sqrt_of_array_cell(x, j) sqrt(x[j])`) is defined for the
  // kernels too: the same definition again, which C and C++ allow.
  std::string Defines =
      definesIn(Src.Contents.slice(B, Src.endOf(F->getBody())));
  if (!Defines.empty())
    Text = "// warpwise offload: the macros '" + F->getNameAsString() +
           "' defines, for its kernels\n" + Defines + Text;
  // A template<> or attribute line above belongs to the function too.
  addEdit(B, B, Text);
}

std::vector<const FunctionDecl *> Offloader::mainFileFunctions() const {
  const SourceManager &SM = Src.SM;
  std::vector<const FunctionDecl *> Functions;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    auto *F = dyn_cast<FunctionDecl>(D);
    if (auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      F = FT->getTemplatedDecl();
    if (!F || !F->doesThisDeclarationHaveABody())
      continue;
    if (!SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      continue;
    Functions.push_back(F);
  }
  return Functions;
}

void Offloader::planFunctions(
    const std::vector<const FunctionDecl *> &Functions) {
  // Directives anywhere (outermost ones): those the walk does not reach are
  // reported too.
  std::function<void(const Stmt *,
                     std::vector<const OMPExecutableDirective *> &)>
      Outermost = [&](const Stmt *S,
                      std::vector<const OMPExecutableDirective *> &Found) {
        if (!S)
          return;
        if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
          Found.push_back(D);
          return;
        }
        for (const Stmt *C : childrenOf(S))
          Outermost(C, Found);
      };
  for (const FunctionDecl *F : Functions) {
    planFunction(F);
    std::vector<const OMPExecutableDirective *> Found;
    Outermost(F->getBody(), Found);
    for (const OMPExecutableDirective *D : Found)
      if (!Plans.count(D)) {
        Fn.F = F;
        KernelPlan &P = plan(D);
        if (P.Refusal.empty())
          P.Refusal = "it is nested in host code that is not offloaded";
      }
  }
}

void Offloader::decide(const KernelPlan &P, const char *Id, Severity Level,
                       std::string Kind, std::string Message) {
  OffloadDecision D;
  D.Id = Id;
  D.Level = Level;
  D.Line = P.Line;
  D.Column = P.Column;
  D.Kind = std::move(Kind);
  D.Message = std::move(Message);
  D.Kernel = P.Refusal.empty() ? P.Name : "";
  Result.Decisions.push_back(std::move(D));
}

void Offloader::captureExtents() {
  std::set<const VarDecl *> Captured;
  for (const Region &R : Regions)
    for (const Unit &U : R.Units)
      for (const KernelPlan *P : U.Kernels)
        for (const MappedArray &A : P->Arrays)
          if (A.CaptureAt && Captured.insert(A.Var).second)
            addEdit(A.CaptureAt, A.CaptureAt, Emitter.extentCapture(A));
}

void Offloader::emitRegion(const Region &R,
                           std::set<const OMPExecutableDirective *> &InRegion,
                           std::set<const OMPExecutableDirective *> &Groups) {
  for (const Unit &U : R.Units) {
    for (const KernelPlan *P : U.Kernels) {
      InRegion.insert(P->Directive);
      // The pragma's lines go; the statement it applies to becomes the
      // launch. Lines between them (an #endif closing an #ifdef around
      // the pragma) stay as they are.
      auto [PB, PE] = Src.pragmaLines(P->Directive);
      Replaced.push_back({PB, PE});
      addEdit(PB, PE, "");
      const Stmt *Loop =
          P->Directive->getInnermostCapturedStmt()->getCapturedStmt();
      unsigned B = Src.offset(Loop->getBeginLoc());
      unsigned E = Src.endOf(P->Directive);
      Replaced.push_back({B, E});
      addEdit(B, E, Emitter.launchText(*P, R));
      // A parallel region of several loops: its pragma and its barriers
      // go; its braces stay, around the launches.
      if (P->Enclosing && Groups.insert(P->Enclosing).second) {
        InRegion.insert(P->Enclosing);
        auto [GB, GE] = Src.pragmaLines(P->Enclosing);
        Replaced.push_back({GB, GE});
        addEdit(GB, GE, "");
        if (auto *C = dyn_cast<CompoundStmt>(directiveBody(P->Enclosing)))
          for (const Stmt *X : C->body())
            if (auto *Bar = dyn_cast<OMPBarrierDirective>(X)) {
              auto [BB, BE] = Src.pragmaLines(Bar);
              Replaced.push_back({BB, BE});
              addEdit(BB, BE, "");
            }
      }
    }
  }
  for (const Unit &U : R.Units)
    for (const SwapTriple *T : U.Swaps) {
      unsigned At = Src.stmtEnd(T->S3);
      addEdit(At, At, Emitter.deviceSwap(R, *T));
    }
  if (!R.InsideBlock) {
    unsigned B = Src.lineStart(Src.headOffset(R.First));
    unsigned E = Src.endOf(R.Last);
    addEdit(B, B, Emitter.regionHead(R));
    addEdit(E, E, Emitter.regionTail(R));
  }
}

std::string Offloader::dataPlanMessage(const Region &R) const {
  std::string Plan;
  std::map<const VarDecl *, const MappedArray *> Mapped = arraysOf(R);
  for (const VarDecl *V : R.Arrays) {
    auto [In, Out] = R.CopyInOut.at(V);
    Plan += (Plan.empty() ? "" : "; ") + V->getNameAsString() + ": " +
            (In && Out ? "copied in and out"
             : In      ? "copied in"
             : Out     ? "copied out"
                       : "device only");
    if (R.Why.count(V))
      Plan += " (" + R.Why.at(V) + ")";
    // An extent only the callers give: which allocation decided it.
    if (auto It = Mapped.find(V);
        It != Mapped.end() &&
        llvm::StringRef(It->second->ExtentFrom).starts_with("its callers"))
      Plan +=
          ", " + It->second->Count + " elements as " + It->second->ExtentFrom;
  }
  unsigned Kernels = 0;
  for (const Unit &U : R.Units)
    Kernels += U.Kernels.size();
  std::string Msg =
      Kernels > 1
          ? "the " + std::to_string(Kernels) + " offloaded loops of lines " +
                Src.lineOf(R.First->getBeginLoc()) + "-" +
                Src.lastLineOf(R.Last) +
                " share their device data (no transfer between them)"
          : "device data of the offloaded loop";
  if (llvm::any_of(R.Units, [](const Unit &U) { return U.InLoop; }))
    Msg += ", resident across the iterations of the host loop around them";
  if (!R.Arrays.empty())
    Msg += ": " + Plan;
  if (!R.AliasPairs.empty()) {
    std::string Pairs;
    for (auto [X, Y] : R.AliasPairs)
      Pairs += (Pairs.empty() ? "" : ", ") + X->getNameAsString() + "/" +
               Y->getNameAsString();
    Msg += "; " + Pairs +
           " are not proven separate arrays: the program checks at run "
           "time that they do not overlap, and runs the original loops on "
           "the host where they do";
  }
  return Msg;
}

void Offloader::reportVerdicts(
    const std::set<const OMPExecutableDirective *> &InRegion) {
  std::vector<KernelPlan *> All;
  for (auto &[D, P] : Plans)
    All.push_back(&P);
  llvm::sort(All, [](const KernelPlan *A, const KernelPlan *B) {
    return std::make_pair(A->Line, A->Column) <
           std::make_pair(B->Line, B->Column);
  });
  for (KernelPlan *P : All) {
    if (P->Hidden)
      continue; // Said by its parallel region.
    if (P->Group && P->Refusal.empty() && InRegion.count(P->Directive)) {
      decide(*P, diag::OffloadNote, Severity::Note, "note",
             "the parallel region's " + std::to_string(P->Members.size()) +
                 " worksharing loops become " +
                 std::to_string(P->Members.size()) +
                 " kernels, one after another (the barrier at the end of "
                 "each loop is a kernel boundary)");
      continue;
    }
    if (P->Refusal.empty() && !InRegion.count(P->Directive))
      P->Refusal = "it is nested in host code that is not offloaded";
    // A barrier, flush or taskwait outside an offloaded region is no loop
    // kept from the GPU: said, not counted with the loops on the host.
    if (!directiveBody(P->Directive)) {
      decide(*P, diag::OffloadNote, Severity::Note, "note",
             "'" + P->PragmaText +
                 "' is a stand-alone directive, not a loop: it stays as it "
                 "is (build the output with -Xcompiler -fopenmp for it to "
                 "take effect on the CPU)");
      continue;
    }
    if (!P->Refusal.empty()) {
      ++Result.KeptOnHost;
      decide(*P, diag::KeptOnHost, Severity::Warning, "host",
             "'" + P->PragmaText + "' stays on the host: " + P->Refusal +
                 " (build the output with -Xcompiler -fopenmp to keep it "
                 "parallel on the CPU)");
      continue;
    }
    reportOffloaded(*P);
  }
}

void Offloader::reportOffloaded(const KernelPlan &P) {
  ++Result.Offloaded;
  // Only an offloaded loop's callees are compiled for the device (a loop
  // that stays on the host leaves its callees as they are).
  OffloadedCallees.insert(P.DeviceFunctions.begin(), P.DeviceFunctions.end());
  std::string Shape = P.Levels.size() == 1
                          ? "one thread per iteration"
                          : std::to_string(P.Levels.size()) +
                                "-D grid, x over '" +
                                P.Levels.back().Var->getNameAsString() + "'";
  std::string Red;
  for (const ReductionVar &R : P.Reductions)
    Red += (Red.empty() ? "" : ", ") + R.Var->getNameAsString();
  decide(P, diag::Offloaded, Severity::Remark, "offloaded",
         "offloaded as kernel '" + P.Name + "' (" + Shape +
             (Red.empty() ? ""
                          : "; reduction of " + Red +
                                ": warp shuffles, a block reduction "
                                "and one partial per block summed on "
                                "the host in block order") +
             ")");
  for (const std::string &N : P.Notes)
    decide(P, diag::OffloadNote, Severity::Note, "note", N);
  if (!P.SwapNote.empty())
    decide(P, diag::LoopSwap, P.Swapped ? Severity::Remark : Severity::Note,
           "swap", P.SwapNote);
  for (const MappedArray &A : P.Arrays)
    if (A.Map == MapKind::To && A.Written)
      decide(P, diag::OffloadNote, Severity::Warning, "note",
             "'" + A.Name +
                 "' is written by the loop but mapped 'to': its "
                 "new values stay on the device, as OpenMP specifies (a CPU "
                 "build without offloading would see them)");
}

void Offloader::annotateDeviceFunctions() {
  const SourceManager &SM = Src.SM;
  for (const FunctionDecl *F : OffloadedCallees)
    for (const FunctionDecl *R : F->redecls()) {
      // C89's implicit declaration is no text (oldC writes a prototype).
      if (R->isImplicit() ||
          !SM.isInMainFile(SM.getExpansionLoc(R->getLocation())))
        continue;
      unsigned B = Src.offset(R->getBeginLoc());
      addEdit(B, B, "__host__ __device__ ");
    }
  if (!Opts.RoundProducts)
    return;
  for (const FunctionDecl *F : OffloadedCallees)
    if (roundable(F) && hasFloatProduct(F->getDefinition()->getBody())) {
      for (const TextEdit &E : roundedProducts(
               Src, F->getDefinition()->getBody(), /*HostAndDevice=*/true))
        addEdit(E.Begin, E.End, E.Text);
      NeedProductFunctions = true;
    }
}

void Offloader::addVoidCasts(
    const std::vector<const FunctionDecl *> &Functions) {
  class VoidCasts : public RecursiveASTVisitor<VoidCasts> {
  public:
    Offloader &O;
    explicit VoidCasts(Offloader &O) : O(O) {}
    bool VisitImplicitCastExpr(ImplicitCastExpr *C) {
      if (C->getCastKind() != CK_BitCast)
        return true;
      QualType From = C->getSubExpr()->getType(), To = C->getType();
      if (!From->isVoidPointerType() || !To->isPointerType() ||
          To->isVoidPointerType())
        return true;
      SourceLocation L = C->getSubExpr()->getBeginLoc();
      if (L.isMacroID() || !O.Src.SM.isInMainFile(L))
        return true;
      unsigned B = O.Src.offset(L);
      for (auto [RB, RE] : O.Replaced)
        if (B >= RB && B < RE)
          return true; // Inside an offloaded loop: the kernel has a copy.
      O.addEdit(B, B, "(" + O.Emitter.typeText(To) + ")");
      return true;
    }
  } Casts(*this);
  for (const FunctionDecl *F : Functions)
    Casts.TraverseDecl(const_cast<FunctionDecl *>(F));
}

std::string
Offloader::oldC(const std::vector<const FunctionDecl *> &Functions) {
  OldCEdits Old = oldCEdits(
      Src, Functions,
      [&](const FunctionDecl *F) {
        return llvm::any_of(F->redecls(), [&](const FunctionDecl *R) {
          return OffloadedCallees.count(R) > 0;
        });
      },
      [&](QualType T, llvm::StringRef Name) {
        return Emitter.typeText(T, Name);
      });
  // A prototype goes before what else is inserted there (a kernel that
  // calls the function).
  for (const TextEdit &E : Old.Prototypes)
    Edits.push_back({E.Begin, E.End, E.Text, PrototypeOrder});
  for (const TextEdit &E : Old.Edits)
    addEdit(E.Begin, E.End, E.Text);
  auto Note = [&](Severity Level, unsigned Line, unsigned Column,
                  std::string Message) {
    OffloadDecision D;
    D.Id = diag::OldC;
    D.Level = Level;
    D.Line = Line;
    D.Column = Column;
    D.Kind = "note";
    D.Message = std::move(Message);
    Result.Decisions.push_back(std::move(D));
  };
  for (const UndeclaredCall &U : Old.Undeclared)
    Note(Severity::Warning, U.Line, U.Column,
         "`" + U.Name +
             "` is called without a declaration (C89 declared it "
             "implicitly); nothing in this file or warpwise's list of "
             "headers (rules/c-headers.json) declares it, so unless a "
             "header nvcc includes does, nvcc rejects the output: include "
             "its header or declare it");
  for (const KeptDefinition &K : Old.Kept)
    Note(Severity::Warning, K.Line, K.Column,
         K.Definition
             ? "the K&R definition of `" + K.Name +
                   "` stays as written: " + K.Why +
                   "; nvcc (C++) rejects it: write it in prototype "
                   "form"
             : "`" + K.Name +
                   "` is called before this definition, and no prototype "
                   "is written before that call: " +
                   K.Why + "; nvcc (C++) may reject the output");
  std::string Includes;
  for (const std::string &H : Old.Headers)
    Includes += "#include <" + H + ">\n";
  std::vector<std::string> Said;
  auto Count = [&](unsigned N, const char *One, const char *Many) {
    if (N)
      Said.push_back(std::to_string(N) + " " + (N == 1 ? One : Many));
  };
  Count(Old.KandR, "K&R definition in prototype form",
        "K&R definitions in prototype form");
  Count(Old.ImplicitInts, "implicit int spelled", "implicit ints spelled");
  Count(Old.Prototypes.size(), "prototype of a later definition",
        "prototypes of later definitions");
  if (!Old.Headers.empty())
    Said.push_back("the headers of the library functions called undeclared "
                   "included (" +
                   llvm::join(Old.Headers, ", ") + ")");
  if (!Said.empty())
    Note(Severity::Remark, 1, 1,
         "C89 that C++ does not accept, written for nvcc: " +
             llvm::join(Said, "; "));
  if (Includes.empty())
    return "";
  return "// warpwise offload: the headers of the library functions this C "
         "program calls\n// without declaring them.\n" +
         Includes;
}

std::string
Offloader::cMathMacros(const std::vector<const FunctionDecl *> &Functions) {
  // C's functions of these names take one type; C++'s <cmath> and
  // <cstdlib> overload them for float, long double and the integer types,
  // so `exp(f)` of a float f would round as expf, and `abs(x)` of a float
  // would not truncate.
  static const std::set<std::string> Overloaded = {
      "abs",       "labs",      "llabs",   "fabs",   "ceil",   "floor",
      "fmod",      "sqrt",      "cbrt",    "exp",    "exp2",   "expm1",
      "log",       "log10",     "log2",    "log1p",  "pow",    "sin",
      "cos",       "tan",       "asin",    "acos",   "atan",   "atan2",
      "sinh",      "cosh",      "tanh",    "asinh",  "acosh",  "atanh",
      "erf",       "erfc",      "tgamma",  "lgamma", "hypot",  "fmin",
      "fmax",      "fdim",      "fma",     "round",  "trunc",  "rint",
      "nearbyint", "lround",    "llround", "lrint",  "llrint", "copysign",
      "nextafter", "remainder", "remquo",  "frexp",  "ldexp",  "modf",
      "scalbn",    "scalbln",   "ilogb",   "logb"};
  class Calls : public RecursiveASTVisitor<Calls> {
  public:
    const SourceManager &SM;
    std::map<std::string, const FunctionDecl *> Needed;
    explicit Calls(const SourceManager &SM) : SM(SM) {}
    bool VisitCallExpr(CallExpr *C) {
      const FunctionDecl *F = C->getDirectCallee();
      // A library function declared by its header, or by the call itself
      // (C89's implicit declaration; the output includes the header).
      // Not a function of the program's own that has the name (`log2(n)
      // int n;`, defined further down).
      if (!F || !F->getIdentifier() || !Overloaded.count(F->getName().str()) ||
          !(SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation())) ||
            (F->isImplicit() && F->getBuiltinID() && !F->isDefined())))
        return true;
      for (unsigned K = 0; K < C->getNumArgs() && K < F->getNumParams(); ++K) {
        QualType A = C->getArg(K)->IgnoreImpCasts()->getType();
        QualType P = F->getParamDecl(K)->getType();
        if (A->isArithmeticType() && P->isArithmeticType() &&
            A.getCanonicalType().getUnqualifiedType() !=
                P.getCanonicalType().getUnqualifiedType())
          Needed[F->getName().str()] = F;
      }
      return true;
    }
  } Found(Src.SM);
  for (const FunctionDecl *F : Functions)
    Found.TraverseDecl(const_cast<FunctionDecl *>(F));
  if (Found.Needed.empty())
    return "";
  std::string Text = "// warpwise offload: C's math functions take the "
                     "types they declare; C++ overloads\n// them. These "
                     "calls convert their arguments as C does.\n";
  for (const auto &[Name, F] : Found.Needed) {
    std::string Params, Args;
    for (unsigned K = 0; K < F->getNumParams(); ++K) {
      std::string A = "ww_a" + std::to_string(K);
      QualType P = F->getParamDecl(K)->getType();
      Params += (K ? ", " : "") + A;
      Args +=
          (K ? ", " : "") + (P->isArithmeticType()
                                 ? "(" + Emitter.typeText(P) + ")(" + A + ")"
                                 : "(" + A + ")");
    }
    Text += "#define " + Name + "(" + Params + ") " + Name + "(" + Args + ")\n";
  }
  return Text;
}

std::string Offloader::cudaNameMacros() const {
  // cfd's `struct float3 { float x, y, z; };`: a host program may declare
  // what CUDA's vector_types.h does, which nvcc includes first. Renamed from
  // the file's first line on, the program's own declarations and every use
  // of them agree, and CUDA's are not touched (their headers are read).
  static const std::set<std::string> Vector = [] {
    std::set<std::string> Names = {"dim3"};
    for (const char *Base :
         {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
          "longlong", "ulonglong", "float", "double"})
      for (int N = 1; N <= 4; ++N) {
        Names.insert(Base + std::to_string(N));
        Names.insert("make_" + std::string(Base) + std::to_string(N));
      }
    return Names;
  }();
  std::set<std::string> Clashes;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    if (auto *LS = dyn_cast<LinkageSpecDecl>(D)) // extern "C" { ... }
      for (const Decl *E : LS->decls())
        if (auto *N = dyn_cast<NamedDecl>(E);
            N && N->getIdentifier() && Vector.count(N->getName().str()))
          Clashes.insert(N->getName().str());
    auto *N = dyn_cast<NamedDecl>(D);
    if (!N || !N->getIdentifier() || D->isImplicit() ||
        Src.SM.isInSystemHeader(Src.SM.getExpansionLoc(D->getLocation())) ||
        !(isa<TagDecl>(D) || isa<TypedefNameDecl>(D) || isa<FunctionDecl>(D) ||
          isa<VarDecl>(D)))
      continue;
    if (Vector.count(N->getName().str()))
      Clashes.insert(N->getName().str());
  }
  return renamingMacros("// warpwise offload: CUDA declares these names "
                        "before this file; the program's own\n// are "
                        "renamed.\n",
                        Clashes, "ww_user_");
}

void Offloader::applyEdits() {
  llvm::StringRef Contents = Src.Contents;
  // Apply: insertions at one offset keep their order; no two replacements
  // may overlap.
  llvm::sort(Edits, [](const Edit &A, const Edit &B) {
    if (A.Begin != B.Begin)
      return A.Begin < B.Begin;
    bool AI = A.Begin == A.End, BI = B.Begin == B.End;
    if (AI != BI)
      return AI; // Insertions before a replacement starting there.
    return A.Order < B.Order;
  });
  // One replacement per offset (insertions there first, in order), so that
  // clang-format can lay out what was inserted, and nothing else.
  tooling::Replacements Reps;
  for (size_t I = 0; I < Edits.size();) {
    unsigned Begin = Edits[I].Begin, End = Edits[I].End;
    std::string Text;
    size_t J = I;
    for (; J < Edits.size() && Edits[J].Begin == Begin; ++J) {
      Text += Edits[J].Text;
      End = std::max(End, Edits[J].End);
    }
    if (J - I > 1 &&
        llvm::count_if(llvm::make_range(Edits.begin() + I, Edits.begin() + J),
                       [](const Edit &E) { return E.End > E.Begin; }) > 1) {
      Result.InternalError =
          "two replacements at offset " + std::to_string(Begin);
      Result.Output = Contents.str();
      return;
    }
    if (llvm::Error E = Reps.add(
            tooling::Replacement(Opts.Path, Begin, End - Begin, Text))) {
      Result.InternalError = llvm::toString(std::move(E));
      Result.Output = Contents.str();
      return;
    }
    I = J;
  }
  auto Formatted = formatEdits(Reps, Contents, Opts.Path, Opts.Style);
  if (!Formatted) {
    Result.FormatProblem = llvm::toString(Formatted.takeError());
    Formatted = Reps;
  }
  auto Applied = tooling::applyAllReplacements(Contents, *Formatted);
  if (!Applied) {
    Result.InternalError = llvm::toString(Applied.takeError());
    Result.Output = Contents.str();
    return;
  }
  Result.Output = std::move(*Applied);
}

OffloadResult Offloader::run() {
  std::vector<const FunctionDecl *> Functions = mainFileFunctions();
  planFunctions(Functions);
  if (Opts.SplitRegions && splitMixedGroups())
    return Result;
  std::set<const OMPExecutableDirective *> InRegion, Groups;
  captureExtents();
  for (const Region &R : Regions) {
    emitRegion(R, InRegion, Groups);
    // The data plan, said once per region.
    decide(*R.Units.front().Kernels.front(), diag::DataPlan, Severity::Remark,
           "data", dataPlanMessage(R));
  }
  reportVerdicts(InRegion);
  annotateDeviceFunctions();
  std::string MathMacros, Includes;
  if (IsC) {
    addVoidCasts(Functions);
    Includes = oldC(Functions);
    MathMacros = cMathMacros(Functions);
  }
  std::string Renames = cudaNameMacros();
  KeywordRenames Keywords = IsC ? keywordRenames(Src) : KeywordRenames();
  if (!Keywords.Early.empty())
    addEdit(Keywords.EarlyAt, Keywords.EarlyAt, Keywords.Early);
  if (!Keywords.Unrenamed.empty()) {
    OffloadDecision D;
    D.Id = diag::OldC;
    D.Level = Severity::Warning;
    D.Line = Keywords.UnrenamedLine;
    D.Column = 1;
    D.Kind = "note";
    D.Message = "a file this program includes uses C++ keywords as names (" +
                llvm::join(Keywords.Unrenamed, ", ") +
                "), which are not renamed, since this system header is "
                "included after it and may use them as keywords; nvcc "
                "(C++) rejects that file: include it after the system "
                "headers, or rename them";
    Result.Decisions.push_back(std::move(D));
  }
  if (Result.Offloaded == 0 && Edits.empty() && MathMacros.empty() &&
      Renames.empty() && Keywords.Macros.empty() && Includes.empty()) {
    Result.Output = Src.Contents.str();
    return Result;
  }
  // After the file's own includes and feature macros (which must come
  // before any header), before its first declaration.
  const SourceManager &SM = Src.SM;
  unsigned At = 0;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation L = SM.getExpansionLoc(D->getBeginLoc());
    if (D->isImplicit() || !SM.isInMainFile(L))
      continue;
    At = Src.lineStart(Src.offset(L));
    break;
  }
  // The renamed keywords are not renamed in the clauses of the pragmas
  // kept on the host (`private(j)`, read by a -fopenmp build).
  for (const TextEdit &E :
       pragmaKeywordGuards(Src, Keywords.MainNames, At, Replaced))
    addEdit(E.Begin, E.End, E.Text);
  // Before the kernels inserted there (order 0); the math macros after the
  // preamble's includes.
  // Only an offloaded loop's callees have rounded products.
  Result.IncludesSupport = Result.Offloaded > 0;
  std::string Head =
      Keywords.Undefs +
      (Result.IncludesSupport ? KernelEmitter::preamble(IsC) : "") + Includes +
      MathMacros + Keywords.Macros +
      (NeedProductFunctions ? productFunctionsNote() : "");
  if (!Renames.empty() && At == 0)
    Head = Renames + Head;
  else if (!Renames.empty())
    Edits.push_back({0, 0, Renames, HeadOrder});
  if (!Head.empty())
    Edits.push_back({At, At, Head, HeadOrder});
  applyEdits();
  return Result;
}

} // namespace

OffloadResult offloadOpenMP(ASTContext &Ctx, llvm::StringRef Contents, bool IsC,
                            const OffloadOptions &Opts) {
  Offloader O(Ctx, Contents, IsC, Opts);
  return O.run();
}

} // namespace warpwise
