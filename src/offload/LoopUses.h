//===- LoopUses.h - What a loop nest does with its variables ----*- C++ -*-===//
//
// One walk over a loop nest (or a function a kernel would call, or a bound)
// that records, per variable, whether it is read, written as a whole or
// element by element, has its address taken or is handed to a call; the
// functions called; the atomic updates; and the constructs device code
// cannot have (Problems), each with its place. The directive model, the
// dependence test and the data planner all decide from these uses.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_LOOP_USES_H
#define WARPWISE_OFFLOAD_LOOP_USES_H

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace warpwise {
namespace offload {

/// What a loop nest does with the variables it names.
class UseCollector : public clang::RecursiveASTVisitor<UseCollector> {
public:
  /// \p InFunction: the walk is of a called function's body, which may
  /// return.
  explicit UseCollector(bool InFunction = false) : InFunction(InFunction) {}
  struct Use {
    bool Read = false, ScalarWrite = false, ElementWrite = false;
    bool AddressTaken = false, PassedToCall = false;
    clang::SourceLocation First;
  };
  std::map<const clang::VarDecl *, Use> Uses;
  /// The variables in the order of their first mention.
  std::vector<const clang::VarDecl *> Order;
  std::set<const clang::VarDecl *> Declared; ///< Declared inside the nest.
  std::set<const clang::FunctionDecl *> Calls;
  /// What device code cannot do, where ("calls through a pointer").
  std::vector<std::pair<clang::SourceLocation, std::string>> Problems;

  /// `#pragma omp atomic` (update) of `x += e`, `x -= e`, `x++`, `x--`,
  /// `x = x + e`: what CUDA's atomicAdd does.
  struct AtomicUpdate {
    const clang::OMPExecutableDirective *D = nullptr;
    const clang::Expr *Update = nullptr, *Target = nullptr, *Amount = nullptr;
    const clang::VarDecl *Var = nullptr;
    bool Element = false, Minus = false;
  };
  std::vector<AtomicUpdate> Atomics;

  bool shouldVisitImplicitCode() const { return false; }
  bool TraverseOMPAtomicDirective(clang::OMPAtomicDirective *D);
  bool TraverseOMPSimdDirective(clang::OMPSimdDirective *D);
  bool VisitVarDecl(clang::VarDecl *V);
  bool VisitDeclRefExpr(clang::DeclRefExpr *DR);
  bool TraverseBinaryOperator(clang::BinaryOperator *B);
  bool VisitCompoundAssignOperator(clang::CompoundAssignOperator *B);
  bool VisitUnaryOperator(clang::UnaryOperator *U);
  bool VisitCallExpr(clang::CallExpr *C);
  bool VisitStmt(clang::Stmt *S);

private:
  Use &use(const clang::VarDecl *V, clang::SourceLocation L);
  void noteReadWrite(const clang::Expr *E);
  /// The atomic update \p E of \p D, or one with a null Target.
  AtomicUpdate readAtomicUpdate(const clang::OMPAtomicDirective *D,
                                const clang::Expr *E) const;
  bool InFunction; ///< A called function's body: it may return.
  std::set<const clang::DeclRefExpr *> StoreBases;
};

/// The uses in \p S (a statement or an expression; null: none).
UseCollector collectUses(const clang::Stmt *S, bool InFunction = false);

/// Whether \p S (null: none) uses \p V.
bool mentions(const clang::Stmt *S, const clang::VarDecl *V);

} // namespace offload
} // namespace warpwise

#endif
