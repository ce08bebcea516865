//===- UnreadAfterCall.cpp - Arrays no caller reads after the call --------===//
#include "UnreadAfterCall.h"
#include "OffloadRules.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

#include "clang/AST/ExprCXX.h"

#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <set>

using namespace clang;

namespace warpwise {
namespace offload {
namespace {

/// A fresh allocation: new or new[] of the global operator, or a call of a
/// fresh allocator that this file does not define (a definition here would
/// be the program's own, whatever its name).
bool freshAllocation(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (auto *New = dyn_cast<CXXNewExpr>(E))
    return New->getNumPlacementArgs() == 0 && New->getOperatorNew() &&
           New->getOperatorNew()->isReplaceableGlobalAllocationFunction();
  auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  return F && F->getIdentifier() && isFreshAllocator(F->getName()) &&
         !F->hasBody();
}

/// The caller's variable an argument passes: `w` or `*w` (w a pointer to
/// an array, so that `*w` decays to the same address), through casts.
const VarDecl *passedVariable(const Expr *Arg) {
  const Expr *E = Arg->IgnoreParenCasts();
  if (auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Deref) {
    QualType T = U->getSubExpr()->IgnoreParenImpCasts()->getType();
    if (T->isPointerType() && T->getPointeeType()->isArrayType())
      E = U->getSubExpr()->IgnoreParenCasts();
  }
  auto *DR = dyn_cast<DeclRefExpr>(E);
  return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
}

/// Checks one call: its caller mentions W only in this argument, in free(W),
/// and where W gets a fresh allocation.
class CallerCheck {
public:
  CallerCheck(const OffloadSource &Src, const CallExpr *Call, const Expr *Arg,
              const VarDecl *W)
      : Src(Src), Call(Call), Arg(Arg), W(W) {}

  /// "" where the caller \p G cannot read W after the call; else why.
  std::string run(const FunctionDecl *G) {
    if (!G->getBody())
      return "its caller has no body here";
    if (W->getInit() && !freshAllocation(W->getInit()))
      return "'" + W->getNameAsString() + "' starts as '" +
             sourceText(Src.Ctx, W->getInit()->getSourceRange()) +
             "', not a fresh allocation";
    walk(G->getBody(), nullptr, 0);
    if (!Problem.empty())
      return Problem;
    if (!Seen)
      return "the call is not in its caller's body";
    return "";
  }

  /// Whether the caller frees W (after run()).
  bool freed() const { return Freed; }

private:
  void walk(const Stmt *S, const Stmt *Up, unsigned Loops) {
    if (!S || !Problem.empty())
      return;
    if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S)) {
      Problem =
          "its caller has a goto (line " + Src.lineOf(S->getBeginLoc()) + ")";
      return;
    }
    if (S == Call) {
      Seen = true;
      if (Loops)
        Problem = "the call at line " + Src.lineOf(S->getBeginLoc()) +
                  " is in a loop (a later call could read the array)";
    }
    if (S == Arg) {
      InArg = true;
      for (const Stmt *C : childrenOf(S))
        walk(C, S, Loops);
      InArg = false;
      return;
    }
    // `w = allocation;` as a statement: its value goes nowhere else.
    if (auto *B = dyn_cast<BinaryOperator>(S);
        B && B->getOpcode() == BO_Assign && referencedVar(B->getLHS()) == W) {
      if (!isa_and_nonnull<CompoundStmt>(Up) || !freshAllocation(B->getRHS()))
        Problem =
            "line " + Src.lineOf(S->getBeginLoc()) + " sets '" +
            W->getNameAsString() +
            "' other than to a fresh allocation in a statement of its own";
      walk(B->getRHS(), B, Loops);
      return;
    }
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == W) {
      if (!allowedUse(Up))
        Problem = "line " + Src.lineOf(S->getBeginLoc()) + " uses '" +
                  W->getNameAsString() + "' after its call or elsewhere";
      return;
    }
    bool Loop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                isa<CXXForRangeStmt>(S);
    // Look through parentheses, casts and `*` to the use above.
    const Stmt *Next = S;
    if (isa<ImplicitCastExpr>(S) || isa<ParenExpr>(S) || isa<CStyleCastExpr>(S))
      Next = Up;
    for (const Stmt *C : childrenOf(S))
      walk(C, Next, Loops + (Loop ? 1 : 0));
  }

  /// A mention of W with \p Up the expression above it (casts skipped).
  bool allowedUse(const Stmt *Up) {
    if (InArg) // The argument itself, once.
      return !std::exchange(ArgUsed, true);
    if (auto *C = dyn_cast_or_null<CallExpr>(Up))
      if (auto *F = C->getDirectCallee(); F && F->getIdentifier() &&
                                          F->getName() == "free" &&
                                          C->getNumArgs() == 1 && !F->hasBody())
        return Freed = true;
    return false;
  }

  const OffloadSource &Src;
  const CallExpr *Call;
  const Expr *Arg;
  const VarDecl *W;
  bool Seen = false, InArg = false, ArgUsed = false;
  bool Freed = false; ///< The caller frees W.
  std::string Problem;
};

} // namespace

bool isFreshAllocator(llvm::StringRef Name) {
  static const std::set<std::string> Names = [] {
    std::set<std::string> Out;
    const nlohmann::json &J = offloadRules();
    if (J.contains("fresh_allocators") && J["fresh_allocators"].is_array())
      for (const auto &N : J["fresh_allocators"])
        if (N.is_string())
          Out.insert(N.get<std::string>());
    return Out;
  }();
  return Names.count(Name.str()) != 0;
}

bool unreadAfterCalls(const OffloadSource &Src, CallerExtents &Callers,
                      const FunctionDecl *F, const ParmVarDecl *V,
                      std::string &From, std::string &Why) {
  if (Callers.mayBeCalledElsewhere(F, Why))
    return false;
  const auto &Calls = Callers.callsOf(F);
  if (Calls.empty()) {
    Why = "no call of '" + F->getNameAsString() + "' is in this file";
    return false;
  }
  unsigned Index = V->getFunctionScopeIndex();
  std::vector<std::string> Parts;
  for (const CallerExtents::CallSite &C : Calls) {
    std::string Line = Src.lineOf(C.Expr->getBeginLoc());
    if (!C.Caller || Index >= C.Expr->getNumArgs()) {
      Why = "the call at line " + Line + " is not followed";
      return false;
    }
    const Expr *Arg = C.Expr->getArg(Index);
    const VarDecl *W = passedVariable(Arg);
    if (!W || !W->isLocalVarDecl() || !W->hasLocalStorage() ||
        W->getType()->isReferenceType() ||
        !(W->getType()->isPointerType() || W->getType()->isArrayType())) {
      Why = "the call at line " + Line + " passes '" +
            sourceText(Src.Ctx, Arg->getSourceRange()) +
            "', not a local array or pointer of its caller";
      return false;
    }
    CallerCheck Check(Src, C.Expr, Arg, W);
    if (std::string No = Check.run(C.Caller); !No.empty()) {
      Why = "at the call at line " + Line + ", " + No;
      return false;
    }
    Parts.push_back(C.Caller->getNameAsString() + " passes '" +
                    W->getNameAsString() + "' at line " + Line +
                    (Check.freed() ? " and only frees it otherwise"
                                   : " and does not use it otherwise"));
  }
  From = llvm::join(Parts, "; ");
  return true;
}

} // namespace offload
} // namespace warpwise
