//===- AliasFacts.cpp - Which pointers may reach the same memory ----------===//
//
// The alias half of MemoryAccess.h: mayAlias (restrict, distinct arrays,
// __constant__, kernel parameters against on-chip arrays) and the facts the
// host code proves (collectAliasFacts: every launch passes buffers from
// distinct allocations). Kept apart from MemoryAccess.cpp, which says what a
// statement reads and writes, because it reads the host code, not kernels.
//
//===----------------------------------------------------------------------===//
#include "MemoryAccess.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace warpwise {

using namespace clang;

void AliasFacts::addDistinct(const VarDecl *A, const VarDecl *B) {
  Pairs.insert({std::min(A, B), std::max(A, B)});
}

bool AliasFacts::distinct(const VarDecl *A, const VarDecl *B) const {
  if (!Pairs.count({std::min(A, B), std::max(A, B)}))
    return false;
  if (auto *F = dyn_cast<FunctionDecl>(A->getDeclContext()))
    Used.insert(F);
  return true;
}

bool mayAlias(const VarDecl *A, const VarDecl *B, const AliasFacts *Facts) {
  if (A == B)
    return true;
  if (A->hasAttr<CUDAConstantAttr>() || B->hasAttr<CUDAConstantAttr>())
    return false;
  // C's restrict rule covers pointers *based on* the restrict one too, so it
  // separates it only from parameters and globals, never from a local
  // pointer that may have been derived from it.
  auto Named = [](const VarDecl *V) {
    return isa<ParmVarDecl>(V) || !V->hasLocalStorage();
  };
  if ((A->getType().isRestrictQualified() && Named(B)) ||
      (B->getType().isRestrictQualified() && Named(A)))
    return false;
  auto Array = [](const VarDecl *V) { return V->getType()->isArrayType(); };
  // Every `extern __shared__` array starts at the same dynamic shared memory.
  auto DynamicShared = [](const VarDecl *V) {
    return V->hasAttr<CUDASharedAttr>() && V->hasExternalStorage();
  };
  if (DynamicShared(A) && DynamicShared(B))
    return true;
  if (Array(A) && Array(B))
    return false;
  auto KernelParam = [](const VarDecl *V) {
    if (!isa<ParmVarDecl>(V))
      return false;
    auto *F = dyn_cast<FunctionDecl>(V->getDeclContext());
    return F && F->hasAttr<CUDAGlobalAttr>();
  };
  auto OnChip = [&](const VarDecl *V) {
    return Array(V) && (V->hasAttr<CUDASharedAttr>() || V->hasLocalStorage());
  };
  if ((KernelParam(A) && OnChip(B)) || (KernelParam(B) && OnChip(A)))
    return false;
  if (Facts && KernelParam(A) && KernelParam(B) && Facts->distinct(A, B))
    return false;
  return true;
}

namespace {

bool isAllocationCall(const CallExpr *C) {
  const FunctionDecl *F = C->getDirectCallee();
  if (!F || !F->getIdentifier())
    return false;
  llvm::StringRef N = F->getName();
  return N == "cudaMalloc" || N == "cudaMallocManaged" ||
         N == "cudaMallocAsync" || N == "cudaMallocPitch" ||
         N == "cudaMallocHost" || N == "cudaHostAlloc" ||
         N == "cudaMallocFromPoolAsync" || N == "cudaMalloc3D";
}

const VarDecl *addressOfVar(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
    if (auto *R = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenCasts()))
      return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

/// Which allocations each host pointer variable may point into: a
/// flow-insensitive points-to analysis over the translation unit. A pointer
/// whose address goes to cudaMalloc & co. points to its own allocation; one
/// assigned or initialised from others (`cur = next`, `p = d_a + k`, a host
/// function's parameter from its call sites' arguments) points where they
/// do; anything else (a load, a call's result, an escaping address, a
/// parameter of a function called from elsewhere) is unknown.
class PointerOrigins : public RecursiveASTVisitor<PointerOrigins> {
public:
  using Allocs = std::set<const VarDecl *>;
  bool shouldVisitTemplateInstantiations() const { return true; }
  std::vector<const CUDAKernelCallExpr *> Launches;

  bool VisitVarDecl(VarDecl *V) {
    if (V->getType()->isPointerType() && V->getInit())
      Sources[V].push_back(V->getInit());
    // `float *&r = d_a;`: d_a changes whenever r does.
    if (V->getType()->isReferenceType() && V->getInit() &&
        !V->getType().getNonReferenceType().isConstQualified())
      if (const VarDecl *W = varOf(V->getInit()))
        Escaped.insert(W);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->getOpcode() == BO_Assign)
      if (const VarDecl *V = varOf(B->getLHS()))
        Sources[V].push_back(B->getRHS());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *R) {
    if (auto *F = dyn_cast<FunctionDecl>(R->getDecl()))
      ++Refs[F];
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (auto *K = dyn_cast<CUDAKernelCallExpr>(C)) {
      if (!K->isTypeDependent() && !K->isValueDependent())
        Launches.push_back(K);
      return true;
    }
    bool Alloc = isAllocationCall(C);
    // Occupancy and attribute queries name a kernel without launching it.
    if (const FunctionDecl *Q = C->getDirectCallee();
        Q && Q->getIdentifier() &&
        (Q->getName().starts_with("cudaOccupancy") ||
         Q->getName().starts_with("cudaFuncGet") ||
         Q->getName().starts_with("cudaFuncSet")))
      for (const Expr *Arg : C->arguments())
        if (auto *R = dyn_cast<DeclRefExpr>(Arg->IgnoreParenCasts()))
          if (auto *K = dyn_cast<FunctionDecl>(R->getDecl()))
            ++Queries[K];
    for (unsigned I = 0; I < C->getNumArgs(); ++I)
      if (const VarDecl *V = addressOfVar(C->getArg(I))) {
        if (Alloc && I == 0) {
          Allocated.insert(V);
          ++AllocationArgs[V];
        } else {
          Escaped.insert(V);
        }
      }
    const FunctionDecl *F = C->getDirectCallee();
    // A pointer bound to a non-const reference parameter may be reassigned
    // by the callee; std::swap exchanges two pointers' targets.
    bool Swap = F && F->getIdentifier() && F->getName() == "swap" &&
                F->isInStdNamespace() && C->getNumArgs() == 2;
    for (unsigned I = 0; F && I < C->getNumArgs() && I < F->getNumParams();
         ++I) {
      QualType T = F->getParamDecl(I)->getType();
      if (const VarDecl *V = varOf(C->getArg(I)))
        if (T->isReferenceType() &&
            !T.getNonReferenceType().isConstQualified()) {
          if (Swap)
            Sources[V].push_back(C->getArg(1 - I));
          else
            Escaped.insert(V);
        }
    }
    if (F && !Alloc && !isa<CXXMemberCallExpr>(C) &&
        !isa<CXXOperatorCallExpr>(C)) {
      ++Calls[F];
      for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
        Sources[F->getParamDecl(I)].push_back(C->getArg(I));
    }
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    // `&p` anywhere but as an allocation's first argument: anything may
    // store to p through it.
    if (U->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = addressOfVar(U))
        ++AddressTaken[V];
    return true;
  }

  /// Solves the points-to sets once everything was visited.
  void solve() {
    for (auto &[V, N] : AddressTaken)
      if (N > AllocationArgs[V])
        Escaped.insert(V);
    for (auto &[V, Srcs] : Sources)
      (void)Srcs, Points[V];
    for (const VarDecl *V : Allocated)
      Points[V].insert(V);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (auto &[V, Srcs] : Sources) {
        if (Unknown.count(V))
          continue;
        for (const Expr *E : Srcs) {
          Allocs Into;
          if (!eval(E, Into)) {
            Unknown.insert(V);
            Changed = true;
            break;
          }
          size_t Before = Points[V].size();
          Points[V].insert(Into.begin(), Into.end());
          Changed |= Points[V].size() != Before;
        }
      }
    }
  }

  /// The allocations \p E may point into; false when unknown.
  bool eval(const Expr *E, Allocs &Into) const {
    E = E->IgnoreParenCasts();
    if (E->isNullPointerConstant(const_cast<ASTContext &>(Ctx()),
                                 Expr::NPC_ValueDependentIsNotNull))
      return true;
    if (auto *B = dyn_cast<BinaryOperator>(E);
        B && B->isAdditiveOp() && B->getType()->isPointerType())
      return eval(B->getLHS()->getType()->isPointerType() ? B->getLHS()
                                                          : B->getRHS(),
                  Into);
    if (auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      if (auto *A =
              dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParenCasts()))
        return eval(A->getBase(), Into);
    if (auto *CO = dyn_cast<ConditionalOperator>(E))
      return eval(CO->getTrueExpr(), Into) && eval(CO->getFalseExpr(), Into);
    const VarDecl *V = varOf(E);
    if (!V || Escaped.count(V) || Unknown.count(V))
      return false;
    if (auto *P = dyn_cast<ParmVarDecl>(V)) {
      // Only a parameter of a function this file calls directly, and never
      // otherwise names (no function pointers), has known arguments.
      // Another translation unit may call an externally visible function.
      auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
      auto C = F ? Calls.find(F) : Calls.end();
      auto R = F ? Refs.find(F) : Refs.end();
      if (C == Calls.end() || (R != Refs.end() && R->second > C->second) ||
          F->isExternallyVisible())
        return false;
    }
    auto It = Points.find(V);
    if (It == Points.end())
      return false; // never given a value this file can see
    Into.insert(It->second.begin(), It->second.end());
    return true;
  }

  /// How often \p F is named (calls included), occupancy and attribute
  /// queries left out.
  unsigned references(const FunctionDecl *F) const {
    auto It = Refs.find(F);
    auto Q = Queries.find(F);
    return (It == Refs.end() ? 0 : It->second) -
           (Q == Queries.end() ? 0 : Q->second);
  }

  const ASTContext &Ctx() const { return *Context; }
  const ASTContext *Context = nullptr;

private:
  static const VarDecl *varOf(const Expr *E) {
    auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
    auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    return V && V->getType()->isPointerType() ? V : nullptr;
  }
  std::map<const VarDecl *, std::vector<const Expr *>> Sources;
  std::map<const VarDecl *, Allocs> Points;
  std::set<const VarDecl *> Allocated, Escaped, Unknown;
  std::map<const VarDecl *, unsigned> AddressTaken, AllocationArgs;
  std::map<const FunctionDecl *, unsigned> Calls, Refs, Queries;
};

/// Kernel parameters the body may re-aim: assigned with `=`, address taken,
/// or bound to a non-const reference (a reference variable, or a callee's
/// reference parameter).
std::set<const VarDecl *> reassignedParams(const FunctionDecl *K) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::set<const VarDecl *> Found;
    static const ParmVarDecl *param(const Expr *E) {
      auto *R = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
      return R ? dyn_cast<ParmVarDecl>(R->getDecl()) : nullptr;
    }
    static bool mutableRef(QualType T) {
      return T->isReferenceType() &&
             !T.getNonReferenceType().isConstQualified();
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (B->getOpcode() == BO_Assign)
        if (const ParmVarDecl *P = param(B->getLHS()))
          Found.insert(P);
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->getOpcode() == UO_AddrOf)
        if (const ParmVarDecl *P = param(U->getSubExpr()))
          Found.insert(P);
      return true;
    }
    bool VisitVarDecl(VarDecl *V) {
      if (mutableRef(V->getType()) && V->getInit())
        if (const ParmVarDecl *P = param(V->getInit()))
          Found.insert(P);
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      for (const FunctionDecl *F : calleeCandidates(C))
        for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
          if (mutableRef(F->getParamDecl(I)->getType()))
            if (const ParmVarDecl *P = param(C->getArg(I)))
              Found.insert(P);
      return true;
    }
  } F;
  if (K->getBody())
    F.TraverseStmt(K->getBody());
  return F.Found;
}

} // namespace

AliasFacts collectAliasFacts(ASTContext &Ctx) {
  AliasFacts Facts;
  PointerOrigins O;
  O.Context = &Ctx;
  O.TraverseDecl(Ctx.getTranslationUnitDecl());
  O.solve();
  const SourceManager &SM = Ctx.getSourceManager();
  // Per kernel pattern: for each pair of parameter positions, whether every
  // launch so far passed distinct allocations.
  struct PerKernel {
    std::map<std::pair<unsigned, unsigned>, bool> Distinct;
    std::vector<unsigned> Lines;
    bool Opaque = false; ///< Launched some other way too, or a pack.
  };
  std::map<const FunctionDecl *, PerKernel> Kernels;
  // A kernel also named elsewhere (cudaLaunchKernel, a function pointer, a
  // launch through a variable) may be launched with anything.
  std::map<const FunctionDecl *, unsigned> DirectLaunches;
  for (const CUDAKernelCallExpr *L : O.Launches)
    if (const FunctionDecl *K = L->getDirectCallee())
      ++DirectLaunches[K];
  std::set<const FunctionDecl *> NamedElsewhere;
  for (auto &[K, N] : DirectLaunches)
    if (O.references(K) > N)
      NamedElsewhere.insert(K);
  for (const CUDAKernelCallExpr *L : O.Launches) {
    const FunctionDecl *K = L->getDirectCallee();
    if (!K)
      continue;
    const FunctionDecl *Pattern = K->getTemplateInstantiationPattern();
    if (!Pattern)
      Pattern = K;
    Pattern = Pattern->getDefinition() ? Pattern->getDefinition() : Pattern;
    PerKernel &PK = Kernels[Pattern];
    PK.Lines.push_back(SM.getExpansionLineNumber(L->getBeginLoc()));
    if (NamedElsewhere.count(K) ||
        llvm::any_of(Pattern->parameters(),
                     [](const ParmVarDecl *P) { return P->isParameterPack(); }))
      PK.Opaque = true;
    unsigned N = std::min<unsigned>(L->getNumArgs(), K->getNumParams());
    std::vector<PointerOrigins::Allocs> Alloc(N);
    std::vector<bool> Known(N, false);
    for (unsigned I = 0; I < N; ++I)
      if (K->getParamDecl(I)->getType()->isPointerType())
        Known[I] = O.eval(L->getArg(I), Alloc[I]) && !Alloc[I].empty();
    for (unsigned I = 0; I < N; ++I)
      for (unsigned J = I + 1; J < N; ++J) {
        if (!K->getParamDecl(I)->getType()->isPointerType() ||
            !K->getParamDecl(J)->getType()->isPointerType())
          continue;
        bool D = Known[I] && Known[J] &&
                 llvm::none_of(Alloc[I], [&](const VarDecl *V) {
                   return Alloc[J].count(V) > 0;
                 });
        auto It = PK.Distinct.find({I, J});
        if (It == PK.Distinct.end())
          PK.Distinct[{I, J}] = D;
        else
          It->second = It->second && D;
      }
  }
  for (auto &[K, PK] : Kernels) {
    if (K->getNumParams() == 0 || PK.Opaque)
      continue;
    std::set<const VarDecl *> Reassigned = reassignedParams(K);
    bool Any = false;
    for (auto &[IJ, D] : PK.Distinct) {
      if (!D || IJ.second >= K->getNumParams())
        continue;
      const ParmVarDecl *A = K->getParamDecl(IJ.first);
      const ParmVarDecl *B = K->getParamDecl(IJ.second);
      if (Reassigned.count(A) || Reassigned.count(B))
        continue;
      Facts.addDistinct(A, B);
      Any = true;
    }
    if (!Any)
      continue;
    std::string Lines;
    std::sort(PK.Lines.begin(), PK.Lines.end());
    PK.Lines.erase(std::unique(PK.Lines.begin(), PK.Lines.end()),
                   PK.Lines.end());
    for (unsigned L : PK.Lines)
      Lines += (Lines.empty() ? "" : ", ") + std::to_string(L);
    Facts.Why[K] = "every launch in this file (line" +
                   std::string(PK.Lines.size() > 1 ? "s " : " ") + Lines +
                   ") passes its pointer parameters distinct allocations";
  }
  return Facts;
}

} // namespace warpwise
