//===- BranchSplit.cpp - Branch splitting with launch rewriting -----------===//
#include "BranchSplit.h"

#include "../plan/SplitPlanner.h"
#include "Candidates.h"
#include "../analysis/MemoryAccess.h"
#include "SideEffects.h"
#include "SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "warpwise/Embedded.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

/// Finds what makes threads depend on each other, or the prefix re-run in
/// both kernels unsafe: the first reason found wins.
class ThreadIndependence : public RecursiveASTVisitor<ThreadIndependence> {
public:
  ThreadIndependence(const SourceManager &SM,
                     std::set<const FunctionDecl *> &Seen)
      : SM(SM), Seen(Seen) {}
  std::string Why;

  std::string at(SourceLocation L) const {
    return " (line " + std::to_string(SM.getExpansionLineNumber(L)) + ")";
  }
  bool VisitVarDecl(VarDecl *V) {
    if (Why.empty() && V->hasAttr<CUDASharedAttr>())
      Why = "it uses shared memory `" + V->getNameAsString() + "`" +
            at(V->getLocation());
    if (Why.empty() && V->getType().isVolatileQualified())
      Why = "it uses the volatile `" + V->getNameAsString() + "`";
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (!Why.empty() || isa<CUDAKernelCallExpr>(C))
      return true;
    std::vector<const FunctionDecl *> Callees = calleeCandidates(C);
    for (const FunctionDecl *F : Callees) {
      if (F->getIdentifier() && F->getName().starts_with("__fetch_builtin"))
        return true;
      const CallSummary &S = summarizeFunction(F);
      if (!S.OrderedName.empty()) {
        // As the user wrote the call (`cg::sync(block)`), and what in it
        // orders the threads.
        std::string Written;
        CharSourceRange R = Lexer::makeFileCharRange(
            CharSourceRange::getTokenRange(C->getCallee()->getSourceRange()),
            SM, LangOptions());
        if (R.isValid())
          Written = Lexer::getSourceText(R, SM, LangOptions()).str();
        Why = "it calls `" +
              (Written.empty() || Written.size() > 60 ||
                       Written == S.OrderedName
                   ? S.OrderedName
                   : Written + "`, which calls `" + S.OrderedName) +
              "`" + at(C->getBeginLoc()) +
              ", so its threads are not independent";
        return true;
      }
      // Shared memory and volatile data inside a callee count too.
      const FunctionDecl *Def = F->getDefinition();
      if (!Def)
        if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
          Def = P->getDefinition();
      if (Def && Def->hasBody() && Seen.insert(Def).second)
        TraverseDecl(const_cast<FunctionDecl *>(Def));
    }
    if (Callees.empty() &&
        !(isa<CXXOperatorCallExpr>(C) && C->isTypeDependent()))
      Why = "it calls `" + calleeName(C) + "`" + at(C->getBeginLoc()) +
            " indirectly or through a name that depends on a template "
            "parameter";
    return true;
  }

private:
  const SourceManager &SM;
  std::set<const FunctionDecl *> &Seen;
};

/// Base variables of the memory an expression reads and writes.
struct MemoryUse {
  std::set<const VarDecl *> Reads, Writes;
  bool Unknown = false, UnknownRead = false;
  std::string UnknownWhy;
  std::string PrefixEffect; ///< A side effect that must not run twice.
};

MemoryUse memoryOf(const Stmt *S, const FunctionDecl *FD,
                   const SourceManager &SM) {
  Accesses A = collectAccessesAllInstances(S, FD, SM);
  MemoryUse M;
  M.Reads = A.MemReads;
  M.Writes = A.MemWrites;
  M.Unknown = A.UnknownWrite || A.OpaqueCall;
  M.UnknownRead = A.UnknownRead;
  if (A.OpaqueCall)
    M.UnknownWhy = "the call to `" + A.OpaqueName + "` (line " +
                   std::to_string(SM.getExpansionLineNumber(
                       A.OpaqueCall->getBeginLoc())) +
                   ") has unknown effects: " + A.OpaqueWhy;
  else if (A.UnknownWrite)
    M.UnknownWhy = "a store (line " + std::to_string(A.FirstStoreLine) +
                   ") goes through a pointer warpwise cannot name";
  if (A.FirstStoreLine)
    M.PrefixEffect = "a store (line " + std::to_string(A.FirstStoreLine) + ")";
  return M;
}

std::string sourceText(const SourceManager &SM, const LangOptions &LO,
                       SourceRange R) {
  CharSourceRange FR =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (!FR.isValid())
    return "";
  return Lexer::getSourceText(FR, SM, LO).str();
}

/// `threadIdx.x`-style references in a statement: (object, component, range).
struct BuiltinRef {
  std::string Object, Component;
  CharSourceRange Range;
};

class BuiltinFinder : public RecursiveASTVisitor<BuiltinFinder> {
public:
  BuiltinFinder(const SourceManager &SM, const LangOptions &LO)
      : SM(SM), LO(LO) {}
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *P) {
    const Expr *B = P->getBaseExpr()->IgnoreParenImpCasts();
    if (auto *O = dyn_cast<OpaqueValueExpr>(B))
      B = O->getSourceExpr()->IgnoreParenImpCasts();
    auto *R = dyn_cast_or_null<DeclRefExpr>(B);
    if (!R)
      return true;
    std::string Obj = R->getDecl()->getNameAsString();
    if (Obj != "threadIdx" && Obj != "blockIdx" && Obj != "blockDim" &&
        Obj != "gridDim")
      return true;
    Refs.push_back(
        {Obj, P->getPropertyDecl()->getNameAsString(),
         Lexer::makeFileCharRange(
             CharSourceRange::getTokenRange(P->getSourceRange()), SM, LO)});
    return true;
  }
  std::vector<BuiltinRef> Refs;

private:
  const SourceManager &SM;
  const LangOptions &LO;
};

/// The variables a statement or expression refers to.
class VarRefs : public RecursiveASTVisitor<VarRefs> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *V = dyn_cast<VarDecl>(E->getDecl()))
      Vars.insert(V->getCanonicalDecl());
    return true;
  }
  std::set<const VarDecl *> Vars;
};

/// The variable whose storage an lvalue \p E names (`v`, `s.x`, `a[i]` of a
/// local array `a`), or null when it is reached through a pointer.
const VarDecl *storageVar(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return nullptr;
      E = M->getBase();
    } else if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      // `a[i]` of an array (the base decays from it), not of a pointer.
      const Expr *Base = A->getBase()->IgnoreParenImpCasts();
      if (!Base->getType()->isArrayType())
        return nullptr;
      E = Base;
    } else if (auto *R = dyn_cast<DeclRefExpr>(E)) {
      return dyn_cast<VarDecl>(R->getDecl());
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// What a prefix statement changes besides memory (legality kept memory
/// stores out of the prefix): the variables it assigns, increments, takes
/// the address of or passes by reference, and whether it does anything a
/// kernel that leaves it out would miss (leaves the kernel, writes through
/// something other than a variable, runs assembly).
struct PrefixEffects {
  std::set<const VarDecl *> Writes;
  bool MustKeep = false;
};

void collectPrefixEffects(const Stmt *S, PrefixEffects &E) {
  if (!S || E.MustKeep)
    return;
  auto Write = [&](const Expr *Target) {
    if (const VarDecl *V = storageVar(Target))
      E.Writes.insert(V->getCanonicalDecl());
    else
      E.MustKeep = true;
  };
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) ||
      isa<LabelStmt>(S) || isa<AsmStmt>(S)) {
    E.MustKeep = true;
    return;
  }
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->isAssignmentOp())
      Write(B->getLHS());
  } else if (auto *U = dyn_cast<UnaryOperator>(S)) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      Write(U->getSubExpr());
  } else if (auto *C = dyn_cast<CallExpr>(S)) {
    // Any argument a callee could write through: by reference, by pointer,
    // or to a callee not known; an operator's or a method's object too.
    const FunctionDecl *Callee = C->getDirectCallee();
    bool Operator = isa<CXXOperatorCallExpr>(C);
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      const Expr *A = C->getArg(I);
      QualType P = !Operator && Callee && I < Callee->getNumParams()
                       ? Callee->getParamDecl(I)->getType()
                       : QualType();
      if (P.isNull() || P->isReferenceType() || P->isPointerType())
        if (A->isGLValue() || A->getType()->isPointerType())
          if (const VarDecl *V = storageVar(A))
            E.Writes.insert(V->getCanonicalDecl());
    }
    if (auto *M = dyn_cast<CXXMemberCallExpr>(C))
      if (const VarDecl *V = storageVar(M->getImplicitObjectArgument()))
        E.Writes.insert(V->getCanonicalDecl());
  } else if (auto *C = dyn_cast<CXXConstructExpr>(S)) {
    for (const Expr *A : C->arguments())
      if (A->isGLValue())
        if (const VarDecl *V = storageVar(A))
          E.Writes.insert(V->getCanonicalDecl());
  } else if (auto *D = dyn_cast<DeclStmt>(S)) {
    for (const Decl *Dc : D->decls()) {
      auto *V = dyn_cast<VarDecl>(Dc);
      const CXXRecordDecl *R =
          V ? V->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl()
            : nullptr;
      // A declaration of anything else, a static or a reference (an alias
      // of another variable), or an object with a destructor of its own.
      if (!V || V->isStaticLocal() || V->getType()->isReferenceType() ||
          (R && R->hasDefinition() && !R->hasTrivialDestructor()))
        E.MustKeep = true;
      else
        E.Writes.insert(V->getCanonicalDecl());
    }
  }
  for (const Stmt *Child : S->children())
    collectPrefixEffects(Child, E);
}

/// The statements of \p Prefix that a kernel running \p Uses after them
/// needs: every statement that may leave the kernel (`if (...) return;`),
/// and every one that declares or writes a variable that \p Uses or a
/// statement kept after it reads. The prefix has no side effects (legality
/// checked that), so a statement left out changes only variables nothing
/// reads; kept, it would leave a variable nvcc warns about (#177 declared
/// but never referenced, #550 set but never used).
std::vector<const Stmt *> usedPrefix(const std::vector<const Stmt *> &Prefix,
                                     std::vector<const Stmt *> Uses) {
  VarRefs Needed;
  for (const Stmt *U : Uses)
    Needed.TraverseStmt(const_cast<Stmt *>(U));
  std::vector<const Stmt *> Kept;
  for (auto It = Prefix.rbegin(); It != Prefix.rend(); ++It) {
    PrefixEffects E;
    collectPrefixEffects(*It, E);
    if (!E.MustKeep && llvm::none_of(E.Writes, [&](const VarDecl *V) {
          return Needed.Vars.count(V);
        }))
      continue;
    Kept.push_back(*It);
    Needed.TraverseStmt(const_cast<Stmt *>(*It));
  }
  std::reverse(Kept.begin(), Kept.end());
  return Kept;
}

unsigned lineStart(llvm::StringRef Text, unsigned Pos);
unsigned aboveLineComments(llvm::StringRef Text, unsigned Offset);

/// The offsets of statement \p S in \p Text, its `;` included, widened to
/// whole lines when nothing else is on them; none when macros write it.
std::optional<std::pair<unsigned, unsigned>>
statementLines(const Stmt *S, const SourceManager &SM, const LangOptions &LO,
               llvm::StringRef Text) {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
  if (!R.isValid())
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  if (End > Text.size() || Begin > End)
    return std::nullopt;
  if (!Text.slice(Begin, End).rtrim().ends_with(";") &&
      !Text.slice(Begin, End).rtrim().ends_with("}")) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        R.getEnd().getLocWithOffset(-1), tok::semi, SM, LO,
        /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (Semi.isInvalid())
      return std::nullopt;
    End = SM.getFileOffset(Semi);
  }
  // Whole lines, with the statement's comments: a trailing `//` comment and
  // the `//` lines directly above it.
  unsigned LineBegin = lineStart(Text, Begin);
  size_t LineEnd = Text.find('\n', End);
  llvm::StringRef After = Text.slice(End, LineEnd).trim();
  if (!Text.slice(LineBegin, Begin).trim().empty() ||
      LineEnd == llvm::StringRef::npos ||
      !(After.empty() || After.starts_with("//")))
    return std::make_pair(Begin, End);
  return std::make_pair(aboveLineComments(Text, Begin),
                        static_cast<unsigned>(LineEnd + 1));
}

/// The source of \p S with each builtin reference that \p Rename maps to a
/// non-empty string replaced by it, and top-level `return` statements of
/// \p Returns turned into \p ReturnAs.
std::string
renderMapped(const Stmt *S, const SourceManager &SM, const LangOptions &LO,
             const std::function<std::string(const BuiltinRef &)> &Rename,
             const std::set<const Stmt *> &Returns = {},
             const std::string &ReturnAs = "") {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
  if (!R.isValid())
    return "";
  unsigned Begin = SM.getFileOffset(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Edits;
  BuiltinFinder BF(SM, LO);
  BF.TraverseStmt(const_cast<Stmt *>(S));
  for (const BuiltinRef &B : BF.Refs) {
    if (!B.Range.isValid())
      return "";
    std::string To = Rename(B);
    if (To.empty())
      continue;
    Edits.push_back({{SM.getFileOffset(B.Range.getBegin()),
                      SM.getFileOffset(B.Range.getEnd())},
                     To});
  }
  for (const Stmt *Ret : Returns) {
    CharSourceRange RR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Ret->getSourceRange()), SM, LO);
    unsigned RB = SM.getFileOffset(RR.getBegin());
    if (RB >= Begin && RB < End)
      Edits.push_back({{RB, SM.getFileOffset(RR.getEnd())}, ReturnAs});
  }
  std::sort(Edits.begin(), Edits.end());
  llvm::StringRef File = SM.getBufferData(SM.getFileID(R.getBegin()));
  std::string Out;
  unsigned Pos = Begin;
  for (auto &[Rg, T] : Edits) {
    if (Rg.first < Pos)
      continue;
    Out += File.substr(Pos, Rg.first - Pos).str() + T;
    Pos = Rg.second;
  }
  Out += File.substr(Pos, End - Pos).str();
  return withSemicolon(S, Out, SM, LO);
}

/// The source of \p S with `threadIdx.x` and `blockIdx.x` renamed to
/// \p Thread and \p Block (the forms that use it handle `.x` only).
std::string renderWith(const Stmt *S, const SourceManager &SM,
                       const LangOptions &LO, const std::string &Thread,
                       const std::string &Block,
                       const std::set<const Stmt *> &Returns = {},
                       const std::string &ReturnAs = "") {
  return renderMapped(
      S, SM, LO,
      [&](const BuiltinRef &B) {
        return B.Object == "threadIdx"  ? Thread
               : B.Object == "blockIdx" ? Block
                                        : std::string();
      },
      Returns, ReturnAs);
}

/// The source of \p S as written, with the `return` statements of
/// \p Returns turned into \p ReturnAs.
std::string renderAsWritten(const Stmt *S, const SourceManager &SM,
                            const LangOptions &LO,
                            const std::set<const Stmt *> &Returns = {},
                            const std::string &ReturnAs = "") {
  return renderMapped(
      S, SM, LO, [](const BuiltinRef &) { return std::string(); }, Returns,
      ReturnAs);
}

/// The source of \p S as the adaptive form's heavy kernel runs it: every
/// component of threadIdx, blockIdx and gridDim taken from the listed
/// thread's own (`ww_thread.y`, `ww_block.x`, `ww_grid.z`).
std::string renderListed(const Stmt *S, const SourceManager &SM,
                         const LangOptions &LO,
                         const std::set<const Stmt *> &Returns,
                         const std::string &ReturnAs) {
  return renderMapped(
      S, SM, LO,
      [&](const BuiltinRef &B) {
        const char *To = B.Object == "threadIdx" ? "ww_thread."
                         : B.Object == "blockIdx" ? "ww_block."
                         : B.Object == "gridDim"  ? "ww_grid."
                                                  : nullptr;
        return To ? To + B.Component : std::string();
      },
      Returns, ReturnAs);
}

/// One launch to rewrite, with its configuration and arguments as they will
/// be spelled: an expression with side effects is evaluated once into a
/// typed temporary (declared in Temps) and referred to by name.
struct LaunchSite {
  unsigned Begin = 0, Length = 0; ///< From the kernel name to the ';'.
  unsigned Line = 0;
  std::string Tag;       ///< "<line>_<n>", for unique temporary names.
  std::string Temps;     ///< Declarations of the temporaries.
  std::string Config[4]; ///< grid, block, shared bytes, stream.
  bool Written[4] = {false, false, false, false};
  std::string Args; ///< "a, b, c".
  /// The kernel's name as the launch spells it, qualifier included
  /// (`lab::pick`); the new kernels' names are this plus a suffix.
  std::string Callee;
  /// Template arguments of a launch of a template kernel, appended to the
  /// new kernels' names: as written (`<T>`, may be empty when deduced), and
  /// complete (`<float>`; empty when a dependent launch deduces some).
  std::string TemplateArgs, FullTemplateArgs;

  std::string configAsWritten() const {
    std::string Out;
    for (unsigned I = 0; I < 4; ++I)
      if (Written[I])
        Out += (Out.empty() ? "" : ", ") + Config[I];
    return Out;
  }
  std::string shared() const { return Written[2] ? Config[2] : "0"; }
  std::string stream() const { return Written[3] ? Config[3] : "0"; }
  std::string argsThen(const std::string &More) const {
    return Args + (Args.empty() ? "" : ", ") + More;
  }
};

/// The launches of a kernel as written: of the function itself, of a
/// specialization of it when it is a template, and launches inside function
/// templates whose callee still names the template (`k<T><<<...>>>`).
/// Instantiated copies of a launch are not visited: the source has one.
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(const FunctionDecl *K) : Kernel(K) {}
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *C) {
    if (launches(C))
      Launches.push_back(C);
    return true;
  }
  const FunctionDecl *Kernel;
  std::vector<const CUDAKernelCallExpr *> Launches;

private:
  bool launches(const CUDAKernelCallExpr *C) const {
    const FunctionTemplateDecl *FT = Kernel->getDescribedFunctionTemplate();
    if (const FunctionDecl *F = C->getDirectCallee()) {
      if (F->getCanonicalDecl() == Kernel->getCanonicalDecl())
        return true;
      const FunctionTemplateDecl *Primary = F->getPrimaryTemplate();
      return FT && Primary &&
             Primary->getCanonicalDecl() == FT->getCanonicalDecl();
    }
    auto *Lookup =
        dyn_cast<OverloadExpr>(C->getCallee()->IgnoreParenImpCasts());
    if (!Lookup || !FT)
      return false;
    for (const NamedDecl *D : Lookup->decls())
      if (D->getUnderlyingDecl()->getCanonicalDecl() == FT->getCanonicalDecl())
        return true;
    return false;
  }
};

/// The compact form's list allocator: one stream-ordered pool per device,
/// created on first use (a function-local static, so creation is
/// thread-safe) and kept reserved between launches. 0 for a device beyond
/// the table or one without pools: the launch then uses cudaMallocAsync.
const char *const ListPoolHelper =
    R"(// warpwise: one memory pool per device for the thread lists of the compact
// split form, kept reserved between launches (the default pool releases its
// memory at every synchronization) [WW4003]
static cudaMemPool_t ww_list_pool(int device) {
  struct Pools {
    cudaMemPool_t pool[64];
    int count;
    Pools() : count(0) {
      if (cudaGetDeviceCount(&count) != cudaSuccess)
        count = 0;
      if (count > 64)
        count = 64;
      for (int d = 0; d < count; ++d) {
        cudaMemPoolProps props = cudaMemPoolProps();
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        pool[d] = 0;
        if (cudaMemPoolCreate(&pool[d], &props) != cudaSuccess) {
          pool[d] = 0;
          continue;
        }
        unsigned long long keep = ~0ull;
        cudaMemPoolSetAttribute(pool[d], cudaMemPoolAttrReleaseThreshold,
                                &keep);
      }
    }
  };
  static Pools pools;
  return device >= 0 && device < pools.count ? pools.pool[device] : 0;
}

)";

/// The adaptive form's host side, emitted once per file: per launch site and
/// device, a list buffer and two counters that stay allocated and belong to
/// the stream that first used them, and mapped host memory where the heavy
/// kernel publishes the counts of each split launch. ww_adaptive_begin reads
/// the latest published counts (without synchronizing: they may be a few
/// launches old) and chooses the split pair when the warp-executions of the
/// heavy side it saves exceed the threshold of rules/split.json; otherwise
/// the original kernel, with a split launch every `recheck_every` launches
/// to see whether the data changed.
const char *const AdaptiveHelperTemplate =
    R"(// warpwise: run-time dispatch of the adaptive split form [WW4003]. Per
// launch site and device: a thread list and counters that stay allocated and
// belong to the stream that first used them, and mapped host memory where the
// heavy kernel publishes each split launch's counts. Counted in warps that run
// the heavy side, from the latest published counts: the original runs it in
// every mixed (M) and uniformly heavy (U) warp; path 1 (uniform warps in
// place, mixed warps' heavy threads listed) in U warps plus the list; path 2
// (every heavy thread listed, the light side in a kernel of its own) over the
// list; a listed warp counts @COST@. The cheaper path (path 2 on a tie) runs
// when it saves at least @SAVED@ of the launch's warps; otherwise the original,
// with a split launch after @RECHECK@ launches to look at the data again, the
// wait doubling while the original keeps winning. Nothing here synchronizes;
// the counts are read after the launches (ww_adaptive_end), off the path to
// the GPU. -DWARPWISE_SPLIT_PATH=0 pins the original kernel, =1 or =2
// that path (where the launch allows one).
#include <mutex>

struct ww_adaptive_device {
  unsigned long long *counts; // mixed warps << 32 | listed; blocks; uniform
  int *list;
  unsigned long long capacity;
  // Published: launches, listed, mixed warps, threads, uniform warps, path.
  volatile unsigned long long *stats;
  unsigned long long *stats_on_device;
  cudaStream_t stream;
  int state; // 0: unused, 1: ready, -1: unusable (the original runs)
  unsigned path, probe_path;
  unsigned long long seen;
  unsigned long long expected[3]; // Threads each path would list.
  unsigned since_probe, interval, sms;
};

struct ww_adaptive_site {
  std::mutex lock;
  ww_adaptive_device device[16];
  ww_adaptive_site() : device() {}
};

struct ww_adaptive_plan {
  std::unique_lock<std::mutex> hold;
  ww_adaptive_device *device; // For ww_adaptive_end; 0: nothing to learn.
  unsigned path; // 0: the original kernel; 1, 2: a split pair
  unsigned heavy_blocks;
  unsigned long long threads; // Of the original launch.
  unsigned long long *counts;
  int *list;
  unsigned long long *stats;
};

static inline ww_adaptive_plan ww_adaptive_begin(ww_adaptive_site &site,
                                                 dim3 grid, dim3 block,
                                                 cudaStream_t stream) {
  ww_adaptive_plan plan = ww_adaptive_plan();
  plan.path = 0u;
#if defined(WARPWISE_SPLIT_PATH) && WARPWISE_SPLIT_PATH == 0
  (void)site, (void)grid, (void)block, (void)stream;
  return plan;
#else
  const unsigned long long per_block =
      (unsigned long long)block.x * block.y * block.z;
  const unsigned long long threads =
      (unsigned long long)grid.x * grid.y * grid.z * per_block;
  if (per_block % 32u != 0u || threads == 0u || threads >= 0x80000000ull)
    return plan; // Partial warps, or thread ids beyond the counters' word.
  int dev = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  // The legacy default stream is never captured; asking costs time on every
  // launch.
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
  const bool may_capture = stream != cudaStreamLegacy;
#else
  const bool may_capture = stream != 0 && stream != cudaStreamLegacy;
#endif
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 16 ||
      (may_capture && (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
                       capture != cudaStreamCaptureStatusNone))) {
    (void)cudaGetLastError(); // Only the error of the query, if any.
    return plan; // A captured graph replays the original kernel.
  }
  plan.hold = std::unique_lock<std::mutex>(site.lock);
  ww_adaptive_device &d = site.device[dev];
  if (d.state == 0) {
    d.state = -1;
    int sms = 0;
    void *host = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        cudaHostAlloc(&host, 6 * sizeof(unsigned long long),
                      cudaHostAllocMapped) != cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    d.stats = (volatile unsigned long long *)host;
    for (int i = 0; i < 6; ++i)
      d.stats[i] = 0u;
    if (cudaHostGetDevicePointer((void **)&d.stats_on_device, host, 0) !=
            cudaSuccess ||
        cudaMallocAsync((void **)&d.counts, 3 * sizeof(unsigned long long),
                        stream) != cudaSuccess ||
        cudaMemsetAsync(d.counts, 0, 3 * sizeof(unsigned long long),
                        stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    d.stream = stream;
    d.sms = sms > 0 ? (unsigned)sms : 1u;
    d.probe_path = 2u;
    d.interval = @RECHECK@u;
    d.since_probe = @RECHECK@u - 1u; // The first launch looks at the data.
    d.state = 1;
  }
  if (d.state != 1 || d.stream != stream)
    return plan; // The buffers belong to another stream's launches.
  plan.device = &d;
  unsigned path = d.path;
  if (path == 0u && ++d.since_probe >= d.interval) {
    d.since_probe = 0u;
    path = d.probe_path;
  }
#if defined(WARPWISE_SPLIT_PATH) && (WARPWISE_SPLIT_PATH == 1 || WARPWISE_SPLIT_PATH == 2)
  path = WARPWISE_SPLIT_PATH;
#endif
  if (path == 0u)
    return plan;
  if (d.capacity < threads) {
    int *grown = 0;
    if (cudaMallocAsync((void **)&grown, threads * sizeof(int), stream) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      return plan;
    }
    if (d.list)
      cudaFreeAsync(d.list, stream);
    d.list = grown;
    d.capacity = threads;
  }
  // The heavy grid: enough blocks for the last published list, at least one
  // per SM, at most the original grid; its loop takes any excess.
  const unsigned long long blocks = grid.x * grid.y * grid.z;
  unsigned long long want =
      (unsigned long long)(@MARGIN@ * (double)d.expected[path]) / per_block +
      1u;
  if (want < d.sms)
    want = d.sms;
  plan.heavy_blocks = (unsigned)(want < blocks ? want : blocks);
  plan.path = path;
  plan.threads = threads;
  plan.counts = d.counts;
  plan.list = d.list;
  plan.stats = d.stats_on_device;
  return plan;
#endif
}

// After the launches (the GPU is busy with them): the counts published since
// the last look decide the next launches' path.
static inline void ww_adaptive_end(ww_adaptive_plan &plan) {
  if (!plan.device)
    return;
  ww_adaptive_device &d = *plan.device;
  const unsigned long long published = d.stats[0];
  if (published != d.seen) {
    d.seen = published;
    const double listed = (double)d.stats[1], mixed = (double)d.stats[2],
                 warps = (double)d.stats[3] / 32.0,
                 uniform = (double)d.stats[4];
    // Heavy threads of mixed warps (L) and in all (H), from either path.
    double in_mixed = listed, heavy = listed + 32.0 * uniform;
    if (d.stats[5] == 2u) {
      heavy = listed;
      in_mixed = listed - 32.0 * uniform > 0.0 ? listed - 32.0 * uniform : 0.0;
    }
    const double original = mixed + uniform;
    const double in_place = uniform + @COST@ * in_mixed / 32.0;
    const double light = @COST@ * heavy / 32.0;
    // Ties go to path 2: its first kernel has the light side's registers.
    const unsigned best = light <= in_place ? 2u : 1u;
    const double cost = best == 2u ? light : in_place;
    d.path = original - cost >= @SAVED@ * warps ? best : 0u;
    d.probe_path = best;
    // Each look that keeps the original doubles the wait for the next one
    // (up to 32 times the first); a split resets it.
    d.interval = d.path != 0u ? @RECHECK@u
                 : d.interval < 32u * @RECHECK@u ? 2u * d.interval
                                                 : d.interval;
    d.expected[1] = (unsigned long long)in_mixed;
    d.expected[2] = (unsigned long long)heavy;
  }
}

)";

/// The helper with the policy's constants of rules/split.json filled in.
std::string adaptiveHelper() {
  nlohmann::json Rules =
      nlohmann::json::parse(findEmbeddedFile("split.json"), nullptr, false);
  nlohmann::json P = Rules.is_object() ? Rules.value("adaptive", nlohmann::json::object())
                                       : nlohmann::json::object();
  auto Num = [&](const char *Key, double Default) {
    double V = P.is_object() ? P.value(Key, Default) : Default;
    char Buf[32];
    snprintf(Buf, sizeof Buf, "%g", V);
    std::string S = Buf;
    if (S.find_first_of(".e") == std::string::npos)
      S += ".0";
    return S;
  };
  std::string Recheck = std::to_string(
      P.is_object() ? P.value("recheck_every", 32u) : 32u);
  std::string Out = AdaptiveHelperTemplate;
  auto Put = [&](const std::string &Key, const std::string &Value) {
    for (size_t At; (At = Out.find(Key)) != std::string::npos;)
      Out.replace(At, Key.size(), Value);
  };
  Put("@RECHECK@", Recheck);
  Put("@COST@", Num("listed_warp_cost", 1.5));
  Put("@SAVED@", Num("min_saved_warp_fraction", 0.05));
  Put("@MARGIN@", Num("heavy_grid_margin", 1.25));
  return Out;
}

/// True when every shape is known, one-dimensional and whole warps wide.
bool oneDimensionalWarps(const std::vector<std::array<unsigned, 3>> &Shapes) {
  return !Shapes.empty() &&
         llvm::all_of(Shapes, [](const std::array<unsigned, 3> &D) {
           return D[1] == 1 && D[2] == 1 && D[0] % 32 == 0;
         });
}

/// The start of the `//` comment lines directly above the line holding
/// \p Offset (none: the start of that line), so that an insertion there
/// does not separate a declaration from its comment.
/// The offset where the line holding \p Pos begins.
unsigned lineStart(llvm::StringRef Text, unsigned Pos) {
  size_t NL = Text.rfind('\n', Pos); // Looks at the bytes before Pos.
  return NL == llvm::StringRef::npos ? 0 : NL + 1;
}

unsigned aboveLineComments(llvm::StringRef Text, unsigned Offset) {
  unsigned Start = lineStart(Text, Offset);
  if (!Text.slice(Start, Offset).trim().empty())
    return Offset; // Something else precedes it on its line.
  while (Start > 0) {
    unsigned PrevStart = lineStart(Text, Start - 1);
    if (!Text.slice(PrevStart, Start - 1).trim().starts_with("//"))
      break;
    Start = PrevStart;
  }
  return Start;
}

/// `lab::pick` for `lab::pick<2><<<...>>>`: the callee up to its name.
std::string writtenCalleeName(const CUDAKernelCallExpr *Call,
                              const SourceManager &SM, const LangOptions &LO) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation End;
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee))
    End = Ref->getNameInfo().getLoc();
  else if (auto *Lookup = dyn_cast<OverloadExpr>(Callee))
    End = Lookup->getNameLoc();
  if (End.isInvalid())
    return "";
  return sourceText(SM, LO, SourceRange(Callee->getBeginLoc(), End));
}

/// `<T, 4>` as written after the callee's name, or "".
std::string writtenTemplateArgs(const CUDAKernelCallExpr *Call,
                                const SourceManager &SM,
                                const LangOptions &LO) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation L, R;
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee)) {
    if (Ref->hasExplicitTemplateArgs()) {
      L = Ref->getLAngleLoc();
      R = Ref->getRAngleLoc();
    }
  } else if (auto *Lookup = dyn_cast<OverloadExpr>(Callee)) {
    if (Lookup->hasExplicitTemplateArgs()) {
      L = Lookup->getLAngleLoc();
      R = Lookup->getRAngleLoc();
    }
  }
  if (L.isInvalid() || R.isInvalid())
    return "";
  return sourceText(SM, LO, SourceRange(L, R));
}

/// `<float, 4>`: every template argument of the launched specialization,
/// or "" when the launch is still dependent.
std::string fullTemplateArgs(const CUDAKernelCallExpr *Call,
                             const ASTContext &Ctx) {
  const FunctionDecl *F = Call->getDirectCallee();
  const TemplateArgumentList *Args =
      F ? F->getTemplateSpecializationArgs() : nullptr;
  if (!Args)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  printTemplateArgumentList(OS, Args->asArray(), PP);
  return OS.str();
}

} // namespace

/// The form --split-form asks for \p Kernel: the one form for all kernels,
/// its entry in KERNEL=FORM[,...], or "" (the planner decides).
static std::string splitFormFor(llvm::StringRef Spec, llvm::StringRef Kernel) {
  if (!Spec.contains('='))
    return Spec.str();
  llvm::SmallVector<llvm::StringRef> Parts;
  Spec.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    auto [Name, Form] = P.trim().split('=');
    if (Name.trim() == Kernel)
      return Form.trim().str();
  }
  return "";
}

void BranchSplit::run(TransformContext &TC, std::vector<Decision> &Decisions,
                      std::vector<Change> &Changes) {
  if (TC.SplitForm == "none")
    return;
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  // The compact form's pool helper and the adaptive form's dispatch helper
  // each go in once, with the first kernels that use them (launches follow
  // their kernel, so every later one sees them); a file rewritten before has
  // them already.
  auto Defines = [&](llvm::StringRef Name) {
    return llvm::any_of(Ctx.getTranslationUnitDecl()->decls(), [&](Decl *D) {
      auto *F = dyn_cast<FunctionDecl>(D);
      return F && F->getIdentifier() && F->getName() == Name;
    });
  };
  const bool FileHasPoolHelper = Defines("ww_list_pool");
  const bool FileHasAdaptiveHelper = Defines("ww_adaptive_begin");
  bool NeedPoolHelper = !FileHasPoolHelper;
  bool NeedAdaptiveHelper = !FileHasAdaptiveHelper;
  AliasFacts Facts = collectAliasFacts(Ctx);
  for (const FunctionDecl *FD : deviceCodeDefinitions(Ctx, false, TC.Scope)) {
    // Host code that every later launch can name goes before this.
    const Decl *TopDecl = fileScopeDeclOf(FD);
    // This kernel's --split-form, for the planner.
    TransformContext KTC = TC;
    KTC.SplitForm = splitFormFor(TC.SplitForm, FD->getName());
    if (KTC.SplitForm == "none")
      continue;
    auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
    if (!Body)
      continue;
    // The first top-level if-else whose condition diverges inside warps.
    const IfStmt *If = nullptr;
    const BranchInfo *Verdict = nullptr;
    std::vector<const Stmt *> Prefix;
    for (const Stmt *S : Body->body()) {
      auto *I = dyn_cast<IfStmt>(S);
      if (I && I->getElse() && !If) {
        unsigned Line = SM.getExpansionLineNumber(I->getBeginLoc());
        unsigned Col = SM.getExpansionColumnNumber(I->getBeginLoc());
        for (const KernelInfo &K : TC.Analysis.Kernels)
          for (const BranchInfo &B : K.Branches)
            if (B.Function == FD->getNameAsString() && B.Line == Line &&
                B.Column == Col && B.Level == Uniformity::Divergent) {
              If = I;
              Verdict = &B;
            }
        if (If)
          break;
      }
      Prefix.push_back(S);
    }
    if (!If)
      continue;
    // The branch is one of the body's statements; what follows it runs in
    // both kernels.
    std::vector<const Stmt *> Suffix(
        std::next(std::find(Body->body_begin(), Body->body_end(), If)),
        Body->body_end());
    unsigned Line = SM.getExpansionLineNumber(If->getBeginLoc());
    unsigned Col = SM.getExpansionColumnNumber(If->getBeginLoc());
    Decision Dn;
    Dn.Transform = name();
    Dn.Kernel = FD->getNameAsString();
    Dn.Line = Line;
    // The kernel may be in a project header: its new kernels go there, its
    // launches are rewritten in the main file, and each edit names its file.
    const std::string KFile = TC.fileOf(FD->getLocation());
    const llvm::StringRef KText = TC.textOf(FD->getLocation());
    const std::string KShown = TC.displayOf(FD->getLocation());
    Dn.File = TC.decisionFileOf(FD->getLocation());
    std::string Where =
        "if-else at line " + std::to_string(Line) + " of `" + Dn.Kernel + "`";
    // The decision's name, in every comment its code carries; taken only
    // when it is applied.
    const std::string Tag =
        "WW4003 " + TC.nextDecisionId(name(), Dn.Kernel, KText);
    auto Decline = [&](const std::string &Why) {
      Dn.Reason = Where + " is divergent, but it cannot be split: " + Why;
      TC.Log.report("WW3003", Severity::Remark, KShown, Line, Col,
                    std::string(name()) + ": " + Dn.Reason);
      Decisions.push_back(Dn);
    };
    Steer Steering = TC.steer(name(), FD, If->getBeginLoc());
    if (Steering.disabled()) {
      Dn.Reason = Where + ": disabled by " + Steering.Source +
                  "; not considered";
      TC.Log.report("WW3003", Severity::Remark, KShown, Line, Col,
                    std::string(name()) + ": " + Dn.Reason);
      Decisions.push_back(Dn);
      continue;
    }
    SteerScope Steered(KTC, Steering, name());
    const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate();
    if (FT && llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
          return P->isParameterPack();
        })) {
      Decline("it takes a function parameter pack; the launches' arguments "
              "cannot be matched to parameters before instantiation");
      continue;
    }
    // Threads must be independent: nothing shared, no barriers, no atomics.
    std::set<const FunctionDecl *> Seen{FD};
    ThreadIndependence TI(SM, Seen);
    TI.TraverseStmt(Body);
    if (!TI.Why.empty()) {
      Decline(TI.Why);
      continue;
    }
    // The prefix and the condition run in both kernels: no side effects, and
    // nothing they read may be written by either side or the suffix.
    MemoryUse Pre;
    for (const Stmt *S : Prefix) {
      MemoryUse M = memoryOf(S, FD, SM);
      Pre.Reads.insert(M.Reads.begin(), M.Reads.end());
      Pre.UnknownRead |= M.UnknownRead;
      if (!M.Writes.empty() || M.Unknown) {
        Pre.PrefixEffect = M.PrefixEffect.empty() || !M.UnknownWhy.empty()
                               ? M.UnknownWhy
                               : M.PrefixEffect;
        break;
      }
    }
    if (!Pre.PrefixEffect.empty()) {
      Decline("the code before the branch has " + Pre.PrefixEffect +
              ", and it would run in both kernels");
      continue;
    }
    if (If->getCond()->isInstantiationDependent()) {
      Decline("its condition depends on template parameters, so it cannot "
              "be shown free of side effects before instantiation");
      continue;
    }
    if (hasEffects(If->getCond()) || If->getConditionVariable() ||
        If->getInit()) {
      Decline("its condition has side effects or declares a variable");
      continue;
    }
    MemoryUse CondM = memoryOf(If->getCond(), FD, SM);
    Pre.Reads.insert(CondM.Reads.begin(), CondM.Reads.end());
    Pre.UnknownRead |= CondM.UnknownRead;
    MemoryUse Rest = memoryOf(If->getThen(), FD, SM);
    MemoryUse ElseM = memoryOf(If->getElse(), FD, SM);
    Rest.Writes.insert(ElseM.Writes.begin(), ElseM.Writes.end());
    if (Rest.UnknownWhy.empty())
      Rest.UnknownWhy = ElseM.UnknownWhy;
    Rest.Unknown |= ElseM.Unknown;
    for (const Stmt *S : Suffix) {
      MemoryUse M = memoryOf(S, FD, SM);
      Rest.Writes.insert(M.Writes.begin(), M.Writes.end());
      if (Rest.UnknownWhy.empty())
        Rest.UnknownWhy = M.UnknownWhy;
      Rest.Unknown |= M.Unknown;
    }
    std::string Alias;
    Facts.Used.clear();
    for (const VarDecl *R : Pre.Reads)
      for (const VarDecl *W : Rest.Writes)
        if (Alias.empty() && mayAlias(R, W, &Facts))
          Alias = "the condition's inputs are read through `" +
                  R->getNameAsString() + "`, which may alias `" +
                  W->getNameAsString() +
                  "` that the branch writes (neither is __restrict__); the "
                  "second kernel could see the first one's writes";
    if (Alias.empty() && Rest.Unknown)
      Alias = Rest.UnknownWhy.empty()
                  ? "the branch writes memory warpwise cannot name"
                  : Rest.UnknownWhy;
    if (Alias.empty() && Pre.UnknownRead && !Rest.Writes.empty())
      Alias = "the condition's inputs include a load warpwise cannot name, "
              "and the branch writes memory";
    if (!Alias.empty()) {
      Decline(Alias);
      continue;
    }
    // Every launch in the file must be rewritable.
    LaunchFinder LF(FD);
    LF.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (LF.Launches.empty()) {
      Decline("no launch of it in this file to rewrite");
      continue;
    }
    // In the translation unit's order: the kernel may be in a header, the
    // launches in the main file.
    SourceLocation KernelEnd = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(FD->getEndLoc()), 0, SM, LO);
    std::vector<tooling::Replacement> LaunchEdits;
    std::vector<LaunchSite> Sites;
    std::string LaunchProblem;
    for (const CUDAKernelCallExpr *Call : LF.Launches) {
      unsigned LL = SM.getExpansionLineNumber(Call->getBeginLoc());
      if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID()) {
        llvm::StringRef Macro =
            Lexer::getImmediateMacroName(Call->getBeginLoc(), SM, LO);
        LaunchProblem = "the launch at line " + std::to_string(LL) +
                        " is inside the macro `" + Macro.str() + "`";
        break;
      }
      // Launches are rewritten in the main file only (the analysis records
      // no others); one in a header would keep running the original.
      if (!SM.isInMainFile(SM.getExpansionLoc(Call->getBeginLoc()))) {
        LaunchProblem =
            "the launch at line " + std::to_string(LL) + " of " +
            TC.displayOf(Call->getBeginLoc()) +
            " is in a header, and warpwise rewrites launches only in the "
            "main file";
        break;
      }
      if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Call->getBeginLoc()),
                                       KernelEnd)) {
        LaunchProblem = "the launch at line " + std::to_string(LL) +
                        " comes before the kernel's definition";
        break;
      }
      // The launch must be a statement of its own.
      DynTypedNodeList Parents = Ctx.getParents(*Call);
      const Stmt *Top = Call;
      if (!Parents.empty())
        if (auto *Cleanups = Parents[0].get<ExprWithCleanups>()) {
          Top = Cleanups;
          Parents = Ctx.getParents(*Cleanups);
        }
      if (Parents.empty() || Parents[0].get<Expr>()) {
        LaunchProblem = "the launch at line " + std::to_string(LL) +
                        " is used inside an expression";
        break;
      }
      SourceLocation Semi =
          Lexer::findLocationAfterToken(Top->getEndLoc(), tok::semi, SM, LO,
                                        /*SkipTrailingWhitespace=*/false);
      if (Semi.isInvalid()) {
        LaunchProblem = "the launch at line " + std::to_string(LL) +
                        " is not followed by ';'";
        break;
      }
      // Configuration and arguments: evaluated once when they have side
      // effects, in temporaries whose types are spelled out.
      PrintingPolicy PP(LO);
      LaunchSite Site;
      Site.Line = LL;
      Site.Tag = std::to_string(LL) + "_" + std::to_string(Sites.size());
      const CallExpr *Cfg = Call->getConfig();
      static const char *const CfgType[] = {"dim3", "dim3", "size_t",
                                            "cudaStream_t"};
      static const char *const CfgName[] = {"grid", "block", "shared",
                                            "stream"};
      for (unsigned I = 0; Cfg && I < Cfg->getNumArgs() && I < 4; ++I) {
        const Expr *A = Cfg->getArg(I);
        if (isa<CXXDefaultArgExpr>(A))
          continue;
        std::string T = sourceText(SM, LO, A->getSourceRange());
        if (hasEffects(A)) {
          // `_value_`: the compact and efficient forms declare their own
          // `ww_grid_<tag>` and `ww_block_<tag>` from this.
          std::string N =
              "ww_" + std::string(CfgName[I]) + "_value_" + Site.Tag;
          Site.Temps +=
              std::string(CfgType[I]) + " const " + N + " = " + T + "; ";
          T = N;
        }
        Site.Config[I] = T;
        Site.Written[I] = true;
      }
      Site.Callee = writtenCalleeName(Call, SM, LO);
      if (Site.Callee.empty())
        Site.Callee = Dn.Kernel;
      Site.TemplateArgs = writtenTemplateArgs(Call, SM, LO);
      Site.FullTemplateArgs = fullTemplateArgs(Call, Ctx);
      // A dependent launch that spells every argument (`k<T, N>`) names its
      // instantiation too.
      if (Site.FullTemplateArgs.empty() && FT)
        if (auto *Lookup = dyn_cast<OverloadExpr>(
                Call->getCallee()->IgnoreParenImpCasts()))
          if (Lookup->getNumTemplateArgs() ==
              FT->getTemplateParameters()->size())
            Site.FullTemplateArgs = Site.TemplateArgs;
      // The parameter types of what is launched: the specialization's when
      // the kernel is a template (the template's own may name T).
      const FunctionDecl *Launched =
          Call->getDirectCallee() ? Call->getDirectCallee() : FD;
      for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
        const Expr *A = Call->getArg(I);
        std::string T = sourceText(SM, LO, A->getSourceRange());
        if (hasEffects(A)) {
          QualType PT = I < Launched->getNumParams()
                            ? Launched->getParamDecl(I)->getType()
                            : QualType();
          if (PT.isNull() || PT->isDependentType()) {
            LaunchProblem = "argument " + std::to_string(I + 1) +
                            " of the launch at line " + std::to_string(LL) +
                            " has side effects and a type that depends on "
                            "template parameters, so it cannot be evaluated "
                            "once into a temporary";
            break;
          }
          std::string N = "ww_arg" + std::to_string(I) + "_" + Site.Tag;
          Site.Temps += PT.getAsString(PP) + " const " + N + " = " + T + "; ";
          T = N;
        }
        Site.Args += (Site.Args.empty() ? "" : ", ") + T;
      }
      if (!LaunchProblem.empty())
        break;
      Site.Begin = SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc()));
      Site.Length = SM.getFileOffset(Semi) - Site.Begin;
      std::string Config = Site.configAsWritten();
      std::string Text =
          "{ // warpwise " + Tag + ": split launch\n" + Site.Temps +
          Site.Callee + "_ww_then" + Site.TemplateArgs +
          "<<<" + Config + ">>>(" + Site.Args + "); " + Site.Callee +
          "_ww_else" + Site.TemplateArgs + "<<<" + Config + ">>>(" + Site.Args +
          "); }";
      LaunchEdits.push_back(
          tooling::Replacement(TC.File, Site.Begin, Site.Length, Text));
      Sites.push_back(std::move(Site));
    }
    if (!LaunchProblem.empty()) {
      Decline(LaunchProblem);
      continue;
    }
    // The two kernels: the original's text, renamed, with the branch
    // replaced by an early exit and one side.
    // A template kernel's text starts at `template <...>`.
    CharSourceRange KR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(FT ? FT->getSourceRange()
                                          : FD->getSourceRange()),
        SM, LO);
    CharSourceRange IR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(If->getSourceRange()), SM, LO);
    std::string Cond = sourceText(SM, LO, If->getCond()->getSourceRange());
    std::string ThenText = sourceText(SM, LO, If->getThen()->getSourceRange());
    std::string ElseText = sourceText(SM, LO, If->getElse()->getSourceRange());
    if (!KR.isValid() || !IR.isValid() || Cond.empty() || ThenText.empty() ||
        ElseText.empty()) {
      Decline("part of the kernel is written with macros");
      continue;
    }
    ThenText = withSemicolon(If->getThen(), ThenText, SM, LO);
    ElseText = withSemicolon(If->getElse(), ElseText, SM, LO);
    unsigned KB = SM.getFileOffset(KR.getBegin());
    unsigned KE = SM.getFileOffset(KR.getEnd());
    unsigned IB = SM.getFileOffset(IR.getBegin()) - KB;
    unsigned IE = SM.getFileOffset(IR.getEnd()) - KB;
    if (!isa<CompoundStmt>(If->getElse())) {
      SourceLocation Semi = Lexer::findLocationAfterToken(
          If->getEndLoc(), tok::semi, SM, LO, false);
      if (Semi.isValid())
        IE = SM.getFileOffset(Semi) - KB;
    }
    unsigned NameOff =
        SM.getFileOffset(SM.getExpansionLoc(FD->getLocation())) - KB;
    std::string Original = KText.substr(KB, KE - KB).str();
    std::string Indent(Col > 0 ? Col - 1 : 0, ' ');
    auto Make = [&](bool ThenSide) {
      std::string T = Original;
      std::string Branch = ThenSide ? "if (!(" + Cond + "))\n" + Indent +
                                          "  return;\n" + Indent + ThenText
                                    : "if (" + Cond + ")\n" + Indent +
                                          "  return;\n" + Indent + ElseText;
      T.replace(IB, IE - IB, Branch);
      // Without the prefix statements this side does not use, last first
      // (they all precede the branch).
      std::vector<const Stmt *> Uses(Suffix);
      Uses.push_back(If->getCond());
      Uses.push_back(ThenSide ? If->getThen() : If->getElse());
      std::vector<const Stmt *> Kept = usedPrefix(Prefix, Uses);
      for (auto It = Prefix.rbegin(); It != Prefix.rend(); ++It)
        if (!llvm::is_contained(Kept, *It))
          if (auto R = statementLines(*It, SM, LO, KText))
            if (R->first >= KB && R->second - KB <= IB)
              T.erase(R->first - KB, R->second - R->first);
      T.replace(NameOff, Dn.Kernel.size(),
                Dn.Kernel + (ThenSide ? "_ww_then" : "_ww_else"));
      return "// warpwise " + Tag + ": the " +
             std::string(ThenSide ? "then" : "else") + "-side of `" +
             Dn.Kernel + "`, split into a kernel of its own\n" + T;
    };
    std::string Kernels = "\n\n" + Make(true) + "\n\n" + Make(false);
    // The signature of a new kernel: the original's, renamed, with
    // parameters appended (the compact and efficient forms need them).
    unsigned BodyOff =
        SM.getFileOffset(SM.getExpansionLoc(Body->getLBracLoc())) - KB;
    unsigned RParenOff = SM.getFileOffset(SM.getExpansionLoc(
                             FD->getFunctionTypeLoc().getRParenLoc())) -
                         KB;
    auto Header = [&](const std::string &NameSuffix, const char *Extra) {
      std::string H = Original.substr(0, BodyOff);
      H.insert(RParenOff, Extra);
      H.replace(NameOff, Dn.Kernel.size(), Dn.Kernel + NameSuffix);
      return H;
    };
    SplitCandidate C;
    C.Kernel = FD;
    C.Branch = Verdict;
    C.Line = Line;
    C.File = KFile;
    C.InsertAt = KE;
    C.Kernels = Kernels;
    C.Launches = LaunchEdits;

    // --- The compact form: the light kernel also lists the heavy threads
    // (warp ballot, block prefix, one atomic per block); the heavy kernel
    // runs over that dense list.
    bool HeavyIsElse =
        !Verdict || Verdict->Else.MaxLive >= Verdict->Then.MaxLive;
    C.HeavyIsElse = HeavyIsElse;
    auto CompactRefuse = [&](const std::string &Why) {
      C.CompactProblem = Why;
    };
    {
      BuiltinFinder BF(SM, LO);
      BF.TraverseStmt(Body);
      for (const BuiltinRef &B : BF.Refs)
        if (C.CompactProblem.empty() && B.Component != "x")
          CompactRefuse("it uses `" + B.Object + "." + B.Component +
                        "`; the compact form handles one-dimensional "
                        "launches only");
      for (const LaunchInfo &L : TC.Analysis.Launches)
        if (C.CompactProblem.empty() && L.Kernel == Dn.Kernel &&
            !oneDimensionalWarps(L.knownBlockDims()))
          CompactRefuse("the launch at line " + std::to_string(L.Line) +
                        " does not show a one-dimensional block whose size "
                        "is a multiple of 32");
      for (const CUDAKernelCallExpr *Call : LF.Launches)
        if (C.CompactProblem.empty() &&
            !Call->getConfig()
                 ->getArg(0)
                 ->IgnoreImpCasts()
                 ->getType()
                 ->isIntegerType() &&
            !Call->getConfig()
                 ->getArg(0)
                 ->IgnoreParenImpCasts()
                 ->getType()
                 ->isIntegerType()) {
          const Expr *G = Call->getConfig()->getArg(0)->IgnoreImplicit();
          if (auto *CE = dyn_cast<CXXConstructExpr>(G);
              !(CE && CE->getNumArgs() >= 1 &&
                CE->getArg(0)->getType()->isIntegerType()))
            CompactRefuse(
                "the grid of the launch at line " +
                std::to_string(SM.getExpansionLineNumber(Call->getBeginLoc())) +
                " is not shown to be one-dimensional");
        }
      if (FD->getNumParams() == 0)
        CompactRefuse("the kernel has no parameters to extend");
    }
    // Early exits of the prefix must be top-level `if (...) return;`.
    std::set<const Stmt *> PrefixReturns;
    std::string PrefixProblem;
    for (const Stmt *S : Prefix) {
      std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *N,
                                                         bool TopIfThen) {
        if (!N)
          return;
        if (isa<ReturnStmt>(N)) {
          if (TopIfThen)
            PrefixReturns.insert(N);
          else if (PrefixProblem.empty())
            PrefixProblem =
                "the code before the branch returns from inside a "
                "nested statement (line " +
                std::to_string(SM.getExpansionLineNumber(N->getBeginLoc())) +
                ")";
          return;
        }
        for (const Stmt *Child : N->children())
          Scan(Child, false);
      };
      if (auto *I = dyn_cast<IfStmt>(S); I && !I->getElse()) {
        const Stmt *T = I->getThen();
        if (auto *CS = dyn_cast<CompoundStmt>(T); CS && CS->size() == 1)
          T = CS->body_front();
        Scan(I->getCond(), false);
        Scan(T, true);
      } else {
        Scan(S, isa<ReturnStmt>(S));
      }
    }
    if (C.CompactProblem.empty() && !PrefixProblem.empty())
      CompactRefuse(PrefixProblem);
    if (C.CompactProblem.empty()) {
      std::string HeavyCond =
          HeavyIsElse ? "!(" + Cond + ")" : "(" + Cond + ")";
      std::string In = "  ";
      const Stmt *LightSide = HeavyIsElse ? If->getThen() : If->getElse();
      const Stmt *HeavySide = HeavyIsElse ? If->getElse() : If->getThen();
      std::string Light, Heavy;
      // Light kernel.
      Light += "{\n" + In + "// warpwise " + Tag + ": the light side of `" +
               Dn.Kernel + "`, which also lists the threads of the heavy side\n";
      Light += In + "__shared__ int ww_warp_base[32];\n" + In +
               "__shared__ int ww_block_base;\n" + In +
               "bool ww_heavy = false;\n" + In + "do {\n";
      for (const Stmt *S : usedPrefix(Prefix, {If->getCond()}))
        Light += In + "  " +
                 renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x",
                            PrefixReturns, "break") +
                 "\n";
      Light += In + "  ww_heavy = " + HeavyCond + ";\n" + In + "} while (0);\n";
      Light +=
          In + "const unsigned ww_lane = threadIdx.x % 32u;\n" + In +
          "const unsigned ww_warp = threadIdx.x / 32u;\n" + In +
          "const unsigned ww_votes = __ballot_sync(0xffffffffu, ww_heavy);\n" +
          In + "if (ww_lane == 0)\n" + In +
          "  ww_warp_base[ww_warp] = __popc(ww_votes);\n" + In +
          "__syncthreads();\n" + In + "if (threadIdx.x == 0) {\n" + In +
          "  int ww_total = 0;\n" + In +
          "  for (unsigned ww_w = 0; ww_w < (blockDim.x + 31u) / 32u; ++ww_w) "
          "{\n" +
          In + "    const int ww_n = ww_warp_base[ww_w];\n" + In +
          "    ww_warp_base[ww_w] = ww_total;\n" + In +
          "    ww_total += ww_n;\n" + In + "  }\n" + In +
          "  ww_block_base = ww_total ? atomicAdd(ww_count, ww_total) : 0;\n" +
          In + "}\n" + In + "__syncthreads();\n" + In + "if (ww_heavy) {\n" +
          In + "  ww_list[ww_block_base + ww_warp_base[ww_warp] +\n" + In +
          "          __popc(ww_votes & ((1u << ww_lane) - 1u))] =\n" + In +
          "      blockIdx.x * blockDim.x + threadIdx.x;\n" + In +
          "  return;\n" + In + "}\n";
      std::vector<const Stmt *> LightUses(Suffix);
      LightUses.push_back(LightSide);
      for (const Stmt *S : usedPrefix(Prefix, LightUses))
        Light += In + renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x") + "\n";
      Light += In + renderWith(LightSide, SM, LO, "threadIdx.x", "blockIdx.x") +
               "\n";
      for (const Stmt *S : Suffix)
        Light += In + renderWith(S, SM, LO, "threadIdx.x", "blockIdx.x") + "\n";
      Light += "}";
      // Heavy kernel.
      Heavy += "{\n" + In + "// warpwise " + Tag + ": the heavy side of `" +
               Dn.Kernel + "`, run over the threads the light kernel listed\n";
      Heavy +=
          In +
          "const unsigned ww_slot = blockIdx.x * blockDim.x + threadIdx.x;\n" +
          In + "if (ww_slot >= (unsigned)*ww_count)\n" + In + "  return;\n" +
          In + "const unsigned ww_id = ww_list[ww_slot];\n" + In +
          "const unsigned ww_block = ww_id / blockDim.x;\n" + In +
          "const unsigned ww_thread = ww_id % blockDim.x;\n";
      // Only the declarations the heavy side and the suffix read (nvcc #177).
      std::vector<const Stmt *> HeavyUses(Suffix);
      HeavyUses.push_back(HeavySide);
      for (const Stmt *S : usedPrefix(Prefix, HeavyUses))
        Heavy += In + renderWith(S, SM, LO, "ww_thread", "ww_block") + "\n";
      Heavy +=
          In + renderWith(HeavySide, SM, LO, "ww_thread", "ww_block") + "\n";
      for (const Stmt *S : Suffix)
        Heavy += In + renderWith(S, SM, LO, "ww_thread", "ww_block") + "\n";
      Heavy += "}";
      // Headers: renamed, with the list and the counter appended.
      C.CompactPrelude = FileHasPoolHelper ? "" : ListPoolHelper;
      // At file scope, before the declaration that holds the kernel (and
      // its comment), so that launches outside the kernel's namespace see it.
      C.PreludeAt = aboveLineComments(
          KText, SM.getFileOffset(SM.getExpansionLoc(TopDecl->getBeginLoc())));
      C.CompactKernels =
          "\n\n" +
          Header("_ww_light",
                 ", int *__restrict__ ww_list, int *__restrict__ ww_count") +
          Light + "\n\n" +
          Header("_ww_heavy", ", const int *__restrict__ ww_list, const int "
                              "*__restrict__ ww_count") +
          Heavy;
      // Launches: allocate the list in the launch's stream from warpwise's
      // pool for the device (the default pool returns its memory at every
      // synchronization, and mapping the list anew cost ~20 us per launch on
      // an H100), run both kernels, free it in the same stream.
      for (const LaunchSite &L : Sites) {
        std::string G = "ww_grid_" + L.Tag, B = "ww_block_" + L.Tag,
                    Lst = "ww_list_" + L.Tag, St = L.stream(),
                    Dev = "ww_dev_" + L.Tag, Pool = "ww_pool_" + L.Tag;
        std::string Launch = "<<<" + G + ", " + B + ", " + L.shared() + ", " +
                             St + ">>>(" + L.argsThen(Lst + " + 1, " + Lst) +
                             "); ";
        std::string Bytes =
            "((size_t)" + G + ".x * " + B + ".x + 1) * sizeof(int)";
        std::string Text =
            "{ // warpwise " + Tag + ": split launch, compact form\n" +
            L.Temps + "dim3 const " + G + "(" + L.Config[0] +
            "); dim3 const " + B + "(" + L.Config[1] + "); int " + Dev +
            " = 0; cudaGetDevice(&" + Dev + "); cudaMemPool_t const " + Pool +
            " = ww_list_pool(" + Dev + "); int *" + Lst + " = 0; if (" + Pool +
            ") cudaMallocFromPoolAsync((void **)&" + Lst + ", " + Bytes + ", " +
            Pool + ", " + St + "); else cudaMallocAsync((void **)&" + Lst +
            ", " + Bytes + ", " + St + "); cudaMemsetAsync(" + Lst +
            ", 0, sizeof(int), " + St + "); " + L.Callee + "_ww_light" +
            L.TemplateArgs + Launch + L.Callee + "_ww_heavy" + L.TemplateArgs +
            Launch + "cudaFreeAsync(" + Lst + ", " + St +
            "); }";
        C.CompactLaunches.push_back(
            tooling::Replacement(TC.File, L.Begin, L.Length, Text));
      }
    }

    // --- The adaptive form: one kernel runs the original, except that the
    // heavy threads of mixed warps (warps whose live threads do not all take
    // one side) are listed and leave; a second kernel runs the heavy side
    // over that list in a grid-stride loop. The host chooses per launch
    // between the original kernel and this pair from the counts the pair
    // published for earlier launches (ww_adaptive_begin).
    // `return` becomes `continue` in the heavy kernel's grid-stride loop:
    // only where no loop or switch of its own would take the `continue`.
    std::set<const Stmt *> Returns = PrefixReturns;
    {
      std::string Problem = PrefixProblem;
      std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *N,
                                                         bool InLoop) {
        if (!N)
          return;
        if (isa<ReturnStmt>(N)) {
          if (InLoop && Problem.empty())
            Problem =
                "a return inside a loop or switch (line " +
                std::to_string(SM.getExpansionLineNumber(N->getBeginLoc())) +
                ") cannot become the `continue` of the heavy kernel's loop";
          Returns.insert(N);
          return;
        }
        bool Loop = isa<ForStmt>(N) || isa<WhileStmt>(N) || isa<DoStmt>(N) ||
                    isa<SwitchStmt>(N) || isa<CXXForRangeStmt>(N);
        for (const Stmt *Child : N->children())
          Scan(Child, InLoop || Loop);
      };
      const Stmt *HeavySide = HeavyIsElse ? If->getElse() : If->getThen();
      for (const Stmt *S : Prefix)
        Scan(S, false);
      Scan(HeavySide, false);
      for (const Stmt *S : Suffix)
        Scan(S, false);
      if (Problem.empty() && FD->getNumParams() == 0)
        Problem = "the kernel has no parameters to extend";
      if (Problem.empty() && !LO.CPlusPlus11)
        Problem = "its host code needs C++11 (std::mutex), and this file is "
                  "parsed as an earlier standard";
      unsigned RBraceOff =
          SM.getFileOffset(SM.getExpansionLoc(Body->getRBracLoc())) - KB;
      if (Problem.empty() && RBraceOff <= BodyOff)
        Problem = "part of the kernel is written with macros";
      C.AdaptiveProblem = Problem;
      C.DataDependent = !Pre.Reads.empty() || Pre.UnknownRead;
    }
    if (C.AdaptiveProblem.empty()) {
      std::string HeavyCond =
          HeavyIsElse ? "!(" + Cond + ")" : "(" + Cond + ")";
      const Stmt *HeavySide = HeavyIsElse ? If->getElse() : If->getThen();
      std::string In = "  ";
      std::string Side = HeavyIsElse ? "else" : "then";
      // The decision and the listing, shared by both first kernels: every
      // thread evaluates the decision (returns become `break`), warps vote,
      // and thread 0 of each block that has heavy threads adds the block's
      // listed threads and mixed warps to counter 0 (one atomic) and its
      // uniformly heavy warps to counter 2. \p InPlace lists only the heavy
      // threads of mixed warps.
      auto Listing = [&](bool InPlace) {
        std::string L =
            In + "__shared__ unsigned ww_warp_base[32];\n" + In +
            "__shared__ unsigned long long ww_block_base;\n" + In +
            "bool ww_live = false, ww_heavy = false;\n" + In + "do {\n";
        for (const Stmt *S : usedPrefix(Prefix, {If->getCond()}))
          L += In + "  " +
               renderAsWritten(S, SM, LO, PrefixReturns, "break") +
               "\n";
        L += In + "  ww_live = true;\n" + In + "  ww_heavy = " + HeavyCond +
             ";\n" + In + "} while (0);\n";
        L += In + "const unsigned ww_tid =\n" + In +
             "    threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
             "threadIdx.z);\n" +
             In +
             "const unsigned ww_lane = ww_tid % 32u, ww_warp = ww_tid / 32u;\n" +
             In +
             "const unsigned ww_heavy_votes = __ballot_sync(0xffffffffu, "
             "ww_heavy);\n" +
             In +
             "const unsigned ww_live_votes = __ballot_sync(0xffffffffu, "
             "ww_live);\n" +
             In + "const bool ww_mixed =\n" + In +
             "    ww_heavy_votes != 0u && ww_heavy_votes != ww_live_votes;\n" +
             In + "const bool ww_listed_here = " +
             (InPlace ? "ww_mixed && ww_heavy" : "ww_heavy") + ";\n" + In +
             "if (__syncthreads_or(ww_heavy)) {\n" + In +
             "  // Per warp: threads listed, bit 8 mixed, bit 9 uniformly "
             "heavy.\n" +
             In + "  if (ww_lane == 0u)\n" + In +
             "    ww_warp_base[ww_warp] =\n" + In + "        " +
             (InPlace ? "(ww_mixed ? __popc(ww_heavy_votes) : 0u)"
                      : "__popc(ww_heavy_votes)") +
             " | (ww_mixed ? 0x100u : 0u) |\n" + In +
             "        (ww_heavy_votes != 0u && !ww_mixed ? 0x200u : 0u);\n" +
             In + "  __syncthreads();\n" + In + "  if (ww_tid == 0u) {\n" + In +
             "    unsigned ww_listed = 0u, ww_mixed_warps = 0u, "
             "ww_uniform_warps = 0u;\n" +
             In + "    for (unsigned ww_w = 0u;\n" + In +
             "         ww_w < blockDim.x * blockDim.y * blockDim.z / 32u; "
             "++ww_w) {\n" +
             In + "      const unsigned ww_n = ww_warp_base[ww_w];\n" + In +
             "      ww_warp_base[ww_w] = ww_listed;\n" + In +
             "      ww_listed += ww_n & 0xffu;\n" + In +
             "      ww_mixed_warps += ww_n >> 8 & 1u;\n" + In +
             "      ww_uniform_warps += ww_n >> 9 & 1u;\n" + In + "    }\n" +
             In +
             "    // Mixed warps in the high word, listed threads in the low "
             "word (the host\n" +
             In + "    // keeps a launch below 2^31 threads).\n" + In +
             "    ww_block_base = atomicAdd(\n" + In +
             "        ww_counts, (unsigned long long)ww_mixed_warps << 32 | "
             "ww_listed);\n" +
             In + "    if (ww_uniform_warps != 0u)\n" + In +
             "      atomicAdd(&ww_counts[2], (unsigned long "
             "long)ww_uniform_warps);\n" +
             In + "  }\n" + In + "  __syncthreads();\n" + In +
             "  if (ww_listed_here) {\n" + In +
             "    ww_list[(unsigned)ww_block_base + ww_warp_base[ww_warp] +\n" +
             In +
             "            __popc(ww_heavy_votes & ((1u << ww_lane) - 1u))] =\n" +
             In +
             "        (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * "
             "blockIdx.z)) *\n" +
             In + "            (blockDim.x * blockDim.y * blockDim.z) +\n" +
             In + "        ww_tid;\n" + In + "    return;\n" + In + "  }\n" +
             In + "}\n";
        return L;
      };
      // The in-place kernel: the listing, then the original body as written.
      std::string A = "{\n" + In + "// warpwise " + Tag + ": `" + Dn.Kernel +
                      "` with the heavy (" + Side +
                      ") side of its if-else moved out of mixed\n" + In +
                      "// warps: a warp whose live threads all take one side "
                      "runs it here; the\n" +
                      In + "// heavy threads of a mixed warp are listed for `" +
                      Dn.Kernel + "_ww_heavy`\n" + Listing(true);
      // The light kernel: the listing of every heavy thread, then the light
      // side alone (no heavy code: the light side's registers).
      const Stmt *LightSide = HeavyIsElse ? If->getThen() : If->getElse();
      std::string Light =
          "{\n" + In + "// warpwise " + Tag + ": the light (" +
          (HeavyIsElse ? "then" : "else") + ") side of `" + Dn.Kernel +
          "`; every thread of its heavy side is\n" + In + "// listed for `" +
          Dn.Kernel + "_ww_heavy`\n" + Listing(false);
      std::vector<const Stmt *> LightUses(Suffix);
      LightUses.push_back(LightSide);
      for (const Stmt *S : usedPrefix(Prefix, LightUses))
        Light += In + renderAsWritten(S, SM, LO) + "\n";
      Light += In + renderAsWritten(LightSide, SM, LO) +
               "\n";
      for (const Stmt *S : Suffix)
        Light += In + renderAsWritten(S, SM, LO) + "\n";
      Light += "}";
      unsigned RBraceOff =
          SM.getFileOffset(SM.getExpansionLoc(Body->getRBracLoc())) - KB;
      A += In + "// `" + Dn.Kernel + "` as written:" +
           Original.substr(BodyOff + 1, RBraceOff - BodyOff - 1) + "}";
      // The second kernel: the heavy side over the list.
      std::string H =
          "{\n" + In + "// warpwise " + Tag + ": the heavy (" + Side + ") side of `" +
          Dn.Kernel + "` for the threads `" + Dn.Kernel +
          "_ww_adaptive` listed,\n" + In +
          "// each with its original thread and block index\n" + In +
          "const unsigned ww_listed = (unsigned)ww_counts[0];\n" + In +
          "const unsigned ww_per_block = blockDim.x * blockDim.y * "
          "blockDim.z;\n" +
          In + "for (unsigned ww_slot =\n" + In +
          "         blockIdx.x * ww_per_block + threadIdx.x +\n" + In +
          "         blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" +
          In + "     ww_slot < ww_listed; ww_slot += gridDim.x * "
               "ww_per_block) {\n" +
          In + "  const unsigned ww_id = ww_list[ww_slot];\n" + In +
          "  const unsigned ww_b = ww_id / ww_per_block, ww_t = ww_id % "
          "ww_per_block;\n" +
          In + "  const dim3 ww_thread(ww_t % blockDim.x, ww_t / blockDim.x % "
               "blockDim.y,\n" +
          In + "                       ww_t / (blockDim.x * blockDim.y));\n" +
          In + "  const dim3 ww_block(ww_b % ww_grid.x, ww_b / ww_grid.x % "
               "ww_grid.y,\n" +
          In + "                      ww_b / (ww_grid.x * ww_grid.y));\n";
      std::vector<const Stmt *> HeavyUses(Suffix);
      HeavyUses.push_back(HeavySide);
      for (const Stmt *S : usedPrefix(Prefix, HeavyUses))
        H += In + "  " + renderListed(S, SM, LO, Returns, "continue") + "\n";
      H += In + "  " + renderListed(HeavySide, SM, LO, Returns, "continue") +
           "\n";
      for (const Stmt *S : Suffix)
        H += In + "  " + renderListed(S, SM, LO, Returns, "continue") + "\n";
      H += In + "}\n" + In +
           "// The last block to finish publishes this launch's counts for "
           "the host's\n" +
           In + "// next decision and clears them for the next launch.\n" +
           In + "__syncthreads();\n" + In +
           "if (threadIdx.x == 0u && threadIdx.y == 0u && threadIdx.z == 0u) "
           "{\n" +
           In + "  __threadfence();\n" + In +
           "  if (atomicAdd(&ww_counts[1], 1ull) == gridDim.x - 1u) {\n" + In +
           "    const unsigned long long ww_counted = ww_counts[0];\n" + In +
           "    ww_stats[1] = ww_counted & 0xffffffffull;\n" + In +
           "    ww_stats[2] = ww_counted >> 32;\n" + In +
           "    ww_stats[3] = ww_threads;\n" + In +
           "    ww_stats[4] = ww_counts[2];\n" + In +
           "    ww_stats[5] = ww_path;\n" + In +
           "    __threadfence_system();\n" + In +
           "    ww_stats[0] = ww_stats[0] + 1u;\n" + In +
           "    ww_counts[0] = 0u;\n" + In + "    ww_counts[1] = 0u;\n" + In +
           "    ww_counts[2] = 0u;\n" + In +
           "  }\n" + In + "}\n}";
      C.AdaptivePrelude = FileHasAdaptiveHelper ? "" : adaptiveHelper();
      C.PreludeAt = aboveLineComments(
          KText, SM.getFileOffset(SM.getExpansionLoc(TopDecl->getBeginLoc())));
      C.AdaptiveKernels =
          "\n\n" +
          Header("_ww_adaptive", ", unsigned long long *__restrict__ "
                                 "ww_counts,\n    int *__restrict__ ww_list") +
          A + "\n\n" +
          Header("_ww_light", ", unsigned long long *__restrict__ "
                              "ww_counts,\n    int *__restrict__ ww_list") +
          Light + "\n\n" +
          Header("_ww_heavy",
                 ", unsigned long long *__restrict__ ww_counts,\n    const int "
                 "*__restrict__ ww_list, volatile unsigned long long "
                 "*ww_stats,\n    dim3 ww_grid, unsigned long long ww_threads, "
                 "unsigned ww_path") +
          H;
      // Launches: the host decides per launch (ww_adaptive_begin); the
      // original kernel stays for the launches it keeps.
      llvm::StringRef MainText = SM.getBufferData(SM.getMainFileID());
      for (const LaunchSite &L : Sites) {
        unsigned LS = lineStart(MainText, L.Begin);
        std::string Ind = MainText.slice(LS, L.Begin).trim().empty()
                              ? MainText.slice(LS, L.Begin).str()
                              : std::string();
        std::string G = "ww_grid_" + L.Tag, B = "ww_block_" + L.Tag,
                    Site = "ww_site_" + L.Tag, Plan = "ww_plan_" + L.Tag,
                    St = L.stream();
        std::string Cfg = G + ", " + B + ", " + L.shared() + ", " + St;
        std::string NL = "\n" + Ind + "  ";
        std::string Text =
            "{ // warpwise " + Tag + ": split launch, adaptive form" + NL +
            llvm::StringRef(L.Temps).rtrim().str() +
            (L.Temps.empty() ? "" : NL) + "dim3 const " + G + "(" +
            L.Config[0] + ");" + NL + "dim3 const " + B + "(" + L.Config[1] +
            ");" + NL + "static ww_adaptive_site " + Site + ";" + NL +
            "ww_adaptive_plan " + Plan + " =" + NL + "    ww_adaptive_begin(" +
            Site + ", " + G + ", " + B + ", " + St + ");" + NL + "if (" +
            Plan + ".path != 0u) {" + NL + "  if (" + Plan + ".path == 1u)" +
            NL + "    " + L.Callee + "_ww_adaptive" + L.TemplateArgs + "<<<" +
            Cfg + ">>>(" + NL + "        " +
            L.argsThen(Plan + ".counts, " + Plan + ".list") + ");" + NL +
            "  else" + NL + "    " + L.Callee + "_ww_light" + L.TemplateArgs +
            "<<<" + Cfg + ">>>(" + NL + "        " +
            L.argsThen(Plan + ".counts, " + Plan + ".list") + ");" + NL +
            "  " + L.Callee + "_ww_heavy" + L.TemplateArgs + "<<<" + Plan +
            ".heavy_blocks, " + B + ", " + L.shared() + ", " + St + ">>>(" +
            NL + "      " +
            L.argsThen(Plan + ".counts, " + Plan + ".list, " + Plan +
                       ".stats, " + G + ", " + Plan + ".threads, " + Plan +
                       ".path") +
            ");" + NL + "} else {" + NL + "  " + L.Callee + L.TemplateArgs +
            "<<<" + Cfg + ">>>(" + L.Args + ");" + NL + "}" + NL +
            "ww_adaptive_end(" + Plan + ");\n" + Ind + "}";
        C.AdaptiveLaunches.push_back(
            tooling::Replacement(TC.File, L.Begin, L.Length, Text));
      }
    }
    Dn = planSplit(KTC, C, name());
    Dn.File = TC.decisionFileOf(FD->getLocation());
    if (Facts.Used.count(FD) && Facts.Why.count(FD))
      Dn.Reason += " (legal because " + Facts.Why.at(FD) + ")";
    if (Dn.Applied) {
      bool Compact = Dn.Form == "compact", Adaptive = Dn.Form == "adaptive";
      TC.takeDecisionId(Dn, "WW4003", KText);
      // The decision's comment, with what was measured, heads the new
      // kernels; theirs and the launches' name it.
      std::string Comment =
          "\n\n" + TC.decisionComment(Dn, "split `" + Dn.Kernel + "` (" +
                                                 (Dn.Form.empty() ? "literal"
                                                                  : Dn.Form) +
                                                 " form)");
      Change Ch;
      Ch.Description = "split of `" + Dn.Kernel + "` at line " +
                       std::to_string(Line) +
                       (Dn.File.empty() ? "" : " of " + Dn.File);
      if (Compact && NeedPoolHelper && !C.CompactPrelude.empty())
        Ch.Edits.push_back(
            tooling::Replacement(KFile, C.PreludeAt, 0, C.CompactPrelude));
      if (Adaptive && NeedAdaptiveHelper && !C.AdaptivePrelude.empty())
        Ch.Edits.push_back(
            tooling::Replacement(KFile, C.PreludeAt, 0, C.AdaptivePrelude));
      Ch.Edits.push_back(tooling::Replacement(
          KFile, KE, 0,
          Comment + (Compact    ? C.CompactKernels
                     : Adaptive ? C.AdaptiveKernels
                                : Kernels)));
      const auto &L = Compact    ? C.CompactLaunches
                      : Adaptive ? C.AdaptiveLaunches
                                 : LaunchEdits;
      Ch.Edits.insert(Ch.Edits.end(), L.begin(), L.end());
      Changes.push_back(Ch);
      if (Compact)
        NeedPoolHelper = false;
      if (Adaptive)
        NeedAdaptiveHelper = false;
    }
    TC.Log.report(Dn.Applied ? "WW4003" : "WW3003", Severity::Remark, KShown,
                  Line, Col, std::string(name()) + ": " + Dn.Reason);
    // Launches are rewritten in this file only; a kernel with external
    // linkage can be launched from another translation unit, which keeps
    // launching the original (left in place for that reason).
    if (Dn.Applied && FD->isExternallyVisible())
      TC.Log.report(diag::LaunchedElsewhere, Severity::Note, KShown,
                    SM.getExpansionLineNumber(FD->getLocation()), 0,
                    "`" + Dn.Kernel +
                        "` has external linkage, so other files may launch "
                        "it: its original definition stays, and launches "
                        "from other files run it unsplit (declare it "
                        "`static` if this file is its only launcher)");
    Decisions.push_back(Dn);
  }
}

} // namespace warpwise
