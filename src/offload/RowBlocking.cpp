//===- RowBlocking.cpp - Consecutive rows per thread for stencils ---------===//
#include "RowBlocking.h"
#include "OffloadAst.h"
#include "OffloadRules.h"

#include <map>
#include <set>

using namespace clang;

namespace warpwise {
namespace offload {
namespace {

/// `i`, `i + c`, `i - c` (c an integer literal): c, for \p Var; else none.
std::optional<long long> rowOffset(const Expr *E, const VarDecl *Var) {
  E = E->IgnoreParenImpCasts();
  if (auto *DR = dyn_cast<DeclRefExpr>(E))
    return DR->getDecl() == Var ? std::optional<long long>(0) : std::nullopt;
  auto *B = dyn_cast<BinaryOperator>(E);
  if (!B || (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub))
    return std::nullopt;
  auto *DR = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
  auto *Lit = dyn_cast<IntegerLiteral>(B->getRHS()->IgnoreParenImpCasts());
  if (!DR || DR->getDecl() != Var || !Lit)
    return std::nullopt;
  long long C = (long long)Lit->getValue().getZExtValue();
  return B->getOpcode() == BO_Add ? C : -C;
}

/// What the body holds: the rows each array is read at, and whether a
/// loop is among its statements.
struct StencilScan {
  const VarDecl *Row;
  std::map<const VarDecl *, std::set<long long>> Rows;
  bool Loop = false;

  void scan(const Stmt *S) {
    if (!S)
      return;
    if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)) {
      Loop = true;
      return;
    }
    if (auto *ASE = dyn_cast<ArraySubscriptExpr>(S)) {
      std::vector<const Expr *> Subs;
      if (const VarDecl *V = subscripts(ASE, Subs); V && Subs.size() >= 2)
        if (auto C = rowOffset(Subs[0], Row))
          Rows[V].insert(*C);
    }
    for (const Stmt *C : childrenOf(S))
      scan(C);
  }
};

} // namespace

unsigned stencilRowsPerThread() {
  static const unsigned Rows = [] {
    unsigned N = offloadRules().value("stencil_rows_per_thread", 1u);
    // At most two: the kernel's row index, ww_g0 * rows + ww_u, then stays
    // within its counter's type whatever the iteration count (KernelEmitter).
    return N == 2 ? 2u : 1u;
  }();
  return Rows;
}

void planRowBlocking(KernelPlan &P) {
  unsigned Rows = stencilRowsPerThread();
  if (Rows <= 1 || P.Levels.size() != 2 || !P.Reductions.empty() ||
      !P.Atomics.empty())
    return;
  for (const LoopLevel &L : P.Levels)
    if (L.HullFrom || L.HullUbFrom)
      return;
  StencilScan Scan{P.Levels[0].Var, {}, false};
  Scan.scan(P.Body);
  if (Scan.Loop)
    return;
  for (const auto &[Var, Offsets] : Scan.Rows)
    if (Offsets.size() >= 2) {
      P.RowsPerThread = Rows;
      return;
    }
}

} // namespace offload
} // namespace warpwise
