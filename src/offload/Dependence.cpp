//===- Dependence.cpp - Whether the iterations of a nest are apart --------===//
#include "Dependence.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/StmtOpenMP.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <set>

using namespace clang;

namespace warpwise {
namespace offload {

namespace {

/// The subscript forms the test recognises in the nest of a plan, and what
/// they need: the nest's loops (for the range of the j in a[i * n + j]) and
/// the variables its body changes.
class SubscriptForms {
public:
  SubscriptForms(const OffloadSource &Src, const KernelPlan &P)
      : Ctx(Src.Ctx), BodyUses(collectUses(P.Body)) {
    for (const LoopLevel &L : P.Levels)
      LevelVars.insert(L.Var);
    // Inner canonical loops, for the range of the j in a[i * n + j].
    std::function<void(const Stmt *)> FindLoops = [&](const Stmt *S) {
      if (!S)
        return;
      if (auto *For = dyn_cast<ForStmt>(S)) {
        LoopLevel L;
        std::string Scratch;
        if (readCanonicalLoop(Src, For, L, Scratch))
          Inner[L.Var] = L;
      }
      for (const Stmt *C : childrenOf(S))
        FindLoops(C);
    };
    FindLoops(P.Body);
    for (const LoopLevel &L : P.Levels)
      Inner[L.Var] = L;
  }

  /// The same value in every iteration of the nest: no loop variable, no
  /// variable the body changes or declares, no call.
  bool invariant(const Expr *E) const {
    UseCollector U = collectUses(E);
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
  }

  /// v, v + c, c + v, v - c with c invariant.
  bool offsets(const Expr *E, const VarDecl *V) const {
    E = strip(E);
    if (referencedVar(E) == V)
      return true;
    auto *B = dyn_cast<BinaryOperator>(E);
    if (!B || (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub))
      return false;
    if (referencedVar(B->getLHS()) == V)
      return invariant(B->getRHS());
    return B->getOpcode() == BO_Add && referencedVar(B->getRHS()) == V &&
           invariant(B->getLHS());
  }

  /// i * E + j (any order of the products and the sum), j in [0, E).
  bool flat(const Expr *E, const VarDecl *I, const VarDecl *J) const {
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
      const LoopLevel &JL = Inner.at(J);
      Expr::EvalResult Lb;
      if (Stride && invariant(Stride) && JL.UnitStep && !JL.Decreasing &&
          JL.Cmp == BO_LT && JL.Lb->EvaluateAsInt(Lb, Ctx) &&
          Lb.Val.getInt() == 0 &&
          normalised(Ctx, Stride->IgnoreParenCasts()) ==
              normalised(Ctx, JL.Ub->IgnoreParenCasts()) &&
          sameVariables(Stride, JL.Ub))
        return true;
    }
    return false;
  }

  /// The canonical loops of the nest (its levels and the loops inside its
  /// body), by variable.
  std::map<const VarDecl *, LoopLevel> Inner;

private:
  ASTContext &Ctx;
  std::set<const VarDecl *> LevelVars;
  UseCollector BodyUses;
};

/// Every mention of one array in a body: its full-subscript accesses (the
/// subscript lists), how many mentions there are (Refs) and how many of
/// them those accesses are (Consumed), and its atomic updates.
struct ArrayAccesses {
  ArrayAccesses(const VarDecl *Var, unsigned Rank) : Var(Var), Rank(Rank) {}
  const VarDecl *Var;
  unsigned Rank;
  std::vector<std::vector<const Expr *>> Accesses;
  unsigned Refs = 0, Consumed = 0, AtomicAccesses = 0;

  /// An atomic update of the array in \p AD: any element, safely; its
  /// subscripts and operand are still walked.
  bool atomic(const OMPAtomicDirective *AD) {
    const auto *E = dyn_cast_or_null<Expr>(directiveBody(AD));
    if (!E)
      return false;
    const Expr *Tgt = nullptr;
    const Expr *X = E->IgnoreParenImpCasts();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(X))
      Tgt = CA->getLHS();
    else if (auto *UO = dyn_cast<UnaryOperator>(X))
      Tgt = UO->getSubExpr();
    else if (auto *BO = dyn_cast<BinaryOperator>(X))
      Tgt = BO->getLHS();
    if (!Tgt || baseVar(Tgt) != Var)
      return false;
    ++AtomicAccesses;
    std::vector<const Expr *> Subs;
    subscripts(Tgt, Subs);
    for (const Expr *Sub : Subs)
      walk(Sub);
    if (auto *CA = dyn_cast<CompoundAssignOperator>(X))
      walk(CA->getRHS());
    else if (auto *BO = dyn_cast<BinaryOperator>(X)) {
      auto *R = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
      if (R)
        walk(R->getRHS());
    }
    return true;
  }

  void walk(const Stmt *S) {
    if (!S)
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == Var)
      ++Refs;
    if (auto *AD = dyn_cast<OMPAtomicDirective>(S))
      if (atomic(AD))
        return;
    // &a[i] lets a callee reach a[i + 1]: not a single element.
    if (auto *U = dyn_cast<UnaryOperator>(S);
        U && U->getOpcode() == UO_AddrOf && baseVar(U->getSubExpr()) == Var) {
      ++Refs;
      return;
    }
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      if (subscripts(AS, Subs) == Var && Subs.size() == Rank) {
        Accesses.push_back(Subs);
        ++Consumed;
        ++Refs;
        for (const Expr *X : Subs)
          walk(X);
        return;
      }
    }
    for (const Stmt *C : childrenOf(S))
      walk(C);
  }
};

/// The test for one array \p A that the nest writes.
bool arrayIndependent(ASTContext &Ctx, const KernelPlan &P,
                      const MappedArray &A, const SubscriptForms &Forms,
                      std::string &Why) {
  unsigned Rank = 1;
  for (QualType E = A.DeviceType->getPointeeType();
       Ctx.getAsConstantArrayType(E);
       E = Ctx.getAsConstantArrayType(E)->getElementType())
    ++Rank;
  // Every mention of A: full subscripts, one key.
  ArrayAccesses Mentions(A.Var, Rank);
  Mentions.walk(P.Body);
  const auto &Accesses = Mentions.Accesses;
  if (Mentions.AtomicAccesses > 0) {
    if (Mentions.Refs != Mentions.Consumed || !Accesses.empty()) {
      Why = "'" + A.Name +
            "' is updated atomically and also accessed otherwise in the "
            "loop (a race between the two)";
      return false;
    }
    return true; // Only atomic updates: any elements, in any order.
  }
  // Subscripts of the whole nest's headers do not touch arrays.
  if (Mentions.Refs != Mentions.Consumed || Accesses.empty()) {
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
      if (Used.count(D) || !Forms.offsets(Subs[D], L.Var))
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
        Why = "'" + A.Name + "' is accessed at " + K0 + " and at " + Key(Acc) +
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
    for (const auto &[J, JL] : Forms.Inner)
      if (J != I &&
          (P.Levels.size() == 1 ||
           (P.Levels.size() == 2 && J == P.Levels[1].Var)) &&
          Forms.flat(Subs[0], I, J))
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
  return true;
}

} // namespace

bool parallelIndependent(const OffloadSource &Src, const KernelPlan &P,
                         std::string &Why) {
  SubscriptForms Forms(Src, P);
  for (const MappedArray &A : P.Arrays)
    if (A.Written && !arrayIndependent(Src.Ctx, P, A, Forms, Why))
      return false;
  return true;
}

bool swapIndependent(const OffloadSource &Src, const KernelPlan &P,
                     const VarDecl *I, const VarDecl *J, const LoopLevel &Inner,
                     std::string &Why) {
  ASTContext &Ctx = Src.Ctx;
  const Stmt *Body = Inner.For->getBody();
  UseCollector U = collectUses(Body);
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
    const UseCollector::Use &X = U.Uses.at(V);
    if ((X.ScalarWrite || X.AddressTaken) && V != I && V != J) {
      Why = "the inner loop writes '" + V->getNameAsString() +
            "', declared outside it";
      return false;
    }
  }
  // Every array written: all its accesses use one subscript list that holds
  // i and j each alone (a[i][j]), or i*E + j with j in [0, E).
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

namespace {

/// Some access of the body strides by rows of \p I and runs along \p J:
/// a[..i..][j] (j alone, or j + c, c + j, last) or a[i * E + j].
bool stridedInI(const ASTContext &Ctx, const Stmt *Body, const VarDecl *I,
                const VarDecl *J) {
  bool Strided = false;
  std::string JN = J->getNameAsString();
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || Strided)
      return;
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      if (subscripts(AS, Subs) && !Subs.empty()) {
        std::string Last = normalised(Ctx, Subs.back());
        UseCollector Idx = collectUses(Subs.back());
        bool IInFront = false;
        for (size_t K = 0; K + 1 < Subs.size(); ++K) {
          UseCollector F = collectUses(Subs[K]);
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
  Walk(Body);
  return Strided;
}

} // namespace

void trySwap(const OffloadSource &Src, KernelPlan &P) {
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
  std::string Scratch;
  if (!readCanonicalLoop(Src, For, L, Scratch))
    return;
  // Strided in i, contiguous in j: some access a[..i..][j] or a[i*E + j].
  if (!stridedInI(Src.Ctx, For->getBody(), I, L.Var))
    return;
  std::string JN = L.Var->getNameAsString(), IN = I->getNameAsString();
  // Rectangular: j's bounds do not use i.
  UseCollector B;
  for (const Expr *E : {L.Lb, L.Ub, L.Step})
    if (E)
      B.TraverseStmt(const_cast<Expr *>(E));
  std::string Why;
  if (B.Uses.count(I))
    Why = "the bounds of '" + JN + "' depend on '" + IN + "'";
  else
    swapIndependent(Src, P, I, L.Var, L, Why);
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

} // namespace offload
} // namespace warpwise
