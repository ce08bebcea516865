//===- OpenMPOffload.cpp - OpenMP parallel loops to CUDA kernels ----------===//
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
//===----------------------------------------------------------------------===//
#include "warpwise/Offload.h"

#include "warpwise/AstQueries.h"
#include "warpwise/Format.h"

#include "LoopUses.h"
#include "OffloadAst.h"

#include "../transform/SourceText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprOpenMP.h"
#include "clang/AST/OpenMPClause.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace clang;

namespace warpwise {

namespace {

using namespace offload;

// Grid caps: a 1-D loop uses up to this many blocks before its threads take
// several iterations each (grid-stride); a reduction's partials are one per
// block, so its grid is smaller.
constexpr unsigned MaxBlocks1D = 1u << 20;
constexpr unsigned MaxBlocksPerDim = 65535;
constexpr unsigned MaxReductionBlocks = 1024;

struct LoopLevel {
  const ForStmt *For = nullptr;
  const VarDecl *Var = nullptr;
  const Expr *Lb = nullptr, *Ub = nullptr, *Step = nullptr;
  BinaryOperatorKind Cmp = BO_LT; ///< As if written `Var Cmp Ub`.
  bool Decreasing = false;
  bool UnitStep = false;
};

enum class MapKind { None, To, From, ToFrom, Alloc };

struct MappedArray {
  const VarDecl *Var = nullptr;
  std::string Name;
  QualType DeviceType; ///< The pointer type of the device copy.
  /// The array dimensions below the pointer as written (`N` in
  /// `double a[M][N]`), so that the kernel's types follow the macros the
  /// program is built with; and the element type.
  std::vector<std::string> InnerDims;
  QualType Element;
  std::string Offset = "0", Count; ///< In units of *Name.
  const Expr *CountExpr = nullptr; ///< Count's expression, when it has one.
  /// A malloc's element count is kept in `ww_extent_NAME`, declared right
  /// after the malloc (CaptureAt), so that later changes to the variables
  /// of its size, or other variables of the same names, do not matter.
  unsigned CaptureAt = 0;
  /// The outermost dimension as written, and its value, for an array
  /// declared with one (-1: none known).
  std::string Dim0Text;
  long long Dim0Value = -1;
  std::string CaptureText;
  /// CountExpr means at the loop what it meant at the malloc (its variables
  /// are not written after it): a bound can be compared with it.
  bool CountStable = true;
  std::string ExtentFrom; ///< "map clause", "declaration", "malloc".
  std::vector<const Expr *> ExtentExprs;
  bool Read = false, Written = false, WrittenInFull = false;
  bool PassedToCall = false;
  MapKind Map = MapKind::None;
};

struct ReductionVar {
  const VarDecl *Var = nullptr;
  std::string Op; ///< ww_omp_plus, ww_omp_times, ww_omp_min, ww_omp_max.
  std::string Identity;
};

struct KernelPlan {
  const OMPExecutableDirective *Directive = nullptr;
  const FunctionDecl *Function = nullptr;
  std::string Name, PragmaText;
  unsigned Line = 0, Column = 0;
  std::vector<LoopLevel> Levels; ///< Outermost first; the grid's dims.
  bool Swapped = false;
  const Stmt *Body = nullptr; ///< The innermost body run per iteration.
  std::vector<const VarDecl *> ByValue, Private;
  std::vector<MappedArray> Arrays;
  std::vector<ReductionVar> Reductions;
  std::set<const FunctionDecl *> DeviceFunctions;
  std::vector<std::string> Notes;
  std::string Refusal; ///< Why it stays on the host; empty when offloaded.
  /// A `parallel` region holding several worksharing loops: no kernel of its
  /// own; its loops (Members) are kernels one after another.
  bool Group = false;
  std::vector<KernelPlan *> Members;
  /// A member's parallel directive, whose clauses apply to it too.
  const OMPExecutableDirective *Enclosing = nullptr;
  bool Hidden = false; ///< A member of a refused group: said by the group.
  /// Edits of the body's text as the kernel copies it (file offsets).
  std::vector<std::tuple<unsigned, unsigned, std::string>> BodyEdits;
  std::set<const VarDecl *> AtomicArrays;
  std::string SwapNote;

  const MappedArray *array(const VarDecl *V) const {
    for (const MappedArray &A : Arrays)
      if (A.Var == V)
        return &A;
    return nullptr;
  }
};

struct Edit {
  unsigned Begin, End;
  std::string Text;
  unsigned Order;
};

class Offloader {
public:
  Offloader(ASTContext &Ctx, llvm::StringRef Contents, bool IsC,
            const OffloadOptions &Opts)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        Contents(Contents), IsC(IsC), Opts(Opts) {
    Policy = std::make_unique<PrintingPolicy>(LO);
    Policy->SuppressTagKeyword = false;
    Policy->Bool = true;
  }

  OffloadResult run();

private:
  // --- analysis -----------------------------------------------------------
  void planFunction(const FunctionDecl *F);
  KernelPlan &plan(const OMPExecutableDirective *D);
  void analyseDirective(KernelPlan &P);
  bool analyseLoop(KernelPlan &P, const ForStmt *For, LoopLevel &L);
  bool mapArray(KernelPlan &P, const VarDecl *V, MappedArray &A);
  bool extentFromMalloc(KernelPlan &P, const VarDecl *V, MappedArray &A);
  bool deviceCallable(const FunctionDecl *F, std::string &Why,
                      std::set<const FunctionDecl *> &Seen);
  void proveFullWrites(KernelPlan &P);
  void planGroup(KernelPlan &P);
  void nameKernel(KernelPlan &P);
  bool parallelIndependent(const KernelPlan &P, std::string &Why);
  void trySwap(KernelPlan &P);
  bool checkIndependence(const KernelPlan &P, const VarDecl *I,
                         const VarDecl *J, const LoopLevel &Inner,
                         std::string &Why);

  // --- regions ------------------------------------------------------------
  /// `t = a; a = b; b = t;` (t may be declared there): the host swapping
  /// two buffers between time steps.
  struct SwapTriple {
    const Stmt *S1 = nullptr, *S2 = nullptr, *S3 = nullptr;
    const VarDecl *A = nullptr, *B = nullptr;
  };
  std::vector<SwapTriple> Swaps; ///< The current function's.
  void findSwaps(const Stmt *S);
  const SwapTriple *swapOf(const Stmt *S) const {
    for (const SwapTriple &T : Swaps)
      if (T.S1 == S || T.S2 == S || T.S3 == S)
        return &T;
    return nullptr;
  }
  /// The normalised allocation text of \p V's one malloc (swaps aside), or
  /// "" when it has not exactly one.
  std::string mallocText(const VarDecl *V);
  struct Unit {
    const Stmt *S = nullptr;
    std::vector<KernelPlan *> Kernels; ///< In source order.
    bool InLoop = false;               ///< A host loop around kernels.
    /// Buffer swaps in the host loop: the device copies swap with them.
    std::vector<const SwapTriple *> Swaps;
  };
  struct Region {
    std::vector<Unit> Units;
    const Stmt *First = nullptr, *Last = nullptr;
    bool InsideBlock = false; ///< Prologue/epilogue inside the launch block.
    unsigned Index = 0;
    std::vector<const VarDecl *> Arrays;
    std::map<const VarDecl *, std::pair<bool, bool>> CopyInOut;
    std::map<const VarDecl *, std::string> Why;
    /// Arrays not proven to be separate objects (pointer parameters, map
    /// clauses): the pairs whose host ranges are compared before the
    /// device path is taken.
    std::vector<std::pair<const VarDecl *, const VarDecl *>> AliasPairs;
  };
  void walk(const Stmt *S, bool InHostLoop);
  void walkCompound(const CompoundStmt *C, bool InHostLoop);
  std::optional<Unit> unitOf(const Stmt *S);
  bool inert(const Stmt *S, const std::set<const VarDecl *> &Mapped);
  std::set<const VarDecl *> mappedVars(const Unit &U);
  /// An array two of \p Ks map with different extents (sections), or null:
  /// one device copy cannot serve both.
  const VarDecl *extentConflict(const std::vector<KernelPlan *> &Ks);
  /// Whether everything the region head's prologue names (the arrays, the
  /// captured counts, the variables of map sections) is declared before
  /// offset \p Head.
  bool declaredBefore(const std::vector<KernelPlan *> &Ks, unsigned Head);
  void finishRegion(Region &R, bool InHostLoop);
  std::vector<std::pair<const VarDecl *, const VarDecl *>>
  aliasPairs(const std::vector<KernelPlan *> &Ks);
  std::string aliasCondition(const Region &R);
  /// Each array of \p R, as the first kernel to use it maps it.
  static std::map<const VarDecl *, const MappedArray *>
  arraysOf(const Region &R) {
    std::map<const VarDecl *, const MappedArray *> Info;
    for (const Unit &U : R.Units)
      for (const KernelPlan *P : U.Kernels)
        for (const MappedArray &A : P->Arrays)
          Info.try_emplace(A.Var, &A);
    return Info;
  }
  /// The thread-index type of a level: 64-bit for a 64-bit loop variable.
  std::string counterType(const LoopLevel &L) const {
    return Ctx.getTypeSize(L.Var->getType()) > 32 ? "unsigned long long"
                                                  : "unsigned int";
  }
  std::string fallbackText(const Region &R);
  bool usedOnlyIn(const VarDecl *V, const Region &R);

  // --- emission -----------------------------------------------------------
  std::string kernelText(const KernelPlan &P);
  std::string launchText(const KernelPlan &P, const Region &R);
  std::string prologue(const Region &R);
  std::string epilogue(const Region &R);
  /// `double (*a)[N]`: the device copy's pointer type with \p Name, its
  /// inner dimensions spelled as the program spells them.
  std::string pointerText(const MappedArray &A, llvm::StringRef Name) const {
    if (A.InnerDims.empty() && !A.Element.isNull() &&
        !Ctx.getAsConstantArrayType(A.DeviceType->getPointeeType()))
      return typeText(A.Element.getUnqualifiedType(), ("*" + Name).str());
    if (A.InnerDims.empty() || A.Element.isNull())
      return typeText(A.DeviceType, Name);
    std::string Decl = "(*" + Name.str() + ")";
    for (const std::string &D : A.InnerDims)
      Decl += "[" + D + "]";
    return typeText(A.Element.getUnqualifiedType(), Decl);
  }
  std::string deviceName(const Region &R, const VarDecl *V) const {
    return "ww_d" + std::to_string(R.Index) + "_" + V->getNameAsString();
  }
  std::string typeText(QualType T, llvm::StringRef Name = "") const {
    std::string S;
    llvm::raw_string_ostream OS(S);
    T.print(OS, *Policy, Name);
    return S;
  }
  unsigned offset(SourceLocation L) const {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  }
  unsigned lineStart(unsigned Off) const {
    while (Off > 0 && Contents[Off - 1] != '\n')
      --Off;
    return Off;
  }
  /// Offset just past \p S, its `;` included.
  unsigned stmtEnd(const Stmt *S) const;
  /// stmtEnd, and for a directive the end of the statement it applies to.
  unsigned endOf(const Stmt *S) const {
    if (auto *D = dyn_cast<OMPExecutableDirective>(S))
      if (const Stmt *B = directiveBody(D))
        return stmtEnd(B);
    return stmtEnd(S);
  }
  /// Where a statement's own code starts: for a directive, the statement it
  /// applies to (the pragma may sit inside an #ifdef of its own).
  unsigned headOffset(const Stmt *S) const {
    if (auto *D = dyn_cast<OMPExecutableDirective>(S))
      if (const Stmt *B = directiveBody(D))
        return offset(B->getBeginLoc());
    return offset(S->getBeginLoc());
  }
  /// The whole lines of \p D's pragma, continuation lines included, with
  /// their newline.
  std::pair<unsigned, unsigned>
  pragmaLines(const OMPExecutableDirective *D) const {
    unsigned B = lineStart(offset(D->getBeginLoc()));
    unsigned E = offset(D->getBeginLoc());
    while (E < Contents.size()) {
      size_t NL = Contents.find('\n', E);
      if (NL == llvm::StringRef::npos) {
        E = Contents.size();
        break;
      }
      E = NL + 1;
      llvm::StringRef Line = Contents.slice(B, NL).rtrim();
      if (!Line.ends_with("\\"))
        break;
    }
    return {lineStart(offset(D->getBeginLoc())), E};
  }
  std::string lastLineOf(const Stmt *S) const {
    return std::to_string(SM.getLineNumber(SM.getMainFileID(), endOf(S)));
  }
  /// The variables an extent of \p U's arrays is computed from.
  std::set<const VarDecl *> extentVars(const std::vector<KernelPlan *> &Ks);
  std::string lineOf(SourceLocation L) const {
    return std::to_string(SM.getExpansionLineNumber(L));
  }
  void addEdit(unsigned B, unsigned E, std::string T) {
    Edits.push_back({B, E, std::move(T), (unsigned)Edits.size() + 1});
  }
  void decide(const KernelPlan &P, const char *Id, Severity Level,
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

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  llvm::StringRef Contents;
  bool IsC;
  OffloadOptions Opts;
  std::unique_ptr<PrintingPolicy> Policy;

  const FunctionDecl *CurrentFunction = nullptr;
  WrittenVars FunctionWrites;
  std::map<const OMPExecutableDirective *, KernelPlan> Plans;
  std::vector<KernelPlan *> FunctionKernels;
  std::vector<Region> Regions;
  std::set<const FunctionDecl *> DeviceFunctions;
  std::set<std::string> KernelNames;
  std::vector<Edit> Edits;
  std::vector<std::pair<unsigned, unsigned>> Replaced;
  OffloadResult Result;
};

std::set<const VarDecl *>
Offloader::extentVars(const std::vector<KernelPlan *> &Ks) {
  std::set<const VarDecl *> Out;
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays)
      for (const Expr *E : A.ExtentExprs) {
        UseCollector U;
        U.TraverseStmt(const_cast<Expr *>(E));
        Out.insert(U.Order.begin(), U.Order.end());
      }
  return Out;
}

unsigned Offloader::stmtEnd(const Stmt *S) const {
  SourceLocation End = SM.getExpansionLoc(S->getEndLoc());
  unsigned Off = offset(End) + Lexer::MeasureTokenLength(End, SM, LO);
  if (isa<CompoundStmt>(S) || Contents[Off - 1] == '}')
    return Off;
  // The `;` closing an expression statement is not part of its range.
  unsigned I = Off;
  while (I < Contents.size() && llvm::isSpace(Contents[I]))
    ++I;
  if (I < Contents.size() && Contents[I] == ';')
    return I + 1;
  return Off;
}

bool Offloader::analyseLoop(KernelPlan &P, const ForStmt *For, LoopLevel &L) {
  L.For = For;
  auto Refuse = [&](std::string Why) {
    P.Refusal = "the loop at line " + lineOf(For->getBeginLoc()) +
                " is not in the canonical form: " + Why;
    return false;
  };
  // init: `int i = lb` or `i = lb`.
  const Stmt *Init = For->getInit();
  if (auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
    if (!DS->isSingleDecl())
      return Refuse("it declares several variables");
    auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!V || !V->getInit())
      return Refuse("its variable has no initial value");
    L.Var = V;
    L.Lb = V->getInit();
  } else if (auto *B = dyn_cast_or_null<BinaryOperator>(Init);
             B && B->getOpcode() == BO_Assign) {
    L.Var = referencedVar(B->getLHS());
    L.Lb = B->getRHS();
  }
  if (!L.Var || !L.Lb)
    return Refuse("it does not start with 'i = first'");
  if (!L.Var->getType()->isIntegerType())
    return Refuse("its variable '" + L.Var->getNameAsString() +
                  "' is not an integer (pointers and iterators are not "
                  "supported)");
  // cond: i < ub, i <= ub, i > ub, i >= ub, i != ub, or reversed.
  auto *C = dyn_cast_or_null<BinaryOperator>(
      For->getCond() ? For->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!C || !C->isComparisonOp() || C->getOpcode() == BO_EQ)
    return Refuse("its condition is not a comparison of the variable");
  if (referencedVar(C->getLHS()) == L.Var) {
    L.Cmp = C->getOpcode();
    L.Ub = C->getRHS();
  } else if (referencedVar(C->getRHS()) == L.Var) {
    L.Ub = C->getLHS();
    switch (C->getOpcode()) {
    case BO_LT:
      L.Cmp = BO_GT;
      break;
    case BO_LE:
      L.Cmp = BO_GE;
      break;
    case BO_GT:
      L.Cmp = BO_LT;
      break;
    case BO_GE:
      L.Cmp = BO_LE;
      break;
    default:
      L.Cmp = C->getOpcode();
    }
  } else
    return Refuse("its condition does not compare the variable");
  // incr: i++, ++i, i--, --i, i += s, i -= s, i = i + s, i = s + i, i = i - s.
  const Expr *Inc =
      For->getInc() ? For->getInc()->IgnoreParenImpCasts() : nullptr;
  bool Minus = false;
  if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc);
      U && U->isIncrementDecrementOp() &&
      referencedVar(U->getSubExpr()) == L.Var) {
    Minus = U->isDecrementOp();
    L.UnitStep = true;
  } else if (auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc);
             CA && referencedVar(CA->getLHS()) == L.Var &&
             (CA->getOpcode() == BO_AddAssign ||
              CA->getOpcode() == BO_SubAssign)) {
    Minus = CA->getOpcode() == BO_SubAssign;
    L.Step = CA->getRHS();
  } else if (auto *A = dyn_cast_or_null<BinaryOperator>(Inc);
             A && A->getOpcode() == BO_Assign &&
             referencedVar(A->getLHS()) == L.Var) {
    auto *R = dyn_cast<BinaryOperator>(A->getRHS()->IgnoreParenImpCasts());
    if (R && R->getOpcode() == BO_Add && referencedVar(R->getLHS()) == L.Var)
      L.Step = R->getRHS();
    else if (R && R->getOpcode() == BO_Add &&
             referencedVar(R->getRHS()) == L.Var)
      L.Step = R->getLHS();
    else if (R && R->getOpcode() == BO_Sub &&
             referencedVar(R->getLHS()) == L.Var) {
      L.Step = R->getRHS();
      Minus = true;
    }
  }
  if (!L.UnitStep && !L.Step)
    return Refuse("its increment is not 'i++', 'i--', 'i += step' or "
                  "'i = i + step'");
  if (L.Step) {
    Expr::EvalResult ER;
    if (L.Step->EvaluateAsInt(ER, Ctx)) {
      llvm::APSInt V = ER.Val.getInt();
      if (V.isNegative() || V.isZero())
        return Refuse("its step is not a positive constant or variable");
      L.UnitStep = V == 1;
    }
  }
  L.Decreasing = Minus;
  bool Up = L.Cmp == BO_LT || L.Cmp == BO_LE;
  bool Down = L.Cmp == BO_GT || L.Cmp == BO_GE;
  if (L.Cmp == BO_NE) {
    if (!L.UnitStep)
      return Refuse("'!=' is supported with a unit step only");
    Up = !Minus;
    Down = Minus;
    L.Cmp = Minus ? BO_GT : BO_LT;
  }
  if ((Up && Minus) || (Down && !Minus))
    return Refuse("its step goes away from its bound");
  // Its header is the program's text: the bounds are copied as written.
  if (For->getBeginLoc().isMacroID() || For->getRParenLoc().isMacroID())
    return Refuse("the loop's header comes from a macro");
  for (const Expr *E : {L.Lb, L.Ub, L.Step})
    if (E && sourceText(Ctx, E->getSourceRange()).empty())
      return Refuse("the loop's header comes from a macro");
  // The body leaves the variable, the bound and the step alone: the
  // iteration space is what the header says.
  UseCollector Body;
  Body.TraverseStmt(const_cast<Stmt *>(For->getBody()));
  std::set<const VarDecl *> Header = {L.Var};
  for (const Expr *E : {L.Ub, L.Step}) {
    if (!E)
      continue;
    UseCollector H;
    H.TraverseStmt(const_cast<Expr *>(E));
    Header.insert(H.Order.begin(), H.Order.end());
  }
  for (const VarDecl *V : Header) {
    auto It = Body.Uses.find(V);
    if (It != Body.Uses.end() &&
        (It->second.ScalarWrite || It->second.AddressTaken))
      return Refuse("its body changes '" + V->getNameAsString() +
                    "', which its header uses");
  }
  return true;
}

void Offloader::findSwaps(const Stmt *S) {
  if (!S)
    return;
  if (auto *C = dyn_cast<CompoundStmt>(S)) {
    std::vector<const Stmt *> K(C->body_begin(), C->body_end());
    auto Assign = [](const Stmt *X, const VarDecl *&L, const VarDecl *&R) {
      auto *B = dyn_cast<BinaryOperator>(X);
      if (!B || B->getOpcode() != BO_Assign)
        return false;
      L = referencedVar(B->getLHS());
      R = referencedVar(B->getRHS());
      return L && R;
    };
    for (size_t I = 0; I + 2 < K.size(); ++I) {
      const VarDecl *T = nullptr, *A = nullptr, *A2 = nullptr, *B = nullptr,
                    *B2 = nullptr, *T2 = nullptr;
      if (auto *DS = dyn_cast<DeclStmt>(K[I]); DS && DS->isSingleDecl()) {
        T = dyn_cast<VarDecl>(DS->getSingleDecl());
        A = T && T->getInit() ? referencedVar(T->getInit()) : nullptr;
      } else {
        Assign(K[I], T, A);
      }
      if (!T || !A || !Assign(K[I + 1], A2, B) || !Assign(K[I + 2], B2, T2))
        continue;
      if (A2 != A || B2 != B || T2 != T || A == B || T == A || T == B ||
          !A->getType()->isPointerType() ||
          Ctx.getCanonicalType(A->getType()) !=
              Ctx.getCanonicalType(B->getType()))
        continue;
      Swaps.push_back({K[I], K[I + 1], K[I + 2], A, B});
      I += 2;
    }
  }
  for (const Stmt *C : childrenOf(S))
    findSwaps(C);
}

std::string Offloader::mallocText(const VarDecl *V) {
  const Expr *Alloc = nullptr;
  unsigned N = 0;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && referencedVar(B->getLHS()) == V &&
        !swapOf(B)) {
      ++N;
      Alloc = B->getRHS();
    }
    if (auto *DS = dyn_cast<DeclStmt>(S); DS && !swapOf(DS))
      for (const Decl *D : DS->decls())
        if (D == V && V->getInit()) {
          ++N;
          Alloc = V->getInit();
        }
    for (const Stmt *C : childrenOf(S))
      Find(C);
  };
  Find(CurrentFunction->getBody());
  auto *Call = Alloc ? dyn_cast<CallExpr>(Alloc->IgnoreParenCasts()) : nullptr;
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (N != 1 || !F || (F->getName() != "malloc" && F->getName() != "calloc"))
    return "";
  std::string T;
  for (const Expr *A : Call->arguments())
    T += normalised(Ctx, A) + ",";
  return T;
}

bool Offloader::extentFromMalloc(KernelPlan &P, const VarDecl *V,
                                 MappedArray &A) {
  // The one assignment of V in the function, `V = malloc(E)` (or calloc, or
  // V's initialiser), before the directive in a block that contains it.
  const Expr *Alloc = nullptr;
  unsigned Assignments = 0;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && referencedVar(B->getLHS()) == V &&
        !swapOf(B)) {
      ++Assignments;
      Alloc = B->getRHS();
    }
    if (auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == V && V->getInit()) {
          ++Assignments;
          Alloc = V->getInit();
        }
    for (const Stmt *C : childrenOf(S))
      Find(C);
  };
  Find(P.Function->getBody());
  // Swapped with another buffer: that one must be its own malloc of the
  // same size, so that the extent holds whichever buffer V points to.
  for (const SwapTriple &T : Swaps)
    if (T.A == V || T.B == V) {
      const VarDecl *Other = T.A == V ? T.B : T.A;
      std::string Mine = mallocText(V), Theirs = mallocText(Other);
      if (Mine.empty() || Mine != Theirs) {
        P.Refusal = "the extent of '" + V->getNameAsString() +
                    "' is unknown: it is swapped with '" +
                    Other->getNameAsString() +
                    "', which is not a malloc of the same size";
        return false;
      }
    }
  auto Why = [&](std::string W) {
    P.Refusal =
        "the extent of '" + V->getNameAsString() + "' is unknown: " + W +
        "; give it with a map clause: '#pragma omp target teams distribute "
        "parallel for map(tofrom: " +
        V->getNameAsString() + "[0:n])'";
    return false;
  };
  if (!Alloc)
    return Why(isa<ParmVarDecl>(V) ? "it is a pointer parameter"
                                   : "no malloc of it is in view");
  if (Assignments != 1)
    return Why("it is assigned more than once in '" +
               P.Function->getNameAsString() + "'");
  if (offset(Alloc->getBeginLoc()) > offset(P.Directive->getBeginLoc()))
    return Why("its malloc comes after the loop");
  // Not reached through a pointer to it either.
  UseCollector Esc;
  Esc.TraverseStmt(const_cast<Stmt *>(P.Function->getBody()));
  if (Esc.Uses[V].AddressTaken)
    return Why("its address is taken");
  auto *Call = dyn_cast<CallExpr>(Alloc->IgnoreParenCasts());
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (!F || (F->getName() != "malloc" && F->getName() != "calloc"))
    return Why("it is not set by malloc or calloc");
  // The malloc must run whenever the loop does: its statement is directly in
  // a block that also holds the directive.
  const Stmt *Holder = nullptr, *Child = nullptr;
  for (const Stmt *S = Call; S;) {
    auto Ps = Ctx.getParents(*S);
    if (Ps.empty())
      break;
    const Stmt *Parent = Ps[0].get<Stmt>();
    if (!Parent) {
      if (const Decl *D = Ps[0].get<Decl>()) {
        auto PD = Ctx.getParents(*D);
        Parent = PD.empty() ? nullptr : PD[0].get<Stmt>();
      }
    }
    if (auto *CS = dyn_cast_or_null<CompoundStmt>(Parent)) {
      Holder = CS;
      Child = S;
      break;
    }
    S = Parent;
  }
  // The malloc is a statement of that block of its own (not under an if).
  if (Child && !isa<DeclStmt>(Child) && !isa<Expr>(Child))
    Holder = nullptr;
  if (!Holder ||
      offset(Holder->getBeginLoc()) > offset(P.Directive->getBeginLoc()) ||
      offset(Holder->getEndLoc()) < offset(P.Directive->getEndLoc()))
    return Why("its malloc is not in a block that contains the loop");
  std::vector<const Expr *> Parts;
  std::string Bytes;
  auto IsSizeofElem = [&](const Expr *E) {
    auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(strip(E));
    return U && U->getKind() == UETT_SizeOf;
  };
  if (F->getName() == "calloc" && Call->getNumArgs() == 2) {
    const Expr *N = Call->getArg(0), *S = Call->getArg(1);
    if (IsSizeofElem(S)) {
      A.Count = "(" + sourceText(Ctx, N->getSourceRange()) + ")";
      A.CountExpr = N;
    } else {
      A.Count = "((" + sourceText(Ctx, N->getSourceRange()) + ") * (" +
                sourceText(Ctx, S->getSourceRange()) + ") / sizeof(*" + A.Name +
                "))";
    }
    Parts = {N, S};
  } else if (Call->getNumArgs() == 1) {
    const Expr *E = strip(Call->getArg(0));
    auto *M = dyn_cast<BinaryOperator>(E);
    if (M && M->getOpcode() == BO_Mul && IsSizeofElem(M->getRHS())) {
      A.Count = "(" + sourceText(Ctx, M->getLHS()->getSourceRange()) + ")";
      A.CountExpr = M->getLHS();
    } else if (M && M->getOpcode() == BO_Mul && IsSizeofElem(M->getLHS())) {
      A.Count = "(" + sourceText(Ctx, M->getRHS()->getSourceRange()) + ")";
      A.CountExpr = M->getRHS();
    } else
      A.Count = "((" + sourceText(Ctx, E->getSourceRange()) + ") / sizeof(*" +
                A.Name + "))";
    Parts = {E};
  } else
    return Why("its allocation call is not malloc(bytes) or calloc(n, size)");
  // The size must mean the same at the loop as at the malloc.
  for (const Expr *E : Parts) {
    UseCollector U;
    U.TraverseStmt(const_cast<Expr *>(E));
    unsigned AllocAt = offset(Call->getBeginLoc());
    for (const VarDecl *X : U.Order) {
      if (X == V)
        continue;
      bool Later = FunctionWrites.AddressTaken.count(X) > 0;
      for (SourceLocation L : FunctionWrites.At[X])
        Later |= offset(L) > AllocAt;
      if (Later)
        A.CountStable = false; // Captured at the malloc; not a bound.
    }
    if (!U.Calls.empty() && llvm::any_of(U.Calls, [](const FunctionDecl *C) {
          return !C->isConstexpr();
        }))
      return Why("its size calls a function");
  }
  A.ExtentFrom = "its malloc at line " + lineOf(Call->getBeginLoc());
  // The count is captured where the malloc runs; the regions use that.
  A.CaptureText = A.Count;
  A.CaptureAt = stmtEnd(Child);
  A.Count = "ww_extent_" + A.Name;
  A.ExtentExprs.clear();
  return true;
}

/// The dimensions of \p V's type as written, outermost first, through one
/// pointer (`double (*p)[N]`); \p Element gets the type below them.
std::vector<std::string> writtenDims(const VarDecl *V, const ASTContext &Ctx,
                                     bool &Pointer, QualType &Element) {
  std::vector<std::string> Dims;
  Pointer = false;
  TypeSourceInfo *TSI = V->getTypeSourceInfo();
  if (!TSI)
    return Dims;
  TypeLoc TL = TSI->getTypeLoc();
  while (true) {
    TL = TL.getUnqualifiedLoc();
    if (auto P = TL.getAs<ParenTypeLoc>()) {
      TL = P.getInnerLoc();
      continue;
    }
    if (auto P = TL.getAs<PointerTypeLoc>(); P && !Pointer && Dims.empty()) {
      Pointer = true;
      TL = P.getPointeeLoc();
      continue;
    }
    if (auto A = TL.getAs<ArrayTypeLoc>()) {
      Expr *Size = A.getSizeExpr();
      Dims.push_back(Size ? sourceText(Ctx, Size->getSourceRange()) : "");
      TL = A.getElementLoc();
      continue;
    }
    break;
  }
  Element = TL.getType();
  return Dims;
}

bool Offloader::mapArray(KernelPlan &P, const VarDecl *V, MappedArray &A) {
  A.Var = V;
  A.Name = V->getNameAsString();
  QualType T = V->getType();
  QualType Original = T;
  if (auto *PV = dyn_cast<ParmVarDecl>(V))
    Original = PV->getOriginalType();
  auto Refuse = [&](std::string Why) {
    P.Refusal = "'" + A.Name + "' " + Why;
    return false;
  };
  bool WrittenPointer = false;
  std::vector<std::string> Dims =
      writtenDims(V, Ctx, WrittenPointer, A.Element);
  if (T->isArrayType()) {
    if (!Ctx.getAsConstantArrayType(T))
      return Refuse("is a variable-length array");
    QualType Decayed = Ctx.getDecayedType(T);
    QualType Pointee = Decayed->getPointeeType();
    A.DeviceType = Ctx.getPointerType(Pointee.getUnqualifiedType());
    A.Dim0Value = Ctx.getAsConstantArrayType(T)->getSize().getZExtValue();
    A.Dim0Text = std::to_string(A.Dim0Value);
    if (!Dims.empty() && !Dims[0].empty())
      A.Dim0Text = "(" + Dims[0] + ")";
    // The array's own size, whatever its dimension's macro means where the
    // copies are made.
    A.Count = "(sizeof(" + A.Name + ") / sizeof(*" + A.Name + "))";
    A.ExtentFrom = "its declaration";
    if (!Dims.empty())
      A.InnerDims.assign(Dims.begin() + 1, Dims.end());
  } else if (T->isPointerType()) {
    QualType Pointee = T->getPointeeType();
    if (Pointee->isPointerType())
      return Refuse("is a pointer to pointers: its rows are separate host "
                    "allocations, which are not mapped");
    if (Pointee->isVariableArrayType())
      return Refuse("points to variable-length arrays");
    if (Pointee->isVoidType() || Pointee->isFunctionType())
      return Refuse("is not a pointer to data");
    if (Pointee->isRecordType() &&
        llvm::any_of(
            Pointee->getAsRecordDecl()->fields(),
            [](const FieldDecl *F) { return F->getType()->isPointerType(); }))
      return Refuse("points to structures holding pointers");
    A.DeviceType = Ctx.getPointerType(Pointee.getUnqualifiedType());
    if (auto *CA = Ctx.getAsConstantArrayType(Original)) {
      // A parameter declared as an array: `double a[N][N]`.
      A.Count = std::to_string(CA->getSize().getZExtValue());
      if (!WrittenPointer && !Dims.empty() && !Dims[0].empty())
        A.Count = "(" + Dims[0] + ")";
      A.Dim0Text = A.Count;
      A.Dim0Value = CA->getSize().getZExtValue();
      A.ExtentFrom = "its declaration";
      if (!WrittenPointer && !Dims.empty())
        A.InnerDims.assign(Dims.begin() + 1, Dims.end());
    } else if (Original->isVariableArrayType()) {
      return Refuse("is a variable-length array parameter: nvcc's C++ has "
                    "no such types; give its extent with a map clause");
    } else if (WrittenPointer) {
      A.InnerDims = Dims; // double (*p)[N]
    }
  } else
    return Refuse("is neither an array nor a pointer");
  // The written dims must be the type's: a typedef'd array hides them.
  unsigned Depth = 0;
  for (QualType E = A.DeviceType->getPointeeType();
       Ctx.getAsConstantArrayType(E);
       E = Ctx.getAsConstantArrayType(E)->getElementType())
    ++Depth;
  if (Depth != A.InnerDims.size() ||
      llvm::any_of(A.InnerDims, [](const std::string &D) { return D.empty(); }))
    A.InnerDims.clear(), A.Element = QualType();
  return true;
}

bool Offloader::deviceCallable(const FunctionDecl *F, std::string &Why,
                               std::set<const FunctionDecl *> &Seen) {
  if (isDeviceMath(F->getName()) &&
      (!F->hasBody() ||
       SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation()))))
    return true; // C's sqrt, or C++'s std::sqrt overloads: CUDA has both.
  if (F->getBuiltinID() && isDeviceMath(F->getName()))
    return true;
  const FunctionDecl *Def = nullptr;
  if (!F->hasBody(Def) ||
      !SM.isInMainFile(SM.getExpansionLoc(Def->getLocation()))) {
    Why = "calls '" + F->getNameAsString() +
          "', which is not defined in this file and cannot be compiled for "
          "the device";
    return false;
  }
  if (!Seen.insert(Def).second)
    return true;
  if (Def->isVariadic() || isa<CXXMethodDecl>(Def) ||
      Def->getTemplatedKind() != FunctionDecl::TK_NonTemplate) {
    Why = "calls '" + F->getNameAsString() +
          "', a variadic, member or template function (not supported)";
    return false;
  }
  UseCollector U(/*InFunction=*/true);
  U.TraverseStmt(Def->getBody());
  if (!U.Problems.empty()) {
    Why = "calls '" + F->getNameAsString() + "', which " +
          U.Problems.front().second;
    return false;
  }
  for (const VarDecl *V : U.Order) {
    if (!V->hasGlobalStorage() || V->isStaticLocal())
      continue;
    bool ConstScalar = V->getType().isConstQualified() &&
                       V->getType()->isIntegralOrEnumerationType() &&
                       V->getInit() &&
                       V->getInit()->isConstantInitializer(Ctx, false);
    if (!ConstScalar) {
      Why = "calls '" + F->getNameAsString() + "', which reads the global '" +
            V->getNameAsString() + "' (host memory)";
      return false;
    }
  }
  for (const FunctionDecl *C : U.Calls)
    if (!deviceCallable(C, Why, Seen))
      return false;
  DeviceFunctions.insert(Def);
  return true;
}

void Offloader::analyseDirective(KernelPlan &P) {
  const OMPExecutableDirective *D = P.Directive;
  P.Line = SM.getExpansionLineNumber(D->getBeginLoc());
  P.Column = SM.getExpansionColumnNumber(D->getBeginLoc());
  unsigned PB = offset(D->getBeginLoc());
  unsigned PE = PB;
  while (PE < Contents.size() && Contents[PE] != '\n')
    ++PE;
  P.PragmaText = Contents.substr(PB, PE - PB).trim().str();
  auto Kind = D->getDirectiveKind();
  auto Refuse = [&](std::string Why) { P.Refusal = std::move(Why); };

  if (!directiveBody(D)) {
    Refuse("'" + P.PragmaText.substr(P.PragmaText.find("omp")) +
           "' is a stand-alone directive, not a loop");
    return;
  }
  {
    // The statement is replaced by the launch and copied into the kernel:
    // a preprocessor conditional must open and close inside it.
    const Stmt *Loop = directiveBody(D);
    unsigned LB = offset(Loop->getBeginLoc()), LE = endOf(D);
    int Depth = 0;
    bool Crosses = false;
    llvm::SmallVector<llvm::StringRef> Lines;
    Contents.slice(LB, LE).split(Lines, '\n');
    for (llvm::StringRef L : Lines) {
      L = L.ltrim();
      if (!L.consume_front("#"))
        continue;
      L = L.ltrim();
      if (L.starts_with("if"))
        ++Depth;
      else if (L.starts_with("endif") && --Depth < 0)
        Crosses = true;
    }
    if (Crosses || Depth != 0) {
      Refuse("a preprocessor conditional (#if/#endif) crosses the loop's "
             "boundary");
      return;
    }
  }
  if (D->getBeginLoc().isMacroID() || SM.isMacroBodyExpansion(D->getEndLoc())) {
    Refuse("the directive comes from a macro");
    return;
  }
  // The worksharing loop and the clauses that apply to it.
  const OMPLoopDirective *Loop = nullptr;
  std::vector<const OMPClause *> Clauses(D->clauses().begin(),
                                         D->clauses().end());
  if (P.Enclosing) {
    Loop = cast<OMPLoopDirective>(D);
    Clauses.assign(P.Enclosing->clauses().begin(),
                   P.Enclosing->clauses().end());
    Clauses.insert(Clauses.end(), D->clauses().begin(), D->clauses().end());
    Kind = llvm::omp::OMPD_unknown;
  }
  switch (P.Enclosing ? llvm::omp::OMPD_for : Kind) {
  case llvm::omp::OMPD_for:
    break;
  case llvm::omp::OMPD_parallel_for:
  case llvm::omp::OMPD_parallel_for_simd:
  case llvm::omp::OMPD_target_teams_distribute_parallel_for:
  case llvm::omp::OMPD_target_teams_distribute_parallel_for_simd:
  case llvm::omp::OMPD_target_parallel_for:
  case llvm::omp::OMPD_target_parallel_for_simd:
  case llvm::omp::OMPD_teams_distribute_parallel_for:
  case llvm::omp::OMPD_teams_distribute_parallel_for_simd:
    Loop = cast<OMPLoopDirective>(D);
    break;
  case llvm::omp::OMPD_parallel: {
    const Stmt *Body = soleStatement(directiveBody(D));
    auto *For = dyn_cast_or_null<OMPLoopDirective>(Body);
    if (For && !isa<OMPForDirective>(For) && !isa<OMPForSimdDirective>(For))
      For = nullptr;
    if (!For) {
      planGroup(P);
      return;
    }
    Loop = For;
    Clauses.insert(Clauses.end(), For->clauses().begin(), For->clauses().end());
    break;
  }
  default:
    Refuse("'" + P.PragmaText.substr(P.PragmaText.find("omp")) +
           "' is not an offloadable loop (parallel for, parallel + for, "
           "target teams distribute parallel for)");
    return;
  }

  unsigned Collapse = 1;
  std::set<const VarDecl *> PrivateSet, FirstprivateSet;
  std::map<const VarDecl *, const Expr *> MapSection;
  std::map<const VarDecl *, MapKind> MapKinds;
  for (const OMPClause *C : Clauses) {
    // Clauses Sema added (a target region's implicit firstprivate and map)
    // restate the defaults the translation applies anyway.
    if (C->isImplicit())
      continue;
    std::string Name = llvm::omp::getOpenMPClauseName(C->getClauseKind()).str();
    switch (C->getClauseKind()) {
    case llvm::omp::OMPC_private:
      for (const Expr *E : cast<OMPPrivateClause>(C)->varlist())
        if (const VarDecl *V = referencedVar(E))
          PrivateSet.insert(V);
      break;
    case llvm::omp::OMPC_firstprivate:
      for (const Expr *E : cast<OMPFirstprivateClause>(C)->varlist())
        if (const VarDecl *V = referencedVar(E))
          FirstprivateSet.insert(V);
      break;
    case llvm::omp::OMPC_shared:
    case llvm::omp::OMPC_default:
      break;
    case llvm::omp::OMPC_collapse: {
      Expr::EvalResult ER;
      if (cast<OMPCollapseClause>(C)->getNumForLoops()->EvaluateAsInt(ER, Ctx))
        Collapse = ER.Val.getInt().getZExtValue();
      break;
    }
    case llvm::omp::OMPC_schedule:
      P.Notes.push_back("'" +
                        sourceText(Ctx, {C->getBeginLoc(), C->getEndLoc()}) +
                        "' has no GPU counterpart: each iteration is one "
                        "thread, and the hardware schedules the blocks");
      break;
    case llvm::omp::OMPC_num_threads:
    case llvm::omp::OMPC_num_teams:
    case llvm::omp::OMPC_thread_limit:
    case llvm::omp::OMPC_dist_schedule:
    case llvm::omp::OMPC_proc_bind:
      P.Notes.push_back("'" + Name +
                        "' is ignored: the grid has one thread per "
                        "iteration");
      break;
    case llvm::omp::OMPC_nowait:
      // One loop alone in its region: nothing waits on it anyway.
      break;
    case llvm::omp::OMPC_simdlen:
    case llvm::omp::OMPC_safelen:
    case llvm::omp::OMPC_aligned:
    case llvm::omp::OMPC_order:
      P.Notes.push_back("'" + Name +
                        "' is ignored: each iteration is a thread of its own");
      break;
    case llvm::omp::OMPC_reduction: {
      auto *R = cast<OMPReductionClause>(C);
      DeclarationName N = R->getNameInfo().getName();
      std::string Op;
      if (N.getNameKind() == DeclarationName::CXXOperatorName) {
        switch (N.getCXXOverloadedOperator()) {
        case OO_Plus:
        case OO_Minus:
          Op = "ww_omp_plus";
          break;
        case OO_Star:
          Op = "ww_omp_times";
          break;
        default:
          break;
        }
      } else if (N.isIdentifier()) {
        if (N.getAsString() == "min")
          Op = "ww_omp_min";
        else if (N.getAsString() == "max")
          Op = "ww_omp_max";
      }
      if (Op.empty()) {
        Refuse("'reduction(" + R->getNameInfo().getAsString() +
               ":...)' is not supported (+, -, *, min and max are)");
        return;
      }
      if (R->getModifier() != OMPC_REDUCTION_unknown &&
          R->getModifier() != OMPC_REDUCTION_default) {
        Refuse("reduction modifiers (inscan, task) are not supported");
        return;
      }
      for (const Expr *E : R->varlist()) {
        const VarDecl *V = referencedVar(E);
        if (!V) {
          Refuse("a reduction over an array section is not supported");
          return;
        }
        // The identities of min and max: the type's extremes.
        static const struct {
          BuiltinType::Kind Kind;
          const char *Lo, *Hi;
        } Limits[] = {
            {BuiltinType::Float, "-FLT_MAX", "FLT_MAX"},
            {BuiltinType::Double, "-DBL_MAX", "DBL_MAX"},
            {BuiltinType::Int, "INT_MIN", "INT_MAX"},
            {BuiltinType::UInt, "0u", "UINT_MAX"},
            {BuiltinType::Long, "LONG_MIN", "LONG_MAX"},
            {BuiltinType::ULong, "0ul", "ULONG_MAX"},
            {BuiltinType::LongLong, "LLONG_MIN", "LLONG_MAX"},
            {BuiltinType::ULongLong, "0ull", "ULLONG_MAX"},
        };
        const auto *BT = V->getType()->getAs<BuiltinType>();
        std::string Ty = V->getType().getUnqualifiedType().getAsString();
        std::string Lo, Hi;
        for (const auto &L : Limits)
          if (BT && BT->getKind() == L.Kind) {
            Lo = L.Lo;
            Hi = L.Hi;
          }
        if (Lo.empty()) {
          Refuse("the reduction variable '" + V->getNameAsString() +
                 "' has type '" + Ty +
                 "' (int, long, long long, their unsigned forms, float and "
                 "double are supported)");
          return;
        }
        ReductionVar RV;
        RV.Var = V;
        RV.Op = Op;
        RV.Identity = Op == "ww_omp_plus"    ? "(" + Ty + ")0"
                      : Op == "ww_omp_times" ? "(" + Ty + ")1"
                      : Op == "ww_omp_min"   ? "(" + Ty + ")" + Hi
                                             : "(" + Ty + ")" + Lo;
        P.Reductions.push_back(RV);
      }
      break;
    }
    case llvm::omp::OMPC_map: {
      auto *M = cast<OMPMapClause>(C);
      MapKind K = MapKind::ToFrom;
      switch (M->getMapType()) {
      case OMPC_MAP_to:
        K = MapKind::To;
        break;
      case OMPC_MAP_from:
        K = MapKind::From;
        break;
      case OMPC_MAP_alloc:
        K = MapKind::Alloc;
        break;
      case OMPC_MAP_tofrom:
      case OMPC_MAP_unknown:
        K = MapKind::ToFrom;
        break;
      default:
        Refuse("'" + sourceText(Ctx, {C->getBeginLoc(), C->getEndLoc()}) +
               "' is not a to, from, tofrom or alloc map");
        return;
      }
      for (const Expr *E : M->varlist()) {
        const Expr *S = strip(E);
        const VarDecl *V = referencedVar(S);
        if (auto *AS = dyn_cast<ArraySectionExpr>(S)) {
          if (isa<ArraySectionExpr>(strip(AS->getBase()))) {
            Refuse("the multi-dimensional section '" +
                   sourceText(Ctx, AS->getSourceRange()) +
                   "' is not supported; map the whole array");
            return;
          }
          V = referencedVar(AS->getBase());
          if (V)
            MapSection[V] = AS;
        }
        if (!V) {
          Refuse("the map item '" + sourceText(Ctx, S->getSourceRange()) +
                 "' is not a variable or a section of one");
          return;
        }
        MapKinds[V] = K;
      }
      break;
    }
    default:
      Refuse("the clause '" + Name + "' is not supported");
      return;
    }
  }
  if (Collapse > 3) {
    Refuse("collapse(" + std::to_string(Collapse) +
           ") is deeper than a grid's three dimensions");
    return;
  }

  // The loop nest: `Collapse` perfectly nested canonical loops.
  const Stmt *S = Loop->getInnermostCapturedStmt()->getCapturedStmt();
  for (unsigned K = 0; K < Collapse; ++K) {
    auto *For = dyn_cast_or_null<ForStmt>(soleStatement(S));
    if (!For) {
      Refuse(K == 0 ? "the directive is not followed by a for loop"
                    : "collapse(" + std::to_string(Collapse) +
                          ") needs perfectly nested loops");
      return;
    }
    LoopLevel L;
    if (!analyseLoop(P, For, L))
      return;
    P.Levels.push_back(L);
    S = For->getBody();
  }
  P.Body = P.Levels.back().For->getBody();
  // Rectangular: a bound of an inner level does not use an outer variable.
  for (size_t K = 1; K < P.Levels.size(); ++K) {
    UseCollector U;
    for (const Expr *E : {P.Levels[K].Lb, P.Levels[K].Ub, P.Levels[K].Step})
      if (E)
        U.TraverseStmt(const_cast<Expr *>(E));
    for (size_t O = 0; O < K; ++O)
      if (U.Uses.count(P.Levels[O].Var)) {
        Refuse("the collapsed nest is not rectangular: the bounds of '" +
               P.Levels[K].Var->getNameAsString() + "' use '" +
               P.Levels[O].Var->getNameAsString() + "'");
        return;
      }
  }

  // What the nest does with each variable.
  const ForStmt *Outer = P.Levels.front().For;
  UseCollector U;
  U.TraverseStmt(const_cast<ForStmt *>(Outer));
  if (!U.Problems.empty()) {
    Refuse("the loop " + U.Problems.front().second + " (line " +
           lineOf(U.Problems.front().first) + ")");
    return;
  }
  if (hasOwnJump(P.Body, /*Breaks=*/true, /*Continues=*/false)) {
    Refuse("the loop breaks out of its iterations");
    return;
  }
  {
    // The nest is perfect: only the innermost body can change a loop
    // variable or a bound.
    UseCollector B;
    B.TraverseStmt(const_cast<Stmt *>(P.Body));
    for (const LoopLevel &M : P.Levels) {
      auto It = B.Uses.find(M.Var);
      if (It != B.Uses.end() &&
          (It->second.ScalarWrite || It->second.AddressTaken)) {
        Refuse("the body changes the loop variable '" +
               M.Var->getNameAsString() + "'");
        return;
      }
    }
    // The step and bound are evaluated once, as OpenMP requires.
    for (const LoopLevel &L : P.Levels)
      for (const Expr *E : {L.Lb, L.Ub, L.Step}) {
        if (!E)
          continue;
        UseCollector BU;
        BU.TraverseStmt(const_cast<Expr *>(E));
        for (const VarDecl *V : BU.Order)
          if (B.Uses.count(V) &&
              (B.Uses[V].ScalarWrite || B.Uses[V].AddressTaken)) {
            Refuse("the body changes '" + V->getNameAsString() +
                   "', which a loop bound uses");
            return;
          }
      }
  }
  std::string Why;
  std::set<const FunctionDecl *> Seen;
  for (const FunctionDecl *F : U.Calls) {
    if (!deviceCallable(F, Why, Seen)) {
      Refuse("the loop " + Why);
      return;
    }
    if (!isDeviceMath(F->getName()))
      P.DeviceFunctions.insert(F->getDefinition() ? F->getDefinition() : F);
  }
  std::set<const VarDecl *> LevelVars;
  for (const LoopLevel &L : P.Levels)
    LevelVars.insert(L.Var);
  // Atomic updates: of a shared scalar, a reduction in all but name (each
  // thread adds into its own copy); of array elements, CUDA's atomicAdd.
  {
    std::map<const VarDecl *, unsigned> AtomicRefs;
    for (const UseCollector::AtomicUpdate &A : U.Atomics) {
      if (A.Element)
        P.AtomicArrays.insert(A.Var);
      else
        ++AtomicRefs[A.Var];
      // The pragma's line, commented out in the kernel's copy.
      auto [PB, PE] = pragmaLines(A.D);
      P.BodyEdits.push_back(
          {PB, PE,
           "// (device: " +
               std::string(A.Element ? "atomicAdd" : "the thread's own copy") +
               ") " + Contents.slice(PB, PE).trim().str() + "\n"});
      if (A.Element) {
        std::string T = A.Target->getType()
                            .getCanonicalType()
                            .getUnqualifiedType()
                            .getAsString();
        std::string Amount =
            A.Amount ? "(" + T + ")(" +
                           sourceText(Ctx, A.Amount->getSourceRange()) + ")"
                     : "(" + T + ")1";
        if (A.Minus)
          Amount = "(" + T + ")0 - " + Amount;
        unsigned B = offset(A.Update->getBeginLoc());
        unsigned E = offset(A.Update->getEndLoc()) +
                     Lexer::MeasureTokenLength(
                         SM.getExpansionLoc(A.Update->getEndLoc()), SM, LO);
        P.BodyEdits.push_back({B, E,
                               "atomicAdd(&(" +
                                   sourceText(Ctx, A.Target->getSourceRange()) +
                                   "), " + Amount + ")"});
      }
    }
    for (auto [V, N] : AtomicRefs) {
      if (U.Declared.count(V) || LevelVars.count(V))
        continue;
      // Every mention of V in the nest is one of its atomic updates.
      unsigned All = 0;
      std::function<void(const Stmt *)> Count = [&](const Stmt *X) {
        if (!X)
          return;
        if (auto *DR = dyn_cast<DeclRefExpr>(X); DR && DR->getDecl() == V)
          ++All;
        for (const Stmt *C : childrenOf(X))
          Count(C);
      };
      Count(Outer);
      if (All != N || llvm::any_of(P.Reductions, [&](const ReductionVar &R) {
            return R.Var == V;
          })) {
        Refuse("'" + V->getNameAsString() +
               "' is updated atomically and also used otherwise in the loop");
        return;
      }
      ReductionVar RV;
      RV.Var = V;
      RV.Op = "ww_omp_plus";
      RV.Identity =
          "(" + V->getType().getUnqualifiedType().getAsString() + ")0";
      P.Reductions.push_back(RV);
      P.Notes.push_back("the atomic updates of '" + V->getNameAsString() +
                        "' are a sum: each thread adds into its own copy, and "
                        "the copies are combined as a reduction");
    }
  }
  for (const VarDecl *V : U.Order) {
    if (U.Declared.count(V) || LevelVars.count(V))
      continue;
    const UseCollector::Use &Use = U.Uses[V];
    std::string N = V->getNameAsString();
    if (V->getTLSKind() != VarDecl::TLS_None) {
      Refuse("'" + N + "' is thread-local");
      return;
    }
    if (llvm::any_of(P.Reductions,
                     [&](const ReductionVar &R) { return R.Var == V; })) {
      if (Use.AddressTaken) {
        Refuse("the address of the reduction variable '" + N + "' is taken");
        return;
      }
      continue;
    }
    if (PrivateSet.count(V)) {
      if (localType(V->getType())) {
        Refuse("the type of the private '" + N +
               "' is declared inside the function; the kernel, at file "
               "scope, cannot name it");
        return;
      }
      if (V->getType()->isVariablyModifiedType()) {
        Refuse("the private '" + N + "' has a variable-length type");
        return;
      }
      P.Private.push_back(V);
      continue;
    }
    QualType T = V->getType();
    if (localType(T)) {
      Refuse("the type of '" + N +
             "' is declared inside the function; the "
             "kernel, at file scope, cannot name it");
      return;
    }
    bool Scalar = T->isArithmeticType() || T->isEnumeralType();
    if (T->isRecordType() && plainData(T)) {
      // A structure of plain values is passed by value, as a scalar is.
      if (Use.ScalarWrite || Use.ElementWrite || Use.AddressTaken) {
        Refuse(FirstprivateSet.count(V)
                   ? "the firstprivate structure '" + N +
                         "' is changed in the loop (structures are passed "
                         "by value only when the loop just reads them)"
                   : "the loop writes into the shared structure '" + N +
                         "' (structures are passed by value, so only ones "
                         "the loop just reads are offloaded)");
        return;
      }
      P.ByValue.push_back(V);
      continue;
    }
    if (FirstprivateSet.count(V)) {
      if (!Scalar) {
        Refuse("firstprivate '" + N +
               "' is not a scalar (only scalars are "
               "passed by value)");
        return;
      }
      P.ByValue.push_back(V);
      continue;
    }
    if (Scalar) {
      if (Use.ScalarWrite || Use.AddressTaken) {
        Refuse("the shared scalar '" + N +
               "' is written by every iteration (a data race; make it "
               "private or a reduction)");
        return;
      }
      P.ByValue.push_back(V);
      continue;
    }
    if (T->isPointerType() || T->isArrayType()) {
      if (Use.ScalarWrite || Use.AddressTaken) {
        Refuse("the loop changes the pointer '" + N + "' itself");
        return;
      }
      MappedArray A;
      if (!mapArray(P, V, A))
        return;
      A.Read = Use.Read;
      A.Written = Use.ElementWrite;
      A.PassedToCall = Use.PassedToCall;
      if (auto It = MapKinds.find(V); It != MapKinds.end())
        A.Map = It->second;
      if (auto It = MapSection.find(V); It != MapSection.end()) {
        auto *AS = cast<ArraySectionExpr>(It->second);
        Expr::EvalResult Zero;
        if (AS->getLowerBound() &&
            !(AS->getLowerBound()->EvaluateAsInt(Zero, Ctx) &&
              Zero.Val.getInt() == 0))
          A.Offset = "(" +
                     sourceText(Ctx, AS->getLowerBound()->getSourceRange()) +
                     ")";
        if (AS->getLength()) {
          A.Count =
              "(" + sourceText(Ctx, AS->getLength()->getSourceRange()) + ")";
          A.CountExpr = AS->getLength();
        } else if (A.Count.empty()) {
          Refuse("the map section of '" + N + "' has no length");
          return;
        }
        A.ExtentFrom = "its map clause";
        A.ExtentExprs.clear();
        for (const Expr *E : {AS->getLowerBound(), AS->getLength()})
          if (E)
            A.ExtentExprs.push_back(E);
        for (const Expr *E : A.ExtentExprs) {
          UseCollector EU;
          EU.TraverseStmt(const_cast<Expr *>(E));
          for (const VarDecl *X : EU.Order)
            if (U.Uses.count(X) && U.Uses[X].ScalarWrite) {
              Refuse("the loop changes '" + X->getNameAsString() +
                     "', which the map section of '" + N + "' uses");
              return;
            }
        }
      } else if (A.Count.empty() && !extentFromMalloc(P, V, A)) {
        return;
      }
      P.Arrays.push_back(A);
      continue;
    }
    Refuse("'" + N + "' has type '" + T.getAsString() +
           "' (scalars, arrays and pointers to data can be mapped)");
    return;
  }
  std::string Race;
  if (!parallelIndependent(P, Race)) {
    Refuse(Race);
    return;
  }
  proveFullWrites(P);
  if (P.Levels.size() == 1)
    trySwap(P);
}

/// The dependence test of the parallel loop(s): every array the loop writes
/// is accessed at one subscript only, and that subscript gives each
/// iteration of the parallel dimensions its own element (`a[i][j]`,
/// `a[i + 1]`, `a[i * n + j]` with j in [0, n)). Anything else may be a race
/// or a dependence between iterations, and stays on the host.
bool Offloader::parallelIndependent(const KernelPlan &P, std::string &Why) {
  std::set<const VarDecl *> LevelVars;
  for (const LoopLevel &L : P.Levels)
    LevelVars.insert(L.Var);
  // Inner canonical loops, for the range of the j in a[i * n + j].
  std::map<const VarDecl *, LoopLevel> Inner;
  std::function<void(const Stmt *)> FindLoops = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *For = dyn_cast<ForStmt>(S)) {
      LoopLevel L;
      KernelPlan Scratch;
      if (analyseLoop(Scratch, For, L))
        Inner[L.Var] = L;
    }
    for (const Stmt *C : childrenOf(S))
      FindLoops(C);
  };
  FindLoops(P.Body);
  for (const LoopLevel &L : P.Levels)
    Inner[L.Var] = L;
  UseCollector BodyUses;
  BodyUses.TraverseStmt(const_cast<Stmt *>(P.Body));
  auto Invariant = [&](const Expr *E) {
    UseCollector U;
    U.TraverseStmt(const_cast<Expr *>(E));
    for (const VarDecl *V : U.Order) {
      if (LevelVars.count(V) || Inner.count(V) || U.Declared.count(V))
        return false;
      auto It = BodyUses.Uses.find(V);
      if (It != BodyUses.Uses.end() &&
          (It->second.ScalarWrite || It->second.AddressTaken))
        return false;
      if (BodyUses.Declared.count(V))
        return false;
    }
    return U.Calls.empty();
  };
  // v, v + c, c + v, v - c with c invariant.
  auto Offsets = [&](const Expr *E, const VarDecl *V) {
    E = strip(E);
    if (referencedVar(E) == V)
      return true;
    auto *B = dyn_cast<BinaryOperator>(E);
    if (!B || (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub))
      return false;
    if (referencedVar(B->getLHS()) == V)
      return Invariant(B->getRHS());
    return B->getOpcode() == BO_Add && referencedVar(B->getRHS()) == V &&
           Invariant(B->getLHS());
  };
  // i * E + j (any order of the products and the sum), j in [0, E).
  auto Flat = [&](const Expr *E, const VarDecl *I, const VarDecl *J) {
    auto *B = dyn_cast<BinaryOperator>(strip(E));
    if (!B || B->getOpcode() != BO_Add)
      return false;
    for (auto [Prod, Rest] : {std::pair(B->getLHS(), B->getRHS()),
                              std::pair(B->getRHS(), B->getLHS())}) {
      if (referencedVar(Rest) != J || !Inner.count(J))
        continue;
      auto *M = dyn_cast<BinaryOperator>(strip(Prod));
      if (!M || M->getOpcode() != BO_Mul)
        continue;
      const Expr *Stride = referencedVar(M->getLHS()) == I   ? M->getRHS()
                           : referencedVar(M->getRHS()) == I ? M->getLHS()
                                                             : nullptr;
      const LoopLevel &JL = Inner[J];
      Expr::EvalResult Lb;
      if (Stride && Invariant(Stride) && JL.UnitStep && !JL.Decreasing &&
          JL.Cmp == BO_LT && JL.Lb->EvaluateAsInt(Lb, Ctx) &&
          Lb.Val.getInt() == 0 &&
          normalised(Ctx, Stride->IgnoreParenCasts()) ==
              normalised(Ctx, JL.Ub->IgnoreParenCasts()) &&
          sameVariables(Stride, JL.Ub))
        return true;
    }
    return false;
  };
  for (const MappedArray &A : P.Arrays) {
    if (!A.Written)
      continue;
    unsigned Rank = 1;
    for (QualType E = A.DeviceType->getPointeeType();
         Ctx.getAsConstantArrayType(E);
         E = Ctx.getAsConstantArrayType(E)->getElementType())
      ++Rank;
    // Every mention of A: full subscripts, one key.
    std::vector<std::vector<const Expr *>> Accesses;
    unsigned Refs = 0, Consumed = 0, AtomicAccesses = 0;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == A.Var)
        ++Refs;
      if (auto *AD = dyn_cast<OMPAtomicDirective>(S)) {
        // An atomic update of A: any element, safely; its subscripts and
        // operand are still walked.
        if (const auto *E = dyn_cast_or_null<Expr>(directiveBody(AD))) {
          const Expr *Tgt = nullptr;
          const Expr *X = E->IgnoreParenImpCasts();
          if (auto *CA = dyn_cast<CompoundAssignOperator>(X))
            Tgt = CA->getLHS();
          else if (auto *UO = dyn_cast<UnaryOperator>(X))
            Tgt = UO->getSubExpr();
          else if (auto *BO = dyn_cast<BinaryOperator>(X))
            Tgt = BO->getLHS();
          if (Tgt && baseVar(Tgt) == A.Var) {
            ++AtomicAccesses;
            std::vector<const Expr *> Subs;
            subscripts(Tgt, Subs);
            for (const Expr *Sub : Subs)
              Walk(Sub);
            if (auto *CA = dyn_cast<CompoundAssignOperator>(X))
              Walk(CA->getRHS());
            else if (auto *BO = dyn_cast<BinaryOperator>(X)) {
              auto *R =
                  dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
              if (R)
                Walk(R->getRHS());
            }
            return;
          }
        }
      }
      // &a[i] lets a callee reach a[i + 1]: not a single element.
      if (auto *U = dyn_cast<UnaryOperator>(S);
          U && U->getOpcode() == UO_AddrOf &&
          baseVar(U->getSubExpr()) == A.Var) {
        ++Refs;
        return;
      }
      if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
        std::vector<const Expr *> Subs;
        if (subscripts(AS, Subs) == A.Var && Subs.size() == Rank) {
          Accesses.push_back(Subs);
          ++Consumed;
          ++Refs;
          for (const Expr *X : Subs)
            Walk(X);
          return;
        }
      }
      for (const Stmt *C : childrenOf(S))
        Walk(C);
    };
    Walk(P.Body);
    if (AtomicAccesses > 0) {
      if (Refs != Consumed || !Accesses.empty()) {
        Why = "'" + A.Name +
              "' is updated atomically and also accessed otherwise in the "
              "loop (a race between the two)";
        return false;
      }
      continue; // Only atomic updates: any elements, in any order.
    }
    // Subscripts of the whole nest's headers do not touch arrays.
    if (Refs != Consumed || Accesses.empty()) {
      Why = "the loop writes '" + A.Name +
            "' other than through full subscripts (a pointer, a row or a "
            "call), so its iterations are not proven independent";
      return false;
    }
    auto Key = [&](const std::vector<const Expr *> &Subs) {
      std::string K;
      for (const Expr *X : Subs)
        K += "[" + normalised(Ctx, X) + "]";
      return K;
    };
    std::string K0 = Key(Accesses.front());
    // Each parallel variable owns one position: the same expression there
    // in every access (i, i + c), so iterations with different values of
    // it never touch the same element; the other positions may differ
    // (a[i][j - 1] and a[i][j] stay in row i).
    const std::vector<const Expr *> &Subs = Accesses.front();
    bool Injective = true;
    std::set<size_t> Used;
    for (const LoopLevel &L : P.Levels) {
      bool Found = false;
      for (size_t D = 0; D < Subs.size() && !Found; ++D) {
        if (Used.count(D) || !Offsets(Subs[D], L.Var))
          continue;
        std::string Here = normalised(Ctx, Subs[D]);
        if (llvm::all_of(Accesses, [&](const std::vector<const Expr *> &A2) {
              return normalised(Ctx, A2[D]) == Here;
            })) {
          Used.insert(D);
          Found = true;
        }
      }
      if (!Found) {
        Injective = false;
        break;
      }
    }
    bool SameKey =
        llvm::all_of(Accesses, [&](const auto &A2) { return Key(A2) == K0; });
    if (!Injective && !SameKey) {
      for (const auto &Acc : Accesses)
        if (Key(Acc) != K0) {
          Why = "'" + A.Name + "' is accessed at " + K0 + " and at " +
                Key(Acc) +
                " in one iteration: another iteration may write what this "
                "one reads (a dependence or a race)";
          return false;
        }
    }
    if (!Injective && Subs.size() == 1) {
      // The flattened forms: a[i * n + j] (j an inner loop or the second
      // collapsed level).
      const VarDecl *I = P.Levels.front().Var;
      Injective = false;
      for (const auto &[J, JL] : Inner)
        if (J != I &&
            (P.Levels.size() == 1 ||
             (P.Levels.size() == 2 && J == P.Levels[1].Var)) &&
            Flat(Subs[0], I, J))
          Injective = true;
    }
    if (!Injective) {
      std::string Vars;
      for (const LoopLevel &L : P.Levels)
        Vars += (Vars.empty() ? "'" : ", '") + L.Var->getNameAsString() + "'";
      Why = "the loop writes '" + A.Name + "' at " + K0 +
            ", which is not proven to differ between iterations of " + Vars +
            " (a possible race)";
      return false;
    }
  }
  return true;
}

/// An array the loop writes at every index of its extent, before any read,
/// need not be copied in: `a[i] = ...` (or a[i][j]) at the top of the body,
/// the loop (and an inner loop) running over exactly [0, extent).
void Offloader::proveFullWrites(KernelPlan &P) {
  // Candidate loops: the levels, and one inner loop at the top of the body.
  std::vector<LoopLevel> Loops = P.Levels;
  auto TopLevel = [](const Stmt *B) {
    std::vector<const Stmt *> Out;
    if (auto *C = dyn_cast_or_null<CompoundStmt>(B))
      Out.assign(C->body_begin(), C->body_end());
    else if (B)
      Out.push_back(B);
    return Out;
  };
  if (hasOwnJump(P.Body, false, true))
    return; // A continue may skip the store.
  std::vector<const Stmt *> Body = TopLevel(P.Body);
  for (const Stmt *S : Body)
    if (auto *For = dyn_cast<ForStmt>(S)) {
      LoopLevel L;
      KernelPlan Scratch;
      if (analyseLoop(Scratch, For, L) && L.UnitStep && !L.Decreasing &&
          L.Cmp == BO_LT && !hasOwnJump(For->getBody(), true, true))
        Loops.push_back(L);
    }
  auto Mentions = [&](const Stmt *S, const VarDecl *V) {
    UseCollector X;
    X.TraverseStmt(const_cast<Stmt *>(S));
    return X.Uses.count(V) > 0;
  };
  for (MappedArray &A : P.Arrays) {
    if (!A.Written || A.Offset != "0")
      continue;
    // The dims' extents: the array's own, outermost from A.Count.
    std::vector<std::string> Extents = {A.Dim0Text.empty() ? A.Count
                                                           : A.Dim0Text};
    std::vector<long long> Values = {A.Dim0Value};
    {
      QualType E = A.DeviceType->getPointeeType();
      size_t K = 0;
      while (auto *CA = Ctx.getAsConstantArrayType(E)) {
        Extents.push_back(K < A.InnerDims.size()
                              ? A.InnerDims[K]
                              : std::to_string(CA->getSize().getZExtValue()));
        Values.push_back(CA->getSize().getZExtValue());
        E = CA->getElementType();
        ++K;
      }
    }
    // `A[i][j] = e` with each subscript the variable of a loop running over
    // exactly [0, extent) of that dimension, e not reading A.
    auto IsCoveringStore = [&](const Stmt *S) {
      auto *B = dyn_cast<BinaryOperator>(S);
      if (!B || B->getOpcode() != BO_Assign)
        return false;
      std::vector<const Expr *> Subs;
      if (subscripts(B->getLHS(), Subs) != A.Var ||
          Subs.size() != Extents.size() || Mentions(B->getRHS(), A.Var))
        return false;
      std::set<const VarDecl *> UsedLoops;
      for (size_t D = 0; D < Subs.size(); ++D) {
        const VarDecl *V = referencedVar(Subs[D]);
        auto L = llvm::find_if(Loops,
                               [&](const LoopLevel &X) { return X.Var == V; });
        if (!V || L == Loops.end() || !UsedLoops.insert(V).second ||
            !L->UnitStep || L->Decreasing || L->Cmp != BO_LT)
          return false;
        Expr::EvalResult Lb;
        if (!L->Lb->EvaluateAsInt(Lb, Ctx) || Lb.Val.getInt() != 0)
          return false;
        std::string Ub = normalised(Ctx, L->Ub);
        std::string Want = Extents[D];
        Want.erase(std::remove_if(Want.begin(), Want.end(), llvm::isSpace),
                   Want.end());
        while (Want.size() > 2 && Want.front() == '(' && Want.back() == ')')
          Want = Want.substr(1, Want.size() - 2);
        // Equal as written (the same macro is the same value in any build),
        // or two integer literals of one value.
        // Both spelled alike and of one value here (a macro redefined in
        // between is not the same extent).
        bool Same = Ub == Want;
        Expr::EvalResult UbV;
        if (Same && Values[D] >= 0 && L->Ub->EvaluateAsInt(UbV, Ctx))
          Same = UbV.Val.getInt().getExtValue() == Values[D];
        auto *UbLit = dyn_cast<IntegerLiteral>(L->Ub->IgnoreParenImpCasts());
        if (!Same && UbLit && !UbLit->getBeginLoc().isMacroID() &&
            !Want.empty() && llvm::all_of(Want, llvm::isDigit))
          Same = std::to_string(UbLit->getValue().getZExtValue()) == Want;
        // The same variable or expression once conversions are set aside
        // (`i < n` against malloc((size_t)n * sizeof *y)): the same
        // variables, unchanged since the malloc.
        if (!Same && D == 0 && A.CountExpr && A.CountStable)
          Same = normalised(Ctx, L->Ub->IgnoreParenCasts()) ==
                     normalised(Ctx, A.CountExpr->IgnoreParenCasts()) &&
                 sameVariables(L->Ub, A.CountExpr);
        if (!Same)
          return false;
      }
      return UsedLoops.size() == Subs.size();
    };
    // A statement list writes A in full before reading it: a covering store,
    // or an if/else both of whose sides do, before any other mention of A;
    // an inner loop of the nest counts by its body.
    std::function<bool(const std::vector<const Stmt *> &)> Writes =
        [&](const std::vector<const Stmt *> &List) {
          for (const Stmt *S : List) {
            if (IsCoveringStore(S))
              return true;
            if (auto *If = dyn_cast<IfStmt>(S);
                If && If->getElse() && !If->getInit() &&
                !If->getConditionVariable() &&
                !Mentions(If->getCond(), A.Var) &&
                Writes(TopLevel(If->getThen())) &&
                Writes(TopLevel(If->getElse())))
              return true;
            if (auto *For = dyn_cast<ForStmt>(S);
                For &&
                llvm::any_of(
                    Loops, [&](const LoopLevel &L) { return L.For == For; }) &&
                !Mentions(For->getInit(), A.Var) &&
                !Mentions(For->getCond(), A.Var) &&
                !Mentions(For->getInc(), A.Var) &&
                Writes(TopLevel(For->getBody())))
              return true;
            if (Mentions(S, A.Var))
              return false;
          }
          return false;
        };
    A.WrittenInFull = Writes(Body);
  }
}

bool Offloader::checkIndependence(const KernelPlan &P, const VarDecl *I,
                                  const VarDecl *J, const LoopLevel &Inner,
                                  std::string &Why) {
  const Stmt *Body = Inner.For->getBody();
  UseCollector U;
  U.TraverseStmt(const_cast<Stmt *>(Body));
  for (const FunctionDecl *F : U.Calls)
    if (!isDeviceMath(F->getName())) {
      Why = "it calls '" + F->getNameAsString() + "'";
      return false;
    }
  if (hasOwnJump(Body, true, false)) {
    Why = "the inner loop breaks";
    return false;
  }
  for (const VarDecl *V : U.Order) {
    if (U.Declared.count(V))
      continue;
    const UseCollector::Use &X = U.Uses[V];
    if ((X.ScalarWrite || X.AddressTaken) && V != I && V != J) {
      Why = "the inner loop writes '" + V->getNameAsString() +
            "', declared outside it";
      return false;
    }
  }
  // Every array written: all its accesses use one subscript list that holds
  // i and j each alone (a[i][j]), or i*E + j with j in [0, E).
  struct Access {
    const Expr *E;
    std::string Key;
  };
  std::map<const VarDecl *, std::vector<std::string>> Keys;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      const VarDecl *V = subscripts(AS, Subs);
      if (V) {
        std::string Key;
        for (const Expr *X : Subs)
          Key += "[" + normalised(Ctx, X) + "]";
        Keys[V].push_back(Key);
        for (const Expr *X : Subs)
          Walk(X);
        return;
      }
    }
    for (const Stmt *C : childrenOf(S))
      Walk(C);
  };
  Walk(Body);
  std::string IN = I->getNameAsString(), JN = J->getNameAsString();
  std::string Extent = normalised(Ctx, Inner.Ub);
  for (const MappedArray &A : P.Arrays) {
    if (!A.Written)
      continue;
    auto &K = Keys[A.Var];
    if (K.empty()) {
      Why = "'" + A.Name + "' is written other than by subscript";
      return false;
    }
    if (llvm::any_of(K, [&](const std::string &X) { return X != K[0]; })) {
      Why = "'" + A.Name + "' is accessed at different subscripts (" + K[0] +
            ", ...)";
      return false;
    }
    const std::string &Key = K[0];
    bool TwoD = Key.find("[" + IN + "]") != std::string::npos &&
                Key.find("[" + JN + "]") != std::string::npos;
    Expr::EvalResult Lb;
    bool JFromZero = Inner.Lb->EvaluateAsInt(Lb, Ctx) && Lb.Val.getInt() == 0 &&
                     Inner.UnitStep && !Inner.Decreasing && Inner.Cmp == BO_LT;
    bool Flat = JFromZero && (Key == "[" + IN + "*" + Extent + "+" + JN + "]" ||
                              Key == "[" + Extent + "*" + IN + "+" + JN + "]" ||
                              Key == "[" + JN + "+" + IN + "*" + Extent + "]" ||
                              Key == "[" + JN + "+" + Extent + "*" + IN + "]");
    if (!TwoD && !Flat) {
      Why = "the subscript " + Key + " of '" + A.Name +
            "' does not give each (" + IN + ", " + JN + ") its own element";
      return false;
    }
  }
  return true;
}

void Offloader::trySwap(KernelPlan &P) {
  // Seed 002's parallel loop swap: the parallel loop i strides through
  // memory, an inner loop j is contiguous. When every iteration of the nest
  // is independent, j becomes the fast (x) thread dimension and i the slow
  // one (y): consecutive threads touch consecutive addresses.
  const Stmt *Inner = soleStatement(P.Body);
  auto *For = dyn_cast_or_null<ForStmt>(Inner);
  if (!For || !P.Reductions.empty())
    return;
  const VarDecl *I = P.Levels[0].Var;
  LoopLevel L;
  KernelPlan Scratch;
  if (!analyseLoop(Scratch, For, L))
    return;
  // Strided in i, contiguous in j: some access a[..i..][j] or a[i*E + j].
  bool Strided = false;
  std::string JN = L.Var->getNameAsString(), IN = I->getNameAsString();
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || Strided)
      return;
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      if (subscripts(AS, Subs) && !Subs.empty()) {
        std::string Last = normalised(Ctx, Subs.back());
        UseCollector Idx;
        Idx.TraverseStmt(const_cast<Expr *>(Subs.back()));
        bool IInFront = false;
        for (size_t K = 0; K + 1 < Subs.size(); ++K) {
          UseCollector F;
          F.TraverseStmt(const_cast<Expr *>(Subs[K]));
          IInFront |= F.Uses.count(I) > 0;
        }
        bool EndsInJ = Last == JN ||
                       llvm::StringRef(Last).ends_with("+" + JN) ||
                       llvm::StringRef(Last).starts_with(JN + "+");
        if (EndsInJ && (IInFront || (Subs.size() == 1 && Idx.Uses.count(I))))
          Strided = true;
      }
    }
    for (const Stmt *C : childrenOf(S))
      Walk(C);
  };
  Walk(For->getBody());
  if (!Strided)
    return;
  // Rectangular: j's bounds do not use i.
  UseCollector B;
  for (const Expr *E : {L.Lb, L.Ub, L.Step})
    if (E)
      B.TraverseStmt(const_cast<Expr *>(E));
  std::string Why;
  if (B.Uses.count(I))
    Why = "the bounds of '" + JN + "' depend on '" + IN + "'";
  else
    checkIndependence(P, I, L.Var, L, Why);
  if (!Why.empty()) {
    P.SwapNote = "the accesses stride by rows of '" + IN +
                 "' but the nest was not swapped: " + Why;
    return;
  }
  P.Levels.push_back(L);
  P.Body = For->getBody();
  P.Swapped = true;
  llvm::erase(P.Private, L.Var);
  P.SwapNote = "loop swap: '" + JN +
               "' (contiguous in memory) now runs "
               "across consecutive threads and '" +
               IN + "' across the grid's y dimension; legal because every (" +
               IN + ", " + JN + ") iteration touches its own elements";
}

KernelPlan &Offloader::plan(const OMPExecutableDirective *D) {
  auto [It, New] = Plans.try_emplace(D);
  KernelPlan &P = It->second;
  if (New) {
    P.Directive = D;
    P.Function = CurrentFunction;
    analyseDirective(P);
    if (P.Refusal.empty() && !P.Group)
      nameKernel(P);
  }
  return P;
}

void Offloader::nameKernel(KernelPlan &P) {
  std::string Base = "ww_omp_" + CurrentFunction->getNameAsString() + "_L" +
                     std::to_string(P.Line);
  std::string Name = Base;
  for (unsigned K = 2; KernelNames.count(Name); ++K)
    Name = Base + "_" + std::to_string(K);
  KernelNames.insert(Name);
  P.Name = Name;
  FunctionKernels.push_back(&P);
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
      M.Function = CurrentFunction;
      M.Enclosing = D;
      analyseDirective(M);
    }
    P.Members.push_back(&M);
    if (!M.Refusal.empty() && P.Refusal.empty())
      P.Refusal = "its loop at line " + std::to_string(M.Line) +
                  " cannot be offloaded: " + M.Refusal;
  }
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

// --- regions ---------------------------------------------------------------

std::optional<Offloader::Unit> Offloader::unitOf(const Stmt *S) {
  if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
    KernelPlan &P = plan(D);
    if (!P.Refusal.empty())
      return std::nullopt;
    Unit U;
    U.S = S;
    U.Kernels = P.Group ? P.Members : std::vector<KernelPlan *>{&P};
    return U;
  }
  // A host loop whose body is offloaded loops and statements that touch
  // none of their data (a time-step loop): the data stays on the device for
  // all its iterations.
  const Stmt *Body = nullptr;
  std::vector<const Stmt *> Header;
  if (auto *F = dyn_cast<ForStmt>(S)) {
    Body = F->getBody();
    Header = {F->getInit(), F->getCond(), F->getInc()};
  } else if (auto *W = dyn_cast<WhileStmt>(S)) {
    Body = W->getBody();
    Header = {W->getCond()};
  } else if (auto *Do = dyn_cast<DoStmt>(S)) {
    Body = Do->getBody();
    Header = {Do->getCond()};
  }
  auto *C = dyn_cast_or_null<CompoundStmt>(Body);
  if (!C)
    return std::nullopt;
  Unit U;
  U.S = S;
  U.InLoop = true;
  std::vector<const Stmt *> Others(Header.begin(), Header.end());
  for (const Stmt *X : C->body()) {
    if (auto *D = dyn_cast<OMPExecutableDirective>(X)) {
      KernelPlan &P = plan(D);
      if (!P.Refusal.empty())
        return std::nullopt;
      if (P.Group)
        U.Kernels.insert(U.Kernels.end(), P.Members.begin(), P.Members.end());
      else
        U.Kernels.push_back(&P);
    } else
      Others.push_back(X);
  }
  if (U.Kernels.empty())
    return std::nullopt;
  std::set<const VarDecl *> Mapped = mappedVars(U);
  std::set<const VarDecl *> Extents = extentVars(U.Kernels);
  for (const Stmt *X : Others) {
    if (!X)
      continue;
    // Swapping two of the loop's buffers: the device copies swap too.
    if (const SwapTriple *T = swapOf(X);
        T && Mapped.count(T->A) && Mapped.count(T->B) && !Extents.count(T->A) &&
        !Extents.count(T->B)) {
      if (llvm::find(U.Swaps, T) == U.Swaps.end())
        U.Swaps.push_back(T);
      continue;
    }
    if (!inert(X, Mapped) || writesAny(X, Extents))
      return std::nullopt;
  }
  if (extentConflict(U.Kernels) ||
      !declaredBefore(U.Kernels, lineStart(offset(S->getBeginLoc()))))
    return std::nullopt;
  // Both buffers of a swap must have one extent.
  for (const SwapTriple *T : U.Swaps) {
    // Two mallocs of one size, whose variables have not changed since.
    std::string EA, EB;
    for (const KernelPlan *P : U.Kernels)
      for (const MappedArray &A : P->Arrays) {
        std::string E = A.CaptureAt ? (A.CountStable ? A.CaptureText : "?")
                                    : A.Offset + "+" + A.Count;
        if (A.Var == T->A)
          EA = E;
        if (A.Var == T->B)
          EB = E;
      }
    if (EA != EB || EA == "?")
      return std::nullopt;
  }
  return U;
}

bool Offloader::declaredBefore(const std::vector<KernelPlan *> &Ks,
                               unsigned Head) {
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays) {
      if (offset(A.Var->getLocation()) >= Head ||
          (A.CaptureAt && A.CaptureAt > Head))
        return false;
      for (const Expr *E : A.ExtentExprs) {
        UseCollector U;
        U.TraverseStmt(const_cast<Expr *>(E));
        for (const VarDecl *V : U.Order)
          if (offset(V->getLocation()) >= Head)
            return false;
      }
    }
  return true;
}

const VarDecl *Offloader::extentConflict(const std::vector<KernelPlan *> &Ks) {
  std::map<const VarDecl *, std::string> Seen;
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays) {
      std::string E = A.Offset + "+" + A.Count;
      auto [It, New] = Seen.try_emplace(A.Var, E);
      if (!New && It->second != E)
        return A.Var;
    }
  return nullptr;
}

std::set<const VarDecl *> Offloader::mappedVars(const Unit &U) {
  std::set<const VarDecl *> Out;
  for (const KernelPlan *P : U.Kernels)
    for (const MappedArray &A : P->Arrays)
      Out.insert(A.Var);
  return Out;
}

bool Offloader::inert(const Stmt *S, const std::set<const VarDecl *> &Mapped) {
  // Touches none of the device data, cannot reach it through a call, and
  // cannot leave the region early.
  bool OK = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
    if (!X || !OK)
      return;
    if (isa<CallExpr>(X) || isa<ReturnStmt>(X) || isa<GotoStmt>(X) ||
        isa<BreakStmt>(X) || isa<ContinueStmt>(X) ||
        isa<OMPExecutableDirective>(X) || isa<GCCAsmStmt>(X) ||
        isa<LabelStmt>(X) || isa<IndirectGotoStmt>(X)) {
      OK = false;
      return;
    }
    if (auto *DR = dyn_cast<DeclRefExpr>(X))
      if (auto *V = dyn_cast<VarDecl>(DR->getDecl()); V && Mapped.count(V)) {
        OK = false;
        return;
      }
    // Memory reached through a pointer may be a device-resident array under
    // another name (q = a; q[0] = 1): only arrays of their own are touched.
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(X)) {
      const Expr *Base = AS->getBase()->IgnoreParenImpCasts();
      while (auto *Inner = dyn_cast<ArraySubscriptExpr>(Base))
        Base = Inner->getBase()->IgnoreParenImpCasts();
      if (!isa<DeclRefExpr>(Base) || !Base->getType()->isArrayType()) {
        OK = false;
        return;
      }
    }
    if (auto *U = dyn_cast<UnaryOperator>(X); U && U->getOpcode() == UO_Deref) {
      OK = false;
      return;
    }
    if (auto *M = dyn_cast<MemberExpr>(X); M && M->isArrow()) {
      OK = false;
      return;
    }
    for (const Stmt *C : childrenOf(X))
      Walk(C);
  };
  Walk(S);
  return OK;
}

void Offloader::walk(const Stmt *S, bool InHostLoop) {
  if (!S)
    return;
  if (auto *C = dyn_cast<CompoundStmt>(S)) {
    walkCompound(C, InHostLoop);
    return;
  }
  if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
    // Not directly in a block (the body of an if without braces): a region
    // of its own, inside its launch block.
    KernelPlan &P = plan(D);
    if (P.Group && P.Refusal.empty()) {
      P.Refusal = "a parallel region of several loops as the body of a "
                  "statement without braces is not supported";
      for (KernelPlan *M : P.Members)
        M->Hidden = true, M->Refusal = P.Refusal;
    }
    if (P.Refusal.empty()) {
      Region R;
      Unit U;
      U.S = S;
      U.Kernels = {&P};
      R.Units = {U};
      R.First = R.Last = S;
      R.InsideBlock = true;
      finishRegion(R, InHostLoop);
    }
    return;
  }
  bool Loop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S);
  for (const Stmt *C : childrenOf(S))
    walk(C, InHostLoop || Loop);
}

void Offloader::walkCompound(const CompoundStmt *C, bool InHostLoop) {
  std::vector<const Stmt *> Kids(C->body_begin(), C->body_end());
  size_t I = 0;
  while (I < Kids.size()) {
    std::optional<Unit> First = unitOf(Kids[I]);
    if (!First) {
      if (!isa<OMPExecutableDirective>(Kids[I]))
        walk(Kids[I], InHostLoop);
      ++I;
      continue;
    }
    // Extend over units and inert statements; cut where an inert statement
    // turns out to touch data of a later unit.
    std::vector<std::pair<size_t, std::optional<Unit>>> Span = {{I, First}};
    size_t J = I + 1;
    for (; J < Kids.size(); ++J) {
      std::optional<Unit> U = unitOf(Kids[J]);
      if (U) {
        std::vector<KernelPlan *> Ks;
        for (auto &[K, V] : Span)
          if (V)
            Ks.insert(Ks.end(), V->Kernels.begin(), V->Kernels.end());
        Ks.insert(Ks.end(), U->Kernels.begin(), U->Kernels.end());
        if (extentConflict(Ks) ||
            !declaredBefore(U->Kernels, lineStart(headOffset(Kids[I]))))
          break; // Another section of an array, or data declared later.
        Span.push_back({J, U});
        continue;
      }
      if (isa<OMPExecutableDirective>(Kids[J]))
        break;
      Span.push_back({J, std::nullopt});
    }
    // Trailing non-units are not part of the region.
    while (!Span.back().second)
      Span.pop_back();
    for (bool Changed = true; Changed;) {
      Changed = false;
      std::set<const VarDecl *> Mapped;
      std::vector<KernelPlan *> Ks;
      for (auto &[K, U] : Span)
        if (U) {
          auto M = mappedVars(*U);
          Mapped.insert(M.begin(), M.end());
          Ks.insert(Ks.end(), U->Kernels.begin(), U->Kernels.end());
        }
      std::set<const VarDecl *> Extents = extentVars(Ks);
      for (size_t K = 0; K < Span.size(); ++K)
        if (!Span[K].second && (!inert(Kids[Span[K].first], Mapped) ||
                                writesAny(Kids[Span[K].first], Extents))) {
          Span.resize(K);
          while (!Span.back().second)
            Span.pop_back();
          Changed = true;
          break;
        }
    }
    // A region whose arrays may overlap is wrapped in an if/else (device
    // path or the original code): a declaration between its loops would go
    // out of scope, so the region ends before one.
    {
      std::vector<KernelPlan *> Ks;
      for (auto &[K, U] : Span)
        if (U)
          Ks.insert(Ks.end(), U->Kernels.begin(), U->Kernels.end());
      if (!aliasPairs(Ks).empty())
        for (size_t K = 0; K < Span.size(); ++K)
          if (!Span[K].second && isa<DeclStmt>(Kids[Span[K].first])) {
            Span.resize(K);
            while (!Span.back().second)
              Span.pop_back();
            break;
          }
    }
    Region R;
    for (auto &[K, U] : Span)
      if (U)
        R.Units.push_back(*U);
    R.First = Kids[Span.front().first];
    R.Last = Kids[Span.back().first];
    finishRegion(R, InHostLoop);
    I = Span.back().first + 1;
  }
}

bool Offloader::usedOnlyIn(const VarDecl *V, const Region &R) {
  // Every reference to V in the function is inside the region, V's own
  // malloc, or free(V): the host never sees its contents.
  if (!V->isLocalVarDecl() || V->isStaticLocal())
    return false;
  unsigned B = offset(R.First->getBeginLoc()), E = endOf(R.Last);
  bool OK = true;
  std::function<void(const Stmt *, const Stmt *)> Walk = [&](const Stmt *S,
                                                             const Stmt *Up) {
    if (!S || !OK)
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V) {
      unsigned O = offset(DR->getLocation());
      if (O >= B && O < E)
        return;
      bool Allowed = false;
      if (auto *Call = dyn_cast_or_null<CallExpr>(Up))
        if (auto *F = Call->getDirectCallee(); F && F->getName() == "free")
          Allowed = true;
      if (auto *Bin = dyn_cast_or_null<BinaryOperator>(Up);
          Bin && Bin->getOpcode() == BO_Assign &&
          referencedVar(Bin->getLHS()) == V)
        Allowed = true;
      if (!Allowed)
        OK = false;
      return;
    }
    // Look through casts to the call or assignment above.
    const Stmt *Next = (isa<ImplicitCastExpr>(S) || isa<ParenExpr>(S) ||
                        isa<CStyleCastExpr>(S))
                           ? Up
                           : S;
    for (const Stmt *C : childrenOf(S))
      Walk(C, Next);
  };
  Walk(R.First->getBeginLoc().isValid() ? CurrentFunction->getBody() : nullptr,
       nullptr);
  return OK;
}

void Offloader::finishRegion(Region &R, bool InHostLoop) {
  R.Index = Regions.size() + 1;
  // Arrays in first-use order; the first kernel that touches an array
  // decides whether it must be copied in.
  struct FirstUse {
    bool WrittenInFull = false, InLoop = false;
    MapKind Map = MapKind::None;
    unsigned Line = 0;
    std::string Extent;
  };
  std::map<const VarDecl *, FirstUse> First;
  std::map<const VarDecl *, bool> CopyOut;
  for (const Unit &U : R.Units)
    for (KernelPlan *P : U.Kernels)
      for (const MappedArray &A : P->Arrays) {
        auto [It, New] = First.try_emplace(A.Var);
        if (New) {
          R.Arrays.push_back(A.Var);
          It->second = {A.WrittenInFull, U.InLoop, A.Map, P->Line,
                        A.Offset + "+" + A.Count};
        } else if (It->second.Extent != A.Offset + "+" + A.Count &&
                   A.ExtentFrom == "its map clause") {
          // Different sections of one array: the first one's extent is used;
          // a later, different one could reach past it.
          P->Notes.push_back("'" + A.Name +
                             "' is mapped with a different "
                             "section than at its first use in this region; "
                             "the first section's extent is used");
        }
        bool Out = A.Written;
        if (A.Map == MapKind::To || A.Map == MapKind::Alloc)
          Out = false;
        if (A.Map == MapKind::From || A.Map == MapKind::ToFrom)
          Out = true;
        CopyOut[A.Var] = CopyOut[A.Var] || Out;
      }
  // Buffers the host swaps between steps: each holds either's data, so
  // both are copied in, and both out when either is written.
  std::map<const VarDecl *, const VarDecl *> Partner;
  for (const Unit &U : R.Units)
    for (const SwapTriple *T : U.Swaps) {
      Partner[T->A] = T->B;
      Partner[T->B] = T->A;
    }
  for (const VarDecl *V : R.Arrays) {
    const FirstUse &F = First[V];
    std::vector<std::string> Why;
    if (auto It = Partner.find(V); It != Partner.end()) {
      bool Out = CopyOut[V] || CopyOut[It->second];
      R.Why[V] = "swapped with " + It->second->getNameAsString() +
                 " by the host loop; the device copies swap with them";
      R.CopyInOut[V] = {true, Out};
      continue;
    }
    bool Out = CopyOut[V];
    if (Out && !InHostLoop && usedOnlyIn(V, R)) {
      Out = false;
      Why.push_back("not copied out: the host never reads it afterwards");
    }
    // An array written in full before any read needs no copy in, unless a
    // host loop around that write may run zero times and the array is
    // copied out: then the host's values must come back unchanged.
    bool In = true;
    if (F.WrittenInFull && (!F.InLoop || !Out)) {
      In = false;
      Why.insert(Why.begin(), "not copied in: line " + std::to_string(F.Line) +
                                  " writes all of it first");
    } else if (F.WrittenInFull) {
      Why.insert(Why.begin(), "copied in although line " +
                                  std::to_string(F.Line) +
                                  " writes all of it: the host loop around "
                                  "it may run zero times");
    } else if (F.Map == MapKind::From || F.Map == MapKind::Alloc) {
      Why.insert(Why.begin(),
                 std::string("copied in although mapped '") +
                     (F.Map == MapKind::From ? "from" : "alloc") +
                     "': the loop at line " + std::to_string(F.Line) +
                     " is not proven to write every element, and the ones it "
                     "skips must keep their values");
    }
    if (!Why.empty())
      R.Why[V] = llvm::join(Why, "; ");
    R.CopyInOut[V] = {In, Out};
  }
  std::vector<KernelPlan *> Ks;
  for (const Unit &U : R.Units)
    Ks.insert(Ks.end(), U.Kernels.begin(), U.Kernels.end());
  R.AliasPairs = aliasPairs(Ks);
  Regions.push_back(R);
}

/// Arrays the translation cannot prove to be separate objects: a pointer
/// that is not its own malloc's (a parameter, a section of a map clause).
/// Two of them, or one and another array, may overlap; where one of the
/// pair is written, separate device copies would lose writes.
std::vector<std::pair<const VarDecl *, const VarDecl *>>
Offloader::aliasPairs(const std::vector<KernelPlan *> &Ks) {
  std::vector<const MappedArray *> All;
  std::set<const VarDecl *> Seen, Written;
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays) {
      if (A.Written)
        Written.insert(A.Var);
      if (Seen.insert(A.Var).second)
        All.push_back(&A);
    }
  auto Proven = [](const MappedArray &A) {
    return A.Var->getType()->isArrayType() ||
           llvm::StringRef(A.ExtentFrom).starts_with("its malloc");
  };
  std::vector<std::pair<const VarDecl *, const VarDecl *>> Out;
  for (size_t I = 0; I < All.size(); ++I)
    for (size_t J = I + 1; J < All.size(); ++J)
      if ((!Proven(*All[I]) || !Proven(*All[J])) &&
          (Written.count(All[I]->Var) || Written.count(All[J]->Var)))
        Out.push_back({All[I]->Var, All[J]->Var});
  return Out;
}

std::string Offloader::aliasCondition(const Region &R) {
  std::map<const VarDecl *, const MappedArray *> Info = arraysOf(R);
  auto Range = [&](const MappedArray &A) {
    std::string Base = A.Offset == "0" ? A.Name : A.Name + " + " + A.Offset;
    return Base + ", (size_t)" + A.Count + " * sizeof(*" + A.Name + ")";
  };
  std::string Cond;
  for (auto [X, Y] : R.AliasPairs)
    Cond += (Cond.empty() ? "" : " &&\n    ") +
            std::string("ww_omp_disjoint(") + Range(*Info[X]) + ", " +
            Range(*Info[Y]) + ")";
  return Cond;
}

/// The region as the input has it, pragmas included: what runs on the host
/// when its arrays overlap.
std::string Offloader::fallbackText(const Region &R) {
  std::string Text;
  if (auto *D = dyn_cast<OMPExecutableDirective>(R.First)) {
    auto [PB, PE] = pragmaLines(D);
    Text += Contents.slice(PB, PE).str();
  }
  Text += Contents.slice(lineStart(headOffset(R.First)), endOf(R.Last)).str();
  return Text;
}

// --- emission --------------------------------------------------------------

const char *Preamble =
    R"(// Generated by warpwise offload from OpenMP source: each offloaded loop is
// a __global__ kernel below the original's place; the host code around its
// launch moves the data. Compile with nvcc; -DWARPWISE_OFFLOAD_TIMING prints
// each kernel's time (CUDA events) to standard error.
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#ifndef WW_OMP_SUPPORT
#define WW_OMP_SUPPORT
#define WW_OMP_CHECK(call)                                                     \
  do {                                                                         \
    cudaError_t ww_err = (call);                                               \
    if (ww_err != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,           \
              cudaGetErrorString(ww_err));                                     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#ifdef WARPWISE_OFFLOAD_TIMING
#define WW_OMP_TIME_BEGIN                                                      \
  cudaEvent_t ww_t0, ww_t1;                                                    \
  cudaEventCreate(&ww_t0);                                                     \
  cudaEventCreate(&ww_t1);                                                     \
  cudaEventRecord(ww_t0);
#define WW_OMP_TIME_END(name)                                                  \
  {                                                                            \
    float ww_ms = 0;                                                           \
    cudaEventRecord(ww_t1);                                                    \
    cudaEventSynchronize(ww_t1);                                               \
    cudaEventElapsedTime(&ww_ms, ww_t0, ww_t1);                                \
    fprintf(stderr, "kernel_ms %s %.6f\n", name, ww_ms);                       \
    cudaEventDestroy(ww_t0);                                                   \
    cudaEventDestroy(ww_t1);                                                   \
  }
#else
#define WW_OMP_TIME_BEGIN
#define WW_OMP_TIME_END(name)
#endif
/// Whether two host ranges are apart (then separate device copies are
/// exact).
inline bool ww_omp_disjoint(const void *a, size_t a_bytes,
                                   const void *b, size_t b_bytes) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x + a_bytes <= y || y + b_bytes <= x;
}
/// Blocks for \p n items of \p per_block each, at least 1, at most \p cap.
inline unsigned ww_omp_blocks(long long n, unsigned per_block,
                                     unsigned cap) {
  long long b = (n + per_block - 1) / per_block;
  return b < 1 ? 1u : b > (long long)cap ? cap : (unsigned)b;
}
struct ww_omp_plus {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct ww_omp_times {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a * b;
  }
};
struct ww_omp_min {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct ww_omp_max {
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
/// The reduction of \p v over the block (blockDim a multiple of 32): warp
/// shuffles, then the warps' results through shared memory. Valid in thread
/// 0. Every thread of the block must call it.
template <class T, class Op>
__device__ T ww_omp_block_reduce(T v, Op op, T identity) {
  __shared__ T ww_warp_results[32];
  unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  __syncthreads(); // an earlier reduction may still read ww_warp_results
  for (int o = 16; o > 0; o >>= 1)
    v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  if (tid % 32 == 0)
    ww_warp_results[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < threads / 32 ? ww_warp_results[tid] : identity;
    for (int o = 16; o > 0; o >>= 1)
      v = op(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}
#endif
)";

std::string Offloader::kernelText(const KernelPlan &P) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "// warpwise offload: '" << P.PragmaText << "' at line " << P.Line
     << ".\n";
  OS << "__global__ void " << P.Name << "(";
  std::vector<std::string> Params;
  for (const MappedArray &A : P.Arrays)
    Params.push_back(pointerText(A, A.Name));
  for (const VarDecl *V : P.ByValue)
    Params.push_back(typeText(V->getType().getUnqualifiedType(), V->getName()));
  size_t Dims = P.Levels.size();
  for (size_t K = 0; K < Dims; ++K) {
    const LoopLevel &L = P.Levels[K];
    std::string T = typeText(L.Var->getType().getUnqualifiedType());
    std::string C = counterType(L);
    Params.push_back(T + " ww_lb" + std::to_string(K));
    if (!L.UnitStep || L.Decreasing)
      Params.push_back(T + " ww_st" + std::to_string(K));
    Params.push_back(C + " ww_n" + std::to_string(K));
  }
  for (size_t K = 0; K < P.Reductions.size(); ++K)
    Params.push_back(
        typeText(P.Reductions[K].Var->getType().getUnqualifiedType()) +
        " *ww_part" + std::to_string(K));
  for (size_t K = 0; K < Params.size(); ++K)
    OS << (K ? ", " : "") << Params[K];
  OS << ") {\n";
  for (const ReductionVar &R : P.Reductions)
    OS << "  "
       << typeText(R.Var->getType().getUnqualifiedType(), R.Var->getName())
       << " = " << R.Identity << ";\n";
  // Thread dims: the innermost level is x (contiguous), then y, then z.
  const char *Axis[] = {"x", "y", "z"};
  std::string Indent = "  ";
  for (size_t K = 0; K < Dims; ++K) {
    const LoopLevel &L = P.Levels[K];
    const char *A = Axis[Dims - 1 - K];
    std::string C = counterType(L);
    std::string T = "ww_t" + std::to_string(K);
    OS << Indent << "for (" << C << " " << T << " = (" << C << ")blockIdx." << A
       << " * blockDim." << A << " + threadIdx." << A << "; " << T << " < ww_n"
       << K << "; " << T << " += (" << C << ")gridDim." << A << " * blockDim."
       << A << ")" << (K + 1 == Dims ? " {\n" : "\n");
    Indent += "  ";
  }
  for (size_t K = 0; K < Dims; ++K) {
    const LoopLevel &L = P.Levels[K];
    std::string T = typeText(L.Var->getType().getUnqualifiedType());
    OS << Indent << T << " " << L.Var->getName() << " = ww_lb" << K << " + ("
       << T << ")ww_t" << K;
    if (!L.UnitStep || L.Decreasing)
      OS << " * ww_st" << K;
    OS << ";\n";
  }
  for (const VarDecl *V : P.Private)
    OS << Indent << typeText(V->getType(), V->getName()) << ";\n";
  std::string Body = sourceText(Ctx, P.Body->getSourceRange());
  unsigned BE = stmtEnd(P.Body);
  unsigned BB = offset(P.Body->getBeginLoc());
  {
    // The body as the kernel has it: atomic updates made CUDA's.
    auto Sorted = P.BodyEdits;
    llvm::sort(Sorted, [](const auto &X, const auto &Y) {
      return std::get<0>(X) < std::get<0>(Y);
    });
    std::string Out;
    unsigned Pos = BB;
    for (const auto &[EB, EE, ET] : Sorted) {
      if (EB < Pos || EE > BE)
        continue;
      Out += Contents.slice(Pos, EB).str() + ET;
      Pos = EE;
    }
    Out += Contents.slice(Pos, BE).str();
    Body = Out;
  }
  // An inner `#pragma omp simd` means nothing in device code.
  {
    llvm::SmallVector<llvm::StringRef> Lines;
    llvm::StringRef(Body).split(Lines, '\n');
    std::string Out;
    for (size_t K = 0; K < Lines.size(); ++K) {
      llvm::StringRef L = Lines[K];
      llvm::StringRef T = L.ltrim();
      if (T.starts_with("#pragma") &&
          T.drop_front(7).ltrim().starts_with("omp") &&
          T.drop_front(7).ltrim().drop_front(3).ltrim().starts_with("simd"))
        Out += L.take_front(L.size() - T.size()).str() +
               "// (device: runs in order in the thread) " + T.str();
      else
        Out += L.str();
      if (K + 1 < Lines.size())
        Out += "\n";
    }
    Body = Out;
  }
  OS << Indent << Body << "\n";
  Indent.resize(2);
  OS << "  }\n";
  if (!P.Reductions.empty()) {
    OS << "  unsigned ww_block = blockIdx.x + gridDim.x * (blockIdx.y + "
          "gridDim.y * blockIdx.z);\n";
    OS << "  bool ww_first = threadIdx.x == 0 && threadIdx.y == 0 && "
          "threadIdx.z == 0;\n";
    for (size_t K = 0; K < P.Reductions.size(); ++K) {
      const ReductionVar &R = P.Reductions[K];
      std::string N = R.Var->getNameAsString();
      OS << "  " << N << " = ww_omp_block_reduce(" << N << ", " << R.Op
         << "(), " << R.Identity << ");\n";
      OS << "  if (ww_first)\n    ww_part" << K << "[ww_block] = " << N
         << ";\n";
    }
  }
  OS << "}\n";
  return Out;
}

std::string Offloader::launchText(const KernelPlan &P, const Region &R) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "{ // warpwise offload: '" << P.PragmaText << "' -> " << P.Name << "\n";
  if (R.InsideBlock && !R.AliasPairs.empty())
    OS << "// warpwise offload: arrays not proven separate; where they "
          "overlap, the loop runs on the host as written\n"
       << "if (" << aliasCondition(R) << ") {\n";
  if (R.InsideBlock)
    OS << prologue(R);
  size_t Dims = P.Levels.size();
  std::string Cond;
  for (size_t K = 0; K < Dims; ++K) {
    const LoopLevel &L = P.Levels[K];
    std::string T = typeText(L.Var->getType().getUnqualifiedType());
    std::string Ks = std::to_string(K);
    OS << "  const long long ww_lb" << Ks << " = (long long)("
       << sourceText(Ctx, L.Lb->getSourceRange()) << ");\n";
    OS << "  const long long ww_ub" << Ks << " = (long long)("
       << sourceText(Ctx, L.Ub->getSourceRange()) << ");\n";
    OS << "  const long long ww_st" << Ks << " = "
       << (L.Step ? "(long long)(" + sourceText(Ctx, L.Step->getSourceRange()) +
                        ")"
                  : std::string("1"))
       << ";\n";
    OS << "  const long long ww_n" << Ks << " = ";
    switch (L.Cmp) {
    case BO_LT:
      OS << "ww_ub" << Ks << " > ww_lb" << Ks << " ? (ww_ub" << Ks << " - ww_lb"
         << Ks << " + ww_st" << Ks << " - 1) / ww_st" << Ks << " : 0;\n";
      break;
    case BO_LE:
      OS << "ww_ub" << Ks << " >= ww_lb" << Ks << " ? (ww_ub" << Ks
         << " - ww_lb" << Ks << ") / ww_st" << Ks << " + 1 : 0;\n";
      break;
    case BO_GT:
      OS << "ww_lb" << Ks << " > ww_ub" << Ks << " ? (ww_lb" << Ks << " - ww_ub"
         << Ks << " + ww_st" << Ks << " - 1) / ww_st" << Ks << " : 0;\n";
      break;
    default: // BO_GE
      OS << "ww_lb" << Ks << " >= ww_ub" << Ks << " ? (ww_lb" << Ks
         << " - ww_ub" << Ks << ") / ww_st" << Ks << " + 1 : 0;\n";
      break;
    }
    Cond += (Cond.empty() ? "" : " && ") + std::string("ww_n") + Ks + " > 0";
  }
  OS << "  if (" << Cond << ") {\n";
  bool Red = !P.Reductions.empty();
  if (Dims == 1) {
    OS << "    dim3 ww_block(" << Opts.BlockSize << ");\n";
    OS << "    dim3 ww_grid(ww_omp_blocks(ww_n0, " << Opts.BlockSize << ", "
       << (Red ? MaxReductionBlocks : MaxBlocks1D) << "));\n";
  } else if (Dims == 2) {
    unsigned Cap = Red ? 32 : MaxBlocksPerDim;
    OS << "    dim3 ww_block(32, 8);\n";
    OS << "    dim3 ww_grid(ww_omp_blocks(ww_n1, 32, " << Cap
       << "), ww_omp_blocks(ww_n0, 8, " << Cap << "));\n";
  } else {
    unsigned Cap = Red ? 10 : MaxBlocksPerDim;
    OS << "    dim3 ww_block(32, 4, 2);\n";
    OS << "    dim3 ww_grid(ww_omp_blocks(ww_n2, 32, " << Cap
       << "), ww_omp_blocks(ww_n1, 4, " << Cap << "), ww_omp_blocks(ww_n0, 2, "
       << (Red ? 10 : 65535) << "));\n";
  }
  OS << "    WW_OMP_TIME_BEGIN\n";
  OS << "    " << P.Name << "<<<ww_grid, ww_block>>>(";
  std::vector<std::string> Args;
  for (const MappedArray &A : P.Arrays)
    Args.push_back(deviceName(R, A.Var));
  for (const VarDecl *V : P.ByValue)
    Args.push_back(V->getNameAsString());
  for (size_t K = 0; K < Dims; ++K) {
    const LoopLevel &L = P.Levels[K];
    std::string T = typeText(L.Var->getType().getUnqualifiedType());
    std::string C = counterType(L);
    std::string Ks = std::to_string(K);
    Args.push_back("(" + T + ")ww_lb" + Ks);
    if (!L.UnitStep || L.Decreasing)
      Args.push_back("(" + T + ")(" + (L.Decreasing ? "-" : "") + "ww_st" + Ks +
                     ")");
    Args.push_back("(" + C + ")ww_n" + Ks);
  }
  for (size_t K = 0; K < P.Reductions.size(); ++K)
    Args.push_back("ww_d" + std::to_string(R.Index) + "_" + P.Name + "_part" +
                   std::to_string(K));
  for (size_t K = 0; K < Args.size(); ++K)
    OS << (K ? ", " : "") << Args[K];
  OS << ");\n";
  OS << "    WW_OMP_CHECK(cudaGetLastError());\n";
  OS << "    WW_OMP_TIME_END(\"" << P.Name << "\")\n";
  for (size_t K = 0; K < P.Reductions.size(); ++K) {
    const ReductionVar &RV = P.Reductions[K];
    std::string T = typeText(RV.Var->getType().getUnqualifiedType());
    std::string Dev = "ww_d" + std::to_string(R.Index) + "_" + P.Name +
                      "_part" + std::to_string(K);
    std::string Host = "ww_h_part" + std::to_string(K);
    OS << "    " << T << " " << Host << "[" << MaxReductionBlocks << "];\n";
    OS << "    const unsigned ww_blocks" << K
       << " = ww_grid.x * ww_grid.y * ww_grid.z;\n";
    OS << "    WW_OMP_CHECK(cudaMemcpy(" << Host << ", " << Dev << ", ww_blocks"
       << K << " * sizeof(" << T << "), cudaMemcpyDeviceToHost));\n";
    OS << "    for (unsigned ww_b = 0; ww_b < ww_blocks" << K << "; ++ww_b)\n";
    OS << "      " << RV.Var->getName() << " = " << RV.Op << "()("
       << RV.Var->getName() << ", " << Host << "[ww_b]);\n";
  }
  OS << "  }\n";
  if (R.InsideBlock)
    OS << epilogue(R);
  if (R.InsideBlock && !R.AliasPairs.empty())
    OS << "} else {\n" << fallbackText(R) << "\n}\n";
  OS << "}";
  return Out;
}

std::string Offloader::prologue(const Region &R) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  std::map<const VarDecl *, const MappedArray *> Info = arraysOf(R);
  for (const VarDecl *V : R.Arrays) {
    const MappedArray &A = *Info[V];
    std::string D = deviceName(R, V);
    auto [In, Out_] = R.CopyInOut.at(V);
    (void)Out_;
    bool At0 = A.Offset == "0";
    std::string Elems =
        At0 ? "(size_t)" + A.Count
            : "((size_t)" + A.Offset + " + (size_t)" + A.Count + ")";
    OS << pointerText(A, D) << " = 0;\n";
    OS << "WW_OMP_CHECK(cudaMalloc((void **)&" << D << ", " << Elems
       << " * sizeof(*" << D << ")));\n";
    if (In)
      OS << "WW_OMP_CHECK(cudaMemcpy(" << D << (At0 ? "" : " + " + A.Offset)
         << ", " << A.Name << (At0 ? "" : " + " + A.Offset) << ", (size_t)"
         << A.Count << " * sizeof(*" << D << "), cudaMemcpyHostToDevice));\n";
  }
  for (const Unit &U : R.Units)
    for (const KernelPlan *P : U.Kernels)
      for (size_t K = 0; K < P->Reductions.size(); ++K) {
        std::string T =
            typeText(P->Reductions[K].Var->getType().getUnqualifiedType());
        std::string D = "ww_d" + std::to_string(R.Index) + "_" + P->Name +
                        "_part" + std::to_string(K);
        OS << T << " *" << D << " = 0;\n";
        OS << "WW_OMP_CHECK(cudaMalloc((void **)&" << D << ", "
           << MaxReductionBlocks << " * sizeof(" << T << ")));\n";
      }
  return Out;
}

std::string Offloader::epilogue(const Region &R) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  std::map<const VarDecl *, const MappedArray *> Info = arraysOf(R);
  for (const VarDecl *V : R.Arrays) {
    const MappedArray &A = *Info[V];
    std::string D = deviceName(R, V);
    bool At0 = A.Offset == "0";
    if (R.CopyInOut.at(V).second)
      OS << "WW_OMP_CHECK(cudaMemcpy(" << A.Name
         << (At0 ? "" : " + " + A.Offset) << ", " << D
         << (At0 ? "" : " + " + A.Offset) << ", (size_t)" << A.Count
         << " * sizeof(*" << D << "), cudaMemcpyDeviceToHost));\n";
  }
  for (const VarDecl *V : R.Arrays)
    OS << "WW_OMP_CHECK(cudaFree(" << deviceName(R, V) << "));\n";
  for (const Unit &U : R.Units)
    for (const KernelPlan *P : U.Kernels)
      for (size_t K = 0; K < P->Reductions.size(); ++K)
        OS << "WW_OMP_CHECK(cudaFree(ww_d" << R.Index << "_" << P->Name
           << "_part" << K << "));\n";
  return Out;
}

void Offloader::planFunction(const FunctionDecl *F) {
  CurrentFunction = F;
  Swaps.clear();
  findSwaps(F->getBody());
  FunctionWrites = WrittenVars();
  FunctionWrites.TraverseStmt(F->getBody());
  FunctionKernels.clear();
  size_t FirstRegion = Regions.size();
  // Directives anywhere in the function are planned as the walk meets
  // them; those the walk never makes a unit of are refused ones.
  walk(F->getBody(), false);
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
  for (KernelPlan *P : Ks) {
    Text += kernelText(*P) + "\n";
    DeviceFunctions.insert(P->DeviceFunctions.begin(),
                           P->DeviceFunctions.end());
  }
  // Before the function and any comment directly above it? Before the
  // declaration's first token keeps a leading comment with its function.
  unsigned B = lineStart(offset(F->getBeginLoc()));
  // A template<> or attribute line above belongs to the function too.
  addEdit(B, B, Text);
}

OffloadResult Offloader::run() {
  TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  // Functions of the main file, in order.
  std::vector<const FunctionDecl *> Functions;
  for (Decl *D : TU->decls()) {
    auto *F = dyn_cast<FunctionDecl>(D);
    if (auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      F = FT->getTemplatedDecl();
    if (!F || !F->doesThisDeclarationHaveABody())
      continue;
    if (!SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      continue;
    Functions.push_back(F);
  }
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
        CurrentFunction = F;
        KernelPlan &P = plan(D);
        if (P.Refusal.empty())
          P.Refusal = "it is nested in host code that is not offloaded";
      }
  }
  std::set<const OMPExecutableDirective *> InRegion, Groups;
  // The element counts of malloc'd arrays, kept where each malloc runs.
  std::set<const VarDecl *> Captured;
  for (const Region &R : Regions)
    for (const Unit &U : R.Units)
      for (const KernelPlan *P : U.Kernels)
        for (const MappedArray &A : P->Arrays)
          if (A.CaptureAt && Captured.insert(A.Var).second)
            addEdit(A.CaptureAt, A.CaptureAt,
                    "\nconst size_t ww_extent_" + A.Name + " = (size_t)" +
                        A.CaptureText +
                        "; // warpwise offload: the element count of '" +
                        A.Name + "'");
  for (const Region &R : Regions) {
    // Edits: the directives become launches; the region's copies go around.
    for (const Unit &U : R.Units) {
      for (const KernelPlan *P : U.Kernels) {
        InRegion.insert(P->Directive);
        // The pragma's lines go; the statement it applies to becomes the
        // launch. Lines between them (an #endif closing an #ifdef around
        // the pragma) stay as they are.
        auto [PB, PE] = pragmaLines(P->Directive);
        Replaced.push_back({PB, PE});
        addEdit(PB, PE, "");
        const Stmt *Loop =
            P->Directive->getInnermostCapturedStmt()->getCapturedStmt();
        unsigned B = offset(Loop->getBeginLoc());
        unsigned E = endOf(P->Directive);
        Replaced.push_back({B, E});
        addEdit(B, E, launchText(*P, R));
        // A parallel region of several loops: its pragma and its barriers
        // go; its braces stay, around the launches.
        if (P->Enclosing && Groups.insert(P->Enclosing).second) {
          InRegion.insert(P->Enclosing);
          auto [GB, GE] = pragmaLines(P->Enclosing);
          Replaced.push_back({GB, GE});
          addEdit(GB, GE, "");
          if (auto *C = dyn_cast<CompoundStmt>(directiveBody(P->Enclosing)))
            for (const Stmt *X : C->body())
              if (auto *Bar = dyn_cast<OMPBarrierDirective>(X)) {
                auto [BB, BE] = pragmaLines(Bar);
                Replaced.push_back({BB, BE});
                addEdit(BB, BE, "");
              }
        }
      }
    }
    for (const Unit &U : R.Units)
      for (const SwapTriple *T : U.Swaps) {
        std::string DA = deviceName(R, T->A), DB = deviceName(R, T->B);
        unsigned At = stmtEnd(T->S3);
        addEdit(At, At,
                "\n{ // warpwise offload: the device copies swap as well\n"
                "  auto ww_swap = " +
                    DA + ";\n  " + DA + " = " + DB + ";\n  " + DB +
                    " = ww_swap;\n}");
      }
    if (!R.InsideBlock) {
      unsigned B = lineStart(headOffset(R.First));
      unsigned E = endOf(R.Last);
      std::string Head = "// warpwise offload: device data for lines " +
                         lineOf(R.First->getBeginLoc()) + "-" +
                         lastLineOf(R.Last) + "\n";
      std::string Tail = "\n" + epilogue(R);
      if (!R.AliasPairs.empty()) {
        Head += "// warpwise offload: arrays not proven separate; where they "
                "overlap, the loops run on the host as written\n";
        Head += "if (" + aliasCondition(R) + ") {\n";
        Tail += "} else {\n" + fallbackText(R) + "\n}\n";
      }
      Head += prologue(R);
      addEdit(B, B, Head);
      if (!Tail.empty() && Tail.back() == '\n')
        Tail.pop_back();
      addEdit(E, E, Tail);
    }
    // The data plan, said once per region.
    std::string Plan;
    for (const VarDecl *V : R.Arrays) {
      auto [In, Out] = R.CopyInOut.at(V);
      Plan += (Plan.empty() ? "" : "; ") + V->getNameAsString() + ": " +
              (In && Out ? "copied in and out"
               : In      ? "copied in"
               : Out     ? "copied out"
                         : "device only");
      if (R.Why.count(V))
        Plan += " (" + R.Why.at(V) + ")";
    }
    unsigned Kernels = 0;
    for (const Unit &U : R.Units)
      Kernels += U.Kernels.size();
    const KernelPlan &First = *R.Units.front().Kernels.front();
    std::string Msg =
        Kernels > 1
            ? "the " + std::to_string(Kernels) + " offloaded loops of lines " +
                  lineOf(R.First->getBeginLoc()) + "-" + lastLineOf(R.Last) +
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
    decide(First, diag::DataPlan, Severity::Remark, "data", Msg);
  }
  // Verdicts, in source order.
  std::vector<const KernelPlan *> All;
  for (auto &[D, P] : Plans)
    All.push_back(&P);
  llvm::sort(All, [](const KernelPlan *A, const KernelPlan *B) {
    return std::make_pair(A->Line, A->Column) <
           std::make_pair(B->Line, B->Column);
  });
  for (const KernelPlan *P : All) {
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
      const_cast<KernelPlan *>(P)->Refusal =
          "it is nested in host code that is not offloaded";
    if (!P->Refusal.empty()) {
      ++Result.KeptOnHost;
      decide(*P, diag::KeptOnHost, Severity::Warning, "host",
             "'" + P->PragmaText + "' stays on the host: " + P->Refusal +
                 " (build the output with -Xcompiler -fopenmp to keep it "
                 "parallel on the CPU)");
      continue;
    }
    ++Result.Offloaded;
    std::string Shape = P->Levels.size() == 1
                            ? "one thread per iteration"
                            : std::to_string(P->Levels.size()) +
                                  "-D grid, x over '" +
                                  P->Levels.back().Var->getNameAsString() + "'";
    std::string Red;
    for (const ReductionVar &R : P->Reductions)
      Red += (Red.empty() ? "" : ", ") + R.Var->getNameAsString();
    decide(*P, diag::Offloaded, Severity::Remark, "offloaded",
           "offloaded as kernel '" + P->Name + "' (" + Shape +
               (Red.empty() ? ""
                            : "; reduction of " + Red +
                                  ": warp shuffles, a block reduction "
                                  "and one partial per block summed on "
                                  "the host in block order") +
               ")");
    for (const std::string &N : P->Notes)
      decide(*P, diag::OffloadNote, Severity::Note, "note", N);
    if (!P->SwapNote.empty())
      decide(*P, diag::LoopSwap, P->Swapped ? Severity::Remark : Severity::Note,
             "swap", P->SwapNote);
    for (const MappedArray &A : P->Arrays)
      if (A.Map == MapKind::To && A.Written)
        decide(*P, diag::OffloadNote, Severity::Warning, "note",
               "'" + A.Name +
                   "' is written by the loop but mapped 'to': its "
                   "new values stay on the device, as OpenMP specifies (a CPU "
                   "build without offloading would see them)");
  }
  // Device copies of the functions the kernels call.
  for (const FunctionDecl *F : DeviceFunctions)
    for (const FunctionDecl *R : F->redecls()) {
      if (!SM.isInMainFile(SM.getExpansionLoc(R->getLocation())))
        continue;
      unsigned B = offset(R->getBeginLoc());
      addEdit(B, B, "__host__ __device__ ");
    }
  // C leaves the conversion from void * implicit; C++ (nvcc) does not.
  if (IsC) {
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
        if (L.isMacroID() || !O.SM.isInMainFile(L))
          return true;
        unsigned B = O.offset(L);
        for (auto [RB, RE] : O.Replaced)
          if (B >= RB && B < RE)
            return true; // Inside an offloaded loop: the kernel has a copy.
        O.addEdit(B, B, "(" + O.typeText(To) + ")");
        return true;
      }
    } Casts(*this);
    for (const FunctionDecl *F : Functions)
      Casts.TraverseDecl(const_cast<FunctionDecl *>(F));
  }
  if (Result.Offloaded == 0 && Edits.empty()) {
    Result.Output = Contents.str();
    return Result;
  }
  if (Result.Offloaded > 0) {
    std::string Pre = Preamble;
    if (IsC)
      Pre += "#ifndef restrict\n#define restrict __restrict__\n#endif\n";
    // After the file's own includes and feature macros (which must come
    // before any header), before its first declaration.
    unsigned At = 0;
    for (Decl *D : TU->decls()) {
      SourceLocation L = SM.getExpansionLoc(D->getBeginLoc());
      if (D->isImplicit() || !SM.isInMainFile(L))
        continue;
      At = lineStart(offset(L));
      break;
    }
    Edits.push_back({At, At, Pre, 0}); // Before the kernels inserted there.
  }
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
      return Result;
    }
    if (llvm::Error E = Reps.add(
            tooling::Replacement(Opts.Path, Begin, End - Begin, Text))) {
      Result.InternalError = llvm::toString(std::move(E));
      Result.Output = Contents.str();
      return Result;
    }
    I = J;
  }
  std::string Out;
  auto Formatted = formatEdits(Reps, Contents, Opts.Path, Opts.Style);
  if (!Formatted) {
    Result.FormatProblem = llvm::toString(Formatted.takeError());
    Formatted = Reps;
  }
  auto Applied = tooling::applyAllReplacements(Contents, *Formatted);
  if (!Applied) {
    Result.InternalError = llvm::toString(Applied.takeError());
    Result.Output = Contents.str();
    return Result;
  }
  Out = std::move(*Applied);
  Result.Output = std::move(Out);
  return Result;
}

} // namespace

OffloadResult offloadOpenMP(ASTContext &Ctx, llvm::StringRef Contents, bool IsC,
                            const OffloadOptions &Opts) {
  Offloader O(Ctx, Contents, IsC, Opts);
  return O.run();
}

} // namespace warpwise
