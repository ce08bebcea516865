//===- Dependence.cpp - Whether the iterations of a nest are apart --------===//
#include "Dependence.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/StmtOpenMP.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <map>
#include <optional>
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
    findIndexLocals(P);
  }

  /// \p E, or the expression a local index it names holds at every use
  /// (srad's `k = i + Nr*j;` before `dN[k]`): see findIndexLocals.
  const Expr *resolved(const Expr *E) const {
    auto It = IndexLocals.find(referencedVar(strip(E)));
    return It == IndexLocals.end() ? E : It->second;
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
      if (Stride && invariant(Stride) && withinStride(Inner.at(J), Stride))
        return true;
    }
    return false;
  }

  /// \p JL runs up inside [0, Stride): from a constant >= 0 to below
  /// Stride, or to below or at `Stride - c` (a stencil's interior, `j < n -
  /// 1`), Stride being the same expression of the same variables.
  bool withinStride(const LoopLevel &JL, const Expr *Stride) const {
    Expr::EvalResult Lb;
    if (!JL.UnitStep || JL.Decreasing || !JL.Lb->EvaluateAsInt(Lb, Ctx) ||
        Lb.Val.getInt().isNegative() || (JL.Cmp != BO_LT && JL.Cmp != BO_LE))
      return false;
    // Equal as written, explicit casts included: `(unsigned char)n` is
    // not the row length `n`.
    auto Same = [&](const Expr *X) {
      return normalised(Ctx, Stride->IgnoreParenImpCasts()) ==
                 normalised(Ctx, X->IgnoreParenImpCasts()) &&
             sameVariables(Stride, X);
    };
    const Expr *Ub = JL.Ub->IgnoreParenImpCasts();
    if (JL.Cmp == BO_LT && Same(Ub))
      return true;
    auto *Minus = dyn_cast<BinaryOperator>(Ub);
    Expr::EvalResult C;
    if (!Minus || Minus->getOpcode() != BO_Sub ||
        !Minus->getRHS()->EvaluateAsInt(C, Ctx) || !Same(Minus->getLHS()))
      return false;
    // j < Stride - c needs c >= 0; j <= Stride - c needs c >= 1.
    return C.Val.getInt().getSExtValue() >= (JL.Cmp == BO_LT ? 0 : 1);
  }

  /// The canonical loops of the nest (its levels and the loops inside its
  /// body), by variable.
  std::map<const VarDecl *, LoopLevel> Inner;

private:
  /// Where each variable of \p Body is written (assignments, compound
  /// assignments, increments, address taken, declarations with a value).
  static std::map<const VarDecl *, std::vector<const Stmt *>>
  writesIn(const Stmt *Body) {
    std::map<const VarDecl *, std::vector<const Stmt *>> W;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
        if (const VarDecl *V = referencedVar(B->getLHS()))
          W[V].push_back(S);
      if (auto *U = dyn_cast<UnaryOperator>(S);
          U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf))
        if (const VarDecl *V = referencedVar(U->getSubExpr()))
          W[V].push_back(S);
      if (auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (auto *V = dyn_cast<VarDecl>(D); V && V->hasInit())
            W[V].push_back(S);
      for (const Stmt *C : childrenOf(S))
        Walk(C);
    };
    Walk(Body);
    return W;
  }

  static bool readsMemory(const Stmt *S) {
    if (!S)
      return false;
    if (isa<ArraySubscriptExpr, MemberExpr>(S))
      return true;
    if (auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_Deref)
      return true;
    return llvm::any_of(childrenOf(S),
                        [](const Stmt *C) { return readsMemory(C); });
  }

  static unsigned mentions(const Stmt *S, const VarDecl *V) {
    if (!S)
      return 0;
    unsigned N = 0;
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V)
      ++N;
    for (const Stmt *C : childrenOf(S))
      N += mentions(C, V);
    return N;
  }

  /// Integer locals of the body (private, or declared in it) set once, by
  /// a statement of a block that runs unconditionally there (`k = E;` or
  /// `int k = E;`), and read only after it in that block, where E holds
  /// loop variables of the loops around the block (written by their
  /// headers only), the nest's levels and invariants: at every use, k is
  /// E, and a subscript [k] is read as [E].
  void findIndexLocals(const KernelPlan &P) {
    auto Writes = writesIn(P.Body);
    std::function<void(const Stmt *, std::vector<const ForStmt *> &)> Walk =
        [&](const Stmt *S, std::vector<const ForStmt *> &Around) {
          if (!S)
            return;
          if (auto *CS = dyn_cast<CompoundStmt>(S)) {
            std::vector<const Stmt *> Items(CS->body_begin(), CS->body_end());
            for (size_t K = 0; K < Items.size(); ++K)
              tryIndexLocal(P, Items, K, Around, Writes);
          }
          auto *For = dyn_cast<ForStmt>(S);
          if (For)
            Around.push_back(For);
          for (const Stmt *C : childrenOf(S))
            Walk(C, Around);
          if (For)
            Around.pop_back();
        };
    std::vector<const ForStmt *> Around;
    Walk(P.Body, Around);
  }

  void tryIndexLocal(
      const KernelPlan &P, const std::vector<const Stmt *> &Items, size_t K,
      const std::vector<const ForStmt *> &Around,
      const std::map<const VarDecl *, std::vector<const Stmt *>> &Writes) {
    auto WritesOf = [&](const VarDecl *X) {
      auto It = Writes.find(X);
      return It == Writes.end() ? std::vector<const Stmt *>() : It->second;
    };
    const VarDecl *V = nullptr;
    const Expr *Value = nullptr;
    if (auto *B = dyn_cast<BinaryOperator>(Items[K]);
        B && B->getOpcode() == BO_Assign) {
      V = referencedVar(B->getLHS());
      Value = B->getRHS();
    } else if (auto *DS = dyn_cast<DeclStmt>(Items[K]);
               DS && DS->isSingleDecl()) {
      V = dyn_cast<VarDecl>(DS->getSingleDecl());
      Value = V ? V->getInit() : nullptr;
    }
    if (!V || !Value || !V->getType()->isIntegerType() ||
        WritesOf(V).size() != 1 ||
        (!llvm::is_contained(P.Private, V) && !BodyUses.Declared.count(V)))
      return;
    // Every mention but the assignment's own is in the statements after it.
    unsigned After = 0;
    for (size_t L = K + 1; L < Items.size(); ++L)
      After += mentions(Items[L], V);
    if (After + (isa<DeclStmt>(Items[K]) ? 0 : 1) != mentions(P.Body, V))
      return;
    UseCollector U = collectUses(Value);
    if (!U.Calls.empty() || readsMemory(Value))
      return; // A value read from memory may change before the uses.

    for (const VarDecl *X : U.Order) {
      if (LevelVars.count(X) && !Writes.count(X))
        continue;
      auto Header = [&](const ForStmt *F) {
        return llvm::all_of(WritesOf(X), [&](const Stmt *W) {
          return W == F->getInit() || W == F->getInc();
        });
      };
      if (Inner.count(X) && llvm::is_contained(Around, Inner.at(X).For) &&
          Header(Inner.at(X).For))
        continue;
      auto Use = BodyUses.Uses.find(X);
      if (!Inner.count(X) && !LevelVars.count(X) && !Writes.count(X) &&
          !BodyUses.Declared.count(X) &&
          (Use == BodyUses.Uses.end() || !Use->second.AddressTaken))
        continue; // The same in every iteration.
      return;
    }
    IndexLocals[V] = Value;
  }

  ASTContext &Ctx;
  std::set<const VarDecl *> LevelVars;
  UseCollector BodyUses;
  std::map<const VarDecl *, const Expr *> IndexLocals;
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

bool setBeforeEveryUse(const Stmt *Body, const VarDecl *V);

/// \p Lb as `I`, `I + c`, `c + I` or `I - c` with c an integer constant:
/// its offset from I.
std::optional<long long> offsetFrom(const ASTContext &Ctx, const Expr *Lb,
                                    const VarDecl *I) {
  auto IsI = [&](const Expr *E) {
    auto *DR = dyn_cast<DeclRefExpr>(strip(E));
    return DR && DR->getDecl() == I;
  };
  auto Constant = [&](const Expr *E) -> std::optional<long long> {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx) && R.Val.getInt().getSignificantBits() < 32)
      return R.Val.getInt().getExtValue();
    return std::nullopt;
  };
  if (IsI(Lb))
    return 0;
  auto *B = dyn_cast<BinaryOperator>(strip(Lb));
  if (!B)
    return std::nullopt;
  if (B->getOpcode() == BO_Sub && IsI(B->getLHS()))
    if (auto C = Constant(B->getRHS()))
      return -*C;
  if (B->getOpcode() == BO_Add)
    for (auto [X, C] : {std::pair(B->getLHS(), B->getRHS()),
                        std::pair(B->getRHS(), B->getLHS())})
      if (IsI(X))
        return Constant(C);
  return std::nullopt;
}

/// \p J only ever runs upwards from \p I inside \p Body: every loop that
/// sets it starts at i or i + c (c >= 0) and counts up, nothing else
/// writes it, and every use is inside such a loop.
bool runsUpFrom(const ASTContext &Ctx, const Stmt *Body, const VarDecl *J,
                const VarDecl *I) {
  bool Ok = true;
  std::set<const Stmt *> Headers;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Ok)
      return;
    if (auto *For = dyn_cast<ForStmt>(S)) {
      auto *Init = dyn_cast_or_null<BinaryOperator>(For->getInit());
      if (Init && Init->getOpcode() == BO_Assign &&
          referencedVar(Init->getLHS()) == J) {
        std::optional<long long> Offset = offsetFrom(Ctx, Init->getRHS(), I);
        bool FromI = Offset && *Offset >= 0;
        const Expr *Inc = For->getInc() ? strip(For->getInc()) : nullptr;
        bool Up = false;
        if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
          Up = U->isIncrementOp() && referencedVar(U->getSubExpr()) == J;
        if (!FromI || !Up) {
          Ok = false;
          return;
        }
        Headers.insert(Init);
        Headers.insert(Inc);
      }
    }
    if (!Headers.count(S)) {
      if (auto *B = dyn_cast<BinaryOperator>(S);
          B && B->isAssignmentOp() && referencedVar(B->getLHS()) == J)
        Ok = false;
      if (auto *U = dyn_cast<UnaryOperator>(S);
          U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
          referencedVar(U->getSubExpr()) == J)
        Ok = false;
    }
    for (const Stmt *C : childrenOf(S))
      Walk(C);
  };
  Walk(Body);
  return Ok && !Headers.empty() && setBeforeEveryUse(Body, J);
}

/// Covariance's symmetric writes: iteration i of a one-level nest touches
/// a 2-D array only at [i][i], [i][j] and [j][i] with j running up from i
/// (runsUpFrom). Its elements are then row i right of the diagonal and
/// column i below it, which no other i touches.
bool triangularSymmetric(const ASTContext &Ctx, const KernelPlan &P,
                         const std::vector<std::vector<const Expr *>> &Accesses,
                         unsigned Rank) {
  if (P.Levels.size() != 1 || Rank != 2 || Accesses.empty())
    return false;
  const VarDecl *I = P.Levels.front().Var;
  std::map<const VarDecl *, bool> Tails;
  for (const std::vector<const Expr *> &Subs : Accesses) {
    auto *A = dyn_cast<DeclRefExpr>(strip(Subs[0]));
    auto *B = dyn_cast<DeclRefExpr>(strip(Subs[1]));
    if (!A || !B)
      return false;
    const VarDecl *X = dyn_cast<VarDecl>(A->getDecl());
    const VarDecl *Y = dyn_cast<VarDecl>(B->getDecl());
    if (X == I && Y == I)
      continue;
    const VarDecl *J = X == I ? Y : Y == I ? X : nullptr;
    if (!J)
      return false;
    auto [It, New] = Tails.try_emplace(J, false);
    if (New)
      It->second = runsUpFrom(Ctx, P.Body, J, I);
    if (!It->second)
      return false;
  }
  return true;
}

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
  // A local index is read as the expression it holds (Forms.resolved).
  std::vector<std::vector<const Expr *>> Accesses = Mentions.Accesses;
  for (std::vector<const Expr *> &Subs : Accesses)
    for (const Expr *&X : Subs)
      X = Forms.resolved(X);
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
      K += "[" + subscriptText(Ctx, X) + "]";
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
      std::string Here = subscriptText(Ctx, Subs[D]);
      if (llvm::all_of(Accesses, [&](const std::vector<const Expr *> &A2) {
            return subscriptText(Ctx, A2[D]) == Here;
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
  if (!Injective && triangularSymmetric(Ctx, P, Accesses, Rank))
    return true;
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

namespace {

/// Every mention of \p V in \p Body is inside a loop of it that starts by
/// setting V (`for (k = 0; ...)`, k not in the value): V's value never
/// passes from one iteration of the body to the next, so a private V (the
/// `int i, j, k;` at the top of PolyBench's kernels with `private(j, k)`)
/// may be each thread's own after the swap.
bool setBeforeEveryUse(const Stmt *Body, const VarDecl *V) {
  bool Ok = true;
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S,
                                                     bool Covered) {
    if (!S || !Ok)
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S);
        DR && DR->getDecl() == V && !Covered) {
      Ok = false;
      return;
    }
    if (auto *For = dyn_cast<ForStmt>(S); For && !Covered) {
      auto *Init = dyn_cast_or_null<BinaryOperator>(For->getInit());
      if (Init && Init->getOpcode() == BO_Assign &&
          referencedVar(Init->getLHS()) == V &&
          !collectUses(Init->getRHS()).Uses.count(V)) {
        for (const Stmt *C : childrenOf(S))
          Walk(C, true);
        return;
      }
    }
    for (const Stmt *C : childrenOf(S))
      Walk(C, Covered);
  };
  Walk(Body, false);
  return Ok;
}

} // namespace

/// Every access of \p A has all its subscripts, and \p I and \p J alone at
/// the same two of them (doitgen's A[r][q][s] and A[r][q][p]): each
/// (i, j) iteration touches its own row of A, whatever the others say.
bool rowOfItsOwn(const MappedArray &A,
                 const std::vector<std::vector<const Expr *>> &Accesses,
                 const VarDecl *I, const VarDecl *J) {
  size_t Dims = 1;
  for (QualType E = A.DeviceType->getPointeeType(); E->isConstantArrayType();
       E = cast<ConstantArrayType>(E.getCanonicalType())->getElementType())
    ++Dims;
  if (Accesses.empty() || Dims < 3)
    return false;
  auto At = [](const std::vector<const Expr *> &Subs, const VarDecl *V) {
    for (size_t K = 0; K < Subs.size(); ++K)
      if (auto *DR = dyn_cast<DeclRefExpr>(strip(Subs[K]));
          DR && DR->getDecl() == V)
        return K;
    return Subs.size();
  };
  size_t PI = At(Accesses[0], I), PJ = At(Accesses[0], J);
  return PI < Dims && PJ < Dims &&
         llvm::all_of(Accesses, [&](const std::vector<const Expr *> &Subs) {
           return Subs.size() == Dims && At(Subs, I) == PI && At(Subs, J) == PJ;
         });
}

/// The first statement of the block \p Body that mentions \p V assigns it
/// (`V = E;`, E without V), outside any branch: no value of V passes from
/// one run of the block to the next (srad's private temporaries).
bool assignedFirst(const Stmt *Body, const VarDecl *V) {
  auto *CS = dyn_cast_or_null<CompoundStmt>(Body);
  if (!CS)
    return false;
  for (const Stmt *S : CS->body()) {
    if (!collectUses(S).Uses.count(V))
      continue;
    auto *B = dyn_cast<BinaryOperator>(S);
    return B && B->getOpcode() == BO_Assign &&
           referencedVar(B->getLHS()) == V &&
           !collectUses(B->getRHS()).Uses.count(V);
  }
  return false;
}

bool swapIndependent(const OffloadSource &Src, const KernelPlan &P,
                     const VarDecl *I, const VarDecl *J, const LoopLevel &Inner,
                     std::string &Why, bool Ordered) {
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
      if (!X.AddressTaken && llvm::is_contained(P.Private, V) &&
          (setBeforeEveryUse(Body, V) || assignedFirst(Body, V)))
        continue; // Each (i, j) thread's own, set before it is read.
      if (llvm::is_contained(P.Private, V)) {
        Why = "the inner loop writes the private '" + V->getNameAsString() +
              "', which may carry a value from one of its iterations to the "
              "next";
        return false;
      }
      Why = "the inner loop writes '" + V->getNameAsString() +
            "', declared outside it";
      return false;
    }
  }
  // Every array written: all its accesses use one subscript list that holds
  // i and j each alone (a[i][j]), or i*E + j with j in [0, E).
  std::map<const VarDecl *, std::vector<std::string>> Keys;
  std::map<const VarDecl *, std::vector<std::vector<const Expr *>>> Lists;
  SubscriptForms Forms(Src, P);
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      const VarDecl *V = subscripts(AS, Subs);
      for (const Expr *&X : Subs)
        X = Forms.resolved(X); // [k] as [i + n * j] (findIndexLocals)
      if (V) {
        std::string Key;
        for (const Expr *X : Subs)
          Key += "[" + subscriptText(Ctx, X) + "]";
        Keys[V].push_back(Key);
        Lists[V].push_back(Subs);
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
  std::string Extent = subscriptText(Ctx, Inner.Ub);
  for (const MappedArray &A : P.Arrays) {
    if (!A.Written)
      continue;
    auto &K = Keys[A.Var];
    if (K.empty()) {
      Why = "'" + A.Name + "' is written other than by subscript";
      return false;
    }
    if (rowOfItsOwn(A, Lists[A.Var], I, J))
      continue;
    // a[i][j] and a[j][i] with j >= i in every iteration (or j <= i):
    // iterations (i, j) and (i', j') share an element only when (i, j) =
    // (j', i'), then i <= j = i' <= j' = i.
    std::string IJ = "[" + IN + "][" + JN + "]",
                JI = "[" + JN + "][" + IN + "]";
    if (Ordered && llvm::all_of(K, [&](const std::string &X) {
          return X == IJ || X == JI;
        }))
      continue;
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
                const VarDecl *J, const SubscriptForms &Forms) {
  bool Strided = false;
  std::string JN = J->getNameAsString();
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || Strided)
      return;
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      bool Full = subscripts(AS, Subs) && !Subs.empty();
      for (const Expr *&X : Subs)
        X = Forms.resolved(X);
      if (Full) {
        std::string Last = subscriptText(Ctx, Subs.back());
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
  if (!stridedInI(Src.Ctx, For->getBody(), I, L.Var, SubscriptForms(Src, P)))
    return;
  std::string JN = L.Var->getNameAsString(), IN = I->getNameAsString();
  // Rectangular (j's bounds do not use i), or triangular: j starts or ends
  // at i plus a constant (both loops increasing by one), its step free of i.
  UseCollector StepUses, LbUses, UbUses;
  if (L.Step)
    StepUses.TraverseStmt(const_cast<Expr *>(L.Step));
  LbUses.TraverseStmt(const_cast<Expr *>(L.Lb));
  UbUses.TraverseStmt(const_cast<Expr *>(L.Ub));
  const LoopLevel &Outer = P.Levels[0];
  auto Up = [](const LoopLevel &X) {
    return X.UnitStep && !X.Decreasing && (X.Cmp == BO_LT || X.Cmp == BO_LE);
  };
  std::optional<long long> LbOff, UbOff;
  if (LbUses.Uses.count(I) && Up(L) && Up(Outer))
    LbOff = offsetFrom(Src.Ctx, L.Lb, I);
  if (UbUses.Uses.count(I) && Up(L) && Up(Outer))
    UbOff = offsetFrom(Src.Ctx, L.Ub, I);
  // Every iteration has j >= i, or every one j <= i: a[i][j] and a[j][i]
  // then belong to one iteration.
  bool Ordered = (LbOff && *LbOff >= 0) ||
                 (UbOff && *UbOff - (L.Cmp == BO_LT ? 1 : 0) <= 0);
  std::string Why;
  if (StepUses.Uses.count(I) || (LbUses.Uses.count(I) && !LbOff) ||
      (UbUses.Uses.count(I) && !UbOff))
    Why = "the bounds of '" + JN + "' depend on '" + IN + "'";
  else
    swapIndependent(Src, P, I, L.Var, L, Why, Ordered);
  // A triangle's hull is one range in signed arithmetic only: an unsigned
  // bound of i - 2 wraps for i < 2, and an unsigned comparison in the
  // kernel's per-row checks would not count the rows as the host does.
  auto Unsigned = [](const LoopLevel &X) {
    auto *Cond = X.For ? dyn_cast_or_null<BinaryOperator>(
                             X.For->getCond()->IgnoreParenImpCasts())
                       : nullptr;
    return X.Var->getType()->isUnsignedIntegerType() ||
           (Cond && Cond->getLHS()->getType()->isUnsignedIntegerType());
  };
  if (Why.empty() && (LbOff || UbOff) && (Unsigned(L) || Unsigned(Outer)))
    Why = "the bounds of '" + JN + "' follow '" + IN +
          "' in unsigned arithmetic, where the ranges of all rows are not "
          "one range";
  if (!Why.empty()) {
    P.SwapNote = "the accesses stride by rows of '" + IN +
                 "' but the nest was not swapped: " + Why;
    return;
  }
  // The grid covers every j of every i: from the outer level's first value
  // plus c, or up to its last plus c; the threads outside i's range of j
  // do nothing.
  if (LbOff) {
    L.HullFrom = Outer.Lb;
    L.HullOffset = *LbOff;
  }
  if (UbOff) {
    L.HullUbFrom = Outer.Ub;
    L.HullUbOffset = *UbOff - (Outer.Cmp == BO_LT ? 1 : 0);
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
  if (LbOff || UbOff)
    P.SwapNote += " ('" + JN + "' " +
                  (LbOff ? "starts at '" + normalised(Src.Ctx, L.Lb) + "'"
                         : std::string()) +
                  (LbOff && UbOff ? " and " : "") +
                  (UbOff ? "ends at '" + normalised(Src.Ctx, L.Ub) + "'"
                         : std::string()) +
                  ": the grid spans the rectangle around the triangle, and "
                  "its threads outside it do nothing)";
}

} // namespace offload
} // namespace warpwise
