//===- DivergenceFunction.h - One function body in one calling context ----===//
//
// The per-function evaluator of the divergence analysis (FunctionRun): it
// walks a body to a fixed point, giving every expression a Val
// (DivergenceLattice.h) and recording each branch's and loop's level under
// the control dependences that enclose it. Its statements and verdicts are
// in DivergenceFunction.cpp, its expressions in DivergenceExpr.cpp.
// DivergenceAnalysis::Impl, the state shared by every run of one analysis
// (causes, summaries per calling context), is here because both sides use
// it; Divergence.cpp drives it per kernel.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DIVERGENCE_FUNCTION_H
#define WARPWISE_DIVERGENCE_FUNCTION_H

#include "Divergence.h"
#include "DivergenceLattice.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/OperationKinds.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace clang {
class ArraySubscriptExpr;
class BinaryOperator;
class CallExpr;
class ConditionalOperator;
class Decl;
class DeclRefExpr;
class Expr;
class UnaryOperator;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace warpwise {
namespace divergence {

/// A branch or loop whose body is being walked: what it makes the
/// variables assigned under it.
struct ControlEntry {
  const clang::Stmt *S;
  Uniformity L;
  const Cause *Why;
  bool IsLoop;
  bool IsSwitch;
};

/// A function and the levels of its arguments: one calling context.
struct ContextKey {
  const clang::FunctionDecl *FD;
  std::vector<Uniformity> Params;
  bool operator<(const ContextKey &O) const {
    return std::tie(FD, Params) < std::tie(O.FD, O.Params);
  }
};

/// What a call's caller sees: the result, and the writes through each
/// pointer or reference parameter.
struct Summary {
  Val Return;
  std::vector<std::optional<Val>> ParamWrites;
};

} // namespace divergence

struct DivergenceAnalysis::Impl {
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  std::deque<divergence::Cause> Causes;
  std::map<divergence::ContextKey, divergence::Summary> Summaries;
  std::set<divergence::ContextKey> InProgress;
  /// Joined verdicts of __device__ functions, by function.
  std::map<const clang::FunctionDecl *, FunctionVerdicts> DeviceVerdicts;
  std::map<const clang::FunctionDecl *, std::set<std::vector<Uniformity>>>
      DeviceContexts;

  Impl(clang::ASTContext &C) : Ctx(C), SM(C.getSourceManager()) {}

  const divergence::Cause *cause(divergence::Cause C) {
    Causes.push_back(std::move(C));
    return &Causes.back();
  }
  unsigned line(clang::SourceLocation L) const {
    return SM.getExpansionLineNumber(L);
  }
  unsigned column(clang::SourceLocation L) const {
    return SM.getExpansionColumnNumber(L);
  }

  /// The summary of \p FD called with arguments \p Args (Divergence.cpp):
  /// cached per calling context; with \p Out, also \p FD's own verdicts.
  divergence::Summary analyze(const clang::FunctionDecl *FD,
                              const std::vector<divergence::Val> &Args,
                              const BlockShape &Shape, FunctionVerdicts *Out);
};

namespace divergence {

/// The analysis of one function body in one calling context.
class FunctionRun {
public:
  /// Parameters start at the caller's levels (\p Args; kernels: uniform).
  FunctionRun(DivergenceAnalysis::Impl &P, const clang::FunctionDecl *FD,
              const std::vector<Val> &Args, const BlockShape &Shape);

  /// Walks the body to a fixed point; returns what callers see.
  Summary run();

  /// The verdicts of the last walk: variables, branches and loops.
  void collect(FunctionVerdicts &Out) const;

private:
  // --- Statements (DivergenceFunction.cpp) -------------------------------
  void walk(const clang::Stmt *S);
  void walkLoop(const clang::Stmt *Loop, const clang::Stmt *Init,
                const clang::Expr *Cond, const clang::Stmt *CondVar,
                const clang::Expr *Inc, const clang::Stmt *Body,
                const char *Kind);
  void enterBranch(const clang::Stmt *Branch, const clang::Stmt *Init,
                   const clang::Stmt *CondVar, const clang::Expr *Cond,
                   const char *Kind, bool IsSwitch);
  void noteJump(const clang::Stmt *Jump, bool IsReturn, bool IsContinue);

  // --- Expressions (DivergenceExpr.cpp) ----------------------------------
  Val eval(const clang::Expr *E);
  std::optional<Val> evalLiteral(const clang::Expr *E) const;
  Val evalDeclRef(const clang::DeclRefExpr *Ref);
  Val evalSubscript(const clang::ArraySubscriptExpr *A);
  Val evalUnary(const clang::UnaryOperator *U);
  Val evalConditional(const clang::ConditionalOperator *CO);
  Val evalParts(const clang::Expr *E);
  Val evalBinary(const clang::BinaryOperator *B);
  Val evalCall(const clang::CallExpr *C);
  Val evalBuiltinVar(const clang::Expr *E, bool &Matched);
  Val arith(clang::BinaryOperatorKind Op, const Val &A, const Val &B,
            const clang::Expr *Whole);
  void assign(const clang::Expr *Target, const Val &V,
              const clang::Expr *Where);
  /// A write of \p Written through parameter \p D (a pointer or reference;
  /// nothing when \p D is not a parameter), joined with the enclosing
  /// control into the function's summary for its callers.
  void noteParamWrite(const clang::ValueDecl *D, Val Written);
  void assignVar(const clang::VarDecl *Var, Val V);

  Uniformity controlFor(const clang::VarDecl *Var, const Cause *&Why) const;
  bool encloses(const clang::Stmt *S, const clang::Decl *D) const;
  static bool containsGoto(const clang::Stmt *S);
  const clang::VarDecl *localArray(const clang::Expr *Base) const;

  void recordCond(const clang::Stmt *S, const Val &V) {
    auto It = CondVals.find(S);
    if (It == CondVals.end()) {
      CondVals[S] = V;
      Changed = true;
    } else {
      Val J = joinVals(It->second, V);
      if (!(J == It->second)) {
        It->second = J;
        Changed = true;
      }
    }
  }

  DivergenceAnalysis::Impl &P;
  const clang::FunctionDecl *FD;
  const BlockShape &Shape;
  std::map<const clang::VarDecl *, Val> Vars;
  std::map<const clang::VarDecl *, unsigned> ParamIndex;
  std::map<const clang::Stmt *, Val> CondVals;
  std::map<const clang::Stmt *, std::pair<Uniformity, const Cause *>>
      ExitLevels;
  std::vector<ControlEntry> Control;
  std::vector<const clang::Stmt *>
      Order; ///< Branches and loops in source order.
  std::set<const clang::Stmt *> Seen;
  Summary Sum;
  bool Changed = false;
  bool HasGoto = false;
};

} // namespace divergence
} // namespace warpwise

#endif
