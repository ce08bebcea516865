//===- DataRegions.cpp - Where device data lives and what crosses ---------===//
#include "DataRegions.h"
#include "UnreadAfterCall.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/StmtOpenMP.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace clang;

namespace warpwise {
namespace offload {

std::map<const VarDecl *, const MappedArray *> arraysOf(const Region &R) {
  std::map<const VarDecl *, const MappedArray *> Info;
  for (const Unit &U : R.Units)
    for (const KernelPlan *P : U.Kernels)
      for (const MappedArray &A : P->Arrays)
        Info.try_emplace(A.Var, &A);
  return Info;
}

std::vector<KernelPlan *> kernelsOf(const Region &R) {
  std::vector<KernelPlan *> Ks;
  for (const Unit &U : R.Units)
    Ks.insert(Ks.end(), U.Kernels.begin(), U.Kernels.end());
  return Ks;
}

const VarDecl *extentConflict(const std::vector<KernelPlan *> &Ks) {
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

std::set<const VarDecl *> mappedVars(const Unit &U) {
  std::set<const VarDecl *> Out;
  for (const KernelPlan *P : U.Kernels)
    for (const MappedArray &A : P->Arrays)
      Out.insert(A.Var);
  return Out;
}

std::set<const VarDecl *> extentVars(const std::vector<KernelPlan *> &Ks) {
  std::set<const VarDecl *> Out;
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays)
      for (const Expr *E : A.ExtentExprs) {
        UseCollector U = collectUses(E);
        Out.insert(U.Order.begin(), U.Order.end());
      }
  return Out;
}

std::vector<ArrayPair> aliasPairs(const std::vector<KernelPlan *> &Ks) {
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
  std::vector<ArrayPair> Out;
  for (size_t I = 0; I < All.size(); ++I)
    for (size_t J = I + 1; J < All.size(); ++J)
      if ((!Proven(*All[I]) || !Proven(*All[J])) &&
          (Written.count(All[I]->Var) || Written.count(All[J]->Var)))
        Out.push_back({All[I]->Var, All[J]->Var});
  return Out;
}

std::optional<Unit> RegionPlanner::unitOf(const Stmt *S) {
  if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
    KernelPlan &P = Plan(D);
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
      KernelPlan &P = Plan(D);
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
    if (const SwapTriple *T = Fn.swapOf(X);
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
      !declaredBefore(U.Kernels, Src.lineStart(Src.offset(S->getBeginLoc()))))
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

bool RegionPlanner::declaredBefore(const std::vector<KernelPlan *> &Ks,
                                   unsigned Head) {
  for (const KernelPlan *P : Ks)
    for (const MappedArray &A : P->Arrays) {
      if (Src.offset(A.Var->getLocation()) >= Head ||
          (A.CaptureAt && A.CaptureAt > Head))
        return false;
      for (const Expr *E : A.ExtentExprs) {
        UseCollector U = collectUses(E);
        for (const VarDecl *V : U.Order)
          if (Src.offset(V->getLocation()) >= Head)
            return false;
      }
    }
  return true;
}

bool RegionPlanner::inert(const Stmt *S,
                          const std::set<const VarDecl *> &Mapped) {
  // Touches none of the device data, cannot reach it through a call, and
  // cannot leave the region early.
  bool OK = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *X) {
    if (!X || !OK)
      return;
    // A throw leaves the region too, and new, delete and a constructor are
    // calls (delete of another name for a mapped array frees it before the
    // region copies it back).
    if (isa<CallExpr>(X) || isa<ReturnStmt>(X) || isa<GotoStmt>(X) ||
        isa<BreakStmt>(X) || isa<ContinueStmt>(X) ||
        isa<OMPExecutableDirective>(X) || isa<GCCAsmStmt>(X) ||
        isa<LabelStmt>(X) || isa<IndirectGotoStmt>(X) || isa<CXXThrowExpr>(X) ||
        isa<CXXNewExpr>(X) || isa<CXXDeleteExpr>(X) || isa<CXXTryStmt>(X)) {
      OK = false;
      return;
    }
    if (auto *C = dyn_cast<CXXConstructExpr>(X);
        C && C->getConstructor() && !C->getConstructor()->isTrivial()) {
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

void RegionPlanner::walk(const Stmt *S, bool InHostLoop) {
  if (!S)
    return;
  if (auto *C = dyn_cast<CompoundStmt>(S)) {
    walkCompound(C, InHostLoop);
    return;
  }
  if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
    // Not directly in a block (the body of an if without braces): a region
    // of its own, inside its launch block.
    KernelPlan &P = Plan(D);
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

namespace {

/// A run of a block's statements: their indices, with the unit each is
/// (none for a host statement between units).
using Span = std::vector<std::pair<size_t, std::optional<Unit>>>;

std::vector<KernelPlan *> kernelsOf(const Span &Sp) {
  std::vector<KernelPlan *> Ks;
  for (auto &[K, U] : Sp)
    if (U)
      Ks.insert(Ks.end(), U->Kernels.begin(), U->Kernels.end());
  return Ks;
}

/// Cuts \p Sp before its element \p K, and drops the host statements that
/// then trail it.
void cutAt(Span &Sp, size_t K) {
  Sp.resize(K);
  while (!Sp.back().second)
    Sp.pop_back();
}

} // namespace

void RegionPlanner::walkCompound(const CompoundStmt *C, bool InHostLoop) {
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
    Span Sp = {{I, First}};
    size_t J = I + 1;
    for (; J < Kids.size(); ++J) {
      std::optional<Unit> U = unitOf(Kids[J]);
      if (U) {
        std::vector<KernelPlan *> Ks = kernelsOf(Sp);
        Ks.insert(Ks.end(), U->Kernels.begin(), U->Kernels.end());
        if (extentConflict(Ks) ||
            !declaredBefore(U->Kernels, Src.lineStart(Src.headOffset(Kids[I]))))
          break; // Another section of an array, or data declared later.
        Sp.push_back({J, U});
        continue;
      }
      if (isa<OMPExecutableDirective>(Kids[J]))
        break;
      Sp.push_back({J, std::nullopt});
    }
    // Trailing non-units are not part of the region.
    while (!Sp.back().second)
      Sp.pop_back();
    for (bool Changed = true; Changed;) {
      Changed = false;
      std::set<const VarDecl *> Mapped;
      for (auto &[K, U] : Sp)
        if (U) {
          auto M = mappedVars(*U);
          Mapped.insert(M.begin(), M.end());
        }
      std::set<const VarDecl *> Extents = extentVars(kernelsOf(Sp));
      for (size_t K = 0; K < Sp.size(); ++K)
        if (!Sp[K].second && (!inert(Kids[Sp[K].first], Mapped) ||
                              writesAny(Kids[Sp[K].first], Extents))) {
          cutAt(Sp, K);
          Changed = true;
          break;
        }
    }
    // A region whose arrays may overlap is wrapped in an if/else (device
    // path or the original code): a declaration between its loops would go
    // out of scope, so the region ends before one.
    if (!aliasPairs(kernelsOf(Sp)).empty())
      for (size_t K = 0; K < Sp.size(); ++K)
        if (!Sp[K].second && isa<DeclStmt>(Kids[Sp[K].first])) {
          cutAt(Sp, K);
          break;
        }
    Region R;
    for (auto &[K, U] : Sp)
      if (U)
        R.Units.push_back(*U);
    R.First = Kids[Sp.front().first];
    R.Last = Kids[Sp.back().first];
    finishRegion(R, InHostLoop);
    I = Sp.back().first + 1;
  }
}

std::string RegionPlanner::unreadAfter(const VarDecl *V, const Region &R) {
  if (!usedOnlyIn(V, R))
    return "";
  auto *P = dyn_cast<ParmVarDecl>(V);
  if (!P)
    return "the host never reads it afterwards";
  // The function does not read it after the region; its callers must not
  // either.
  if (P->getDeclContext() != Fn.F || !P->getType()->isPointerType())
    return "";
  std::string From, Why;
  if (!unreadAfterCalls(Src, Callers(), Fn.F, P, From, Why))
    return "";
  return "'" + Fn.F->getNameAsString() + "' uses it only here; " + From;
}

bool RegionPlanner::usedOnlyIn(const VarDecl *V, const Region &R) {
  // Every reference to V in the function is inside the region, V's own
  // malloc, or free(V): the host never sees its contents. A parameter may
  // not be assigned: it would no longer be the caller's array.
  bool Param = isa<ParmVarDecl>(V) && V->getDeclContext() == Fn.F;
  // Automatic storage: not a static local, nor a block-scope extern whose
  // object the rest of the program sees.
  if (!Param && (!V->isLocalVarDecl() || !V->hasLocalStorage()))
    return false;
  unsigned B = Src.offset(R.First->getBeginLoc()), E = Src.endOf(R.Last);
  bool OK = true;
  std::function<void(const Stmt *, const Stmt *)> Walk = [&](const Stmt *S,
                                                             const Stmt *Up) {
    if (!S || !OK)
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V) {
      unsigned O = Src.offset(DR->getLocation());
      if (O >= B && O < E)
        return;
      bool Allowed = false;
      if (auto *Call = dyn_cast_or_null<CallExpr>(Up))
        if (auto *F = Call->getDirectCallee(); F && F->getName() == "free")
          Allowed = true;
      if (auto *Bin = dyn_cast_or_null<BinaryOperator>(Up);
          Bin && Bin->getOpcode() == BO_Assign &&
          referencedVar(Bin->getLHS()) == V && !Param)
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
  Walk(R.First->getBeginLoc().isValid() ? Fn.F->getBody() : nullptr, nullptr);
  return OK;
}

namespace {

/// How the first kernel of a region to touch an array uses it: that one
/// decides whether it must be copied in.
struct FirstUse {
  bool WrittenInFull = false, InLoop = false;
  MapKind Map = MapKind::None;
  unsigned Line = 0;
  std::string Extent;
  const MappedArray *Box = nullptr; ///< Written over a box (WrittenBox).
  unsigned Kernels = 0;             ///< The region's kernels that map it.
};

/// Whether the region's kernels leave new values in \p A that the host
/// needs: written, or mapped from/tofrom; not mapped to/alloc.
bool copiedOutBy(const MappedArray &A) {
  bool Out = A.Written;
  if (A.Map == MapKind::To || A.Map == MapKind::Alloc)
    Out = false;
  if (A.Map == MapKind::From || A.Map == MapKind::ToFrom)
    Out = true;
  return Out;
}

/// The box \p A's kernel writes, for a message: "[1, n - 1) x [1, m - 1)".
std::string boxText(const MappedArray &A) {
  std::string Out;
  for (const BoxDim &D : A.WrittenBox)
    Out += (Out.empty() ? "" : " x ") + ("[" + D.Lb + ", " + D.Ub) +
           (D.Inclusive ? "]" : ")");
  return "'" + A.Name + "' over " + Out;
}

/// The loops that read \p A's box back, for a message: " but that box
/// (the loop at line 87 reads it back over [0, nr); where that is not
/// inside the box, it is copied in before the launch)".
std::string readsBackText(const MappedArray &A) {
  std::string Loops, Ranges;
  for (const BoxRead &R : A.BoxReads) {
    Loops += (Loops.empty() ? "" : ", ") + std::to_string(R.Line);
    Ranges += (Ranges.empty() ? "" : ", ") + ("[" + R.Lb + ", " + R.Ub) +
              (R.Inclusive ? "]" : ")");
  }
  if (Loops.empty())
    return "";
  bool One = A.BoxReads.size() == 1;
  return " but that box (the loop" +
         std::string(One ? " at line " : "s at lines ") + Loops +
         (One ? " reads" : " read") + " it back over " + Ranges +
         "; where that is not inside the box, it is copied in before the "
         "launch)";
}

/// Why an array copied out is (or is not) copied in, and whether it is.
bool copyIn(const FirstUse &F, bool Out, std::vector<std::string> &Why) {
  // An array written in full before any read needs no copy in, unless a
  // host loop around that write may run zero times and the array is
  // copied out: then the host's values must come back unchanged.
  if (F.WrittenInFull && (!F.InLoop || !Out)) {
    Why.insert(Why.begin(), "not copied in: line " + std::to_string(F.Line) +
                                " writes all of it first");
    return false;
  }
  if (F.WrittenInFull) {
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
  return true;
}

} // namespace

void RegionPlanner::finishRegion(Region &R, bool InHostLoop) {
  R.Index = Regions.size() + 1;
  // Arrays in first-use order; the first kernel that touches an array
  // decides whether it must be copied in.
  std::map<const VarDecl *, FirstUse> First;
  std::map<const VarDecl *, bool> CopyOut;
  for (const Unit &U : R.Units)
    for (KernelPlan *P : U.Kernels)
      for (const MappedArray &A : P->Arrays) {
        auto [It, New] = First.try_emplace(A.Var);
        if (New) {
          R.Arrays.push_back(A.Var);
          It->second = {A.WrittenInFull,
                        U.InLoop,
                        A.Map,
                        P->Line,
                        A.Offset + "+" + A.Count,
                        A.WrittenBox.empty() ? nullptr : &A};
        } else if (It->second.Extent != A.Offset + "+" + A.Count &&
                   A.ExtentFrom == "its map clause") {
          // Different sections of one array: the first one's extent is used;
          // a later, different one could reach past it.
          P->Notes.push_back("'" + A.Name +
                             "' is mapped with a different "
                             "section than at its first use in this region; "
                             "the first section's extent is used");
        }
        ++It->second.Kernels;
        CopyOut[A.Var] = CopyOut[A.Var] || copiedOutBy(A);
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
    std::vector<std::string> Why;
    if (auto It = Partner.find(V); It != Partner.end()) {
      bool Out = CopyOut[V] || CopyOut[It->second];
      R.Why[V] = "swapped with " + It->second->getNameAsString() +
                 " by the host loop; the device copies swap with them";
      R.CopyInOut[V] = {true, Out};
      continue;
    }
    bool Out = CopyOut[V];
    if (Out && !InHostLoop) {
      if (std::string Unread = unreadAfter(V, R); !Unread.empty()) {
        Out = false;
        Why.push_back("not copied out: " + Unread);
      }
    }
    bool In = true;
    if (const FirstUse &F = First[V]; F.Box && F.Kernels == 1 && !F.InLoop) {
      // The one kernel writes a box and reads only what it wrote there:
      // the rest keeps the host's values where nothing copies it back.
      In = false;
      R.Boxes[V] = F.Box;
      Why.insert(Why.begin(),
                 "not copied in: line " + std::to_string(F.Line) + " writes " +
                     boxText(*F.Box) + " and touches nothing else" +
                     readsBackText(*F.Box) +
                     (Out ? "; only that part is copied out" : ""));
    } else {
      In = copyIn(F, Out, Why);
    }
    if (!Why.empty())
      R.Why[V] = llvm::join(Why, "; ");
    R.CopyInOut[V] = {In, Out};
  }
  R.AliasPairs = aliasPairs(kernelsOf(R));
  Regions.push_back(R);
}

} // namespace offload
} // namespace warpwise
