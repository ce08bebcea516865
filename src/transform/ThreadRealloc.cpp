//===- ThreadRealloc.cpp - Packing a partner guard's threads --------------===//
//
// Legality. The rewrite changes which thread works on which pair; it is the
// same program when the set of pairs worked on, and what each pair's work
// computes, are unchanged, and nothing can observe which thread did it:
//  - the guard is `P > tid` (or `tid < P`) with tid = threadIdx.x and
//    P = tid ^ J, J the same in every thread of the block (built from
//    parameters, blockIdx/blockDim/gridDim, constants and loop variables of
//    such loops), so the passing threads are those whose bit J is clear;
//  - every thread of the block reaches the guard: only for loops with
//    uniform headers around it, no return in the kernel;
//  - the guarded work names the thread only through tid and P; every other
//    variable it reads from outside is uniform, it writes none, and neither
//    it nor a function it calls reads threadIdx, synchronises, votes,
//    shuffles or holds assembly;
//  - the guard is alone in its barrier interval: it is followed by
//    __syncthreads() and preceded, back to the previous barrier or the
//    kernel's start, by code that touches no memory. Each pair's work then
//    runs in the same interval as before with the same inputs, on another
//    thread; if the original has no race, neither has the rewrite.
//
//===----------------------------------------------------------------------===//
#include "ThreadRealloc.h"

#include "../plan/ReallocPlanner.h"
#include "Candidates.h"
#include "Comments.h"
#include "SourceText.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

const Expr *strip(const Expr *E) { return E ? E->IgnoreParenImpCasts() : E; }

bool isThreadIdxX(const Expr *E) {
  std::string Obj, Comp;
  return E && builtinVariable(strip(E), Obj, Comp) && Obj == "threadIdx" &&
         Comp == "x";
}

bool isCallTo(const Stmt *S, llvm::StringRef Name) {
  auto *Call = dyn_cast_or_null<CallExpr>(S);
  if (!Call)
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getName() == Name;
}

bool isBarrier(const Stmt *S) {
  if (auto *E = dyn_cast_or_null<Expr>(S))
    S = E->IgnoreParenImpCasts();
  return isCallTo(S, "__syncthreads");
}

/// Names of functions that depend on or act on the thread's place in its
/// warp or block.
bool isThreadSensitiveCall(llvm::StringRef N) {
  return N.starts_with("__sync") || N.starts_with("__shfl") ||
         N.starts_with("__ballot") || N.starts_with("__any") ||
         N.starts_with("__all") || N.starts_with("__activemask") ||
         N.starts_with("__match") || N.starts_with("__reduce") ||
         N.starts_with("__lane") || N == "__barrier_sync" ||
         N.starts_with("__nanosleep");
}

/// The facts the legality checks need about one kernel.
class Checker {
public:
  Checker(ASTContext &Ctx, const FunctionDecl *FD) : Ctx(Ctx), FD(FD) {
    Written = writtenVariables(FD->getBody());
  }

  /// Whether \p V holds threadIdx.x: initialised with it, never written.
  bool isTidVar(const VarDecl *V) const {
    return V && V->isLocalVarDecl() && V->getInit() &&
           isThreadIdxX(V->getInit()) && !Written.count(V);
  }

  /// Whether \p E has the same value in every thread of the block.
  bool uniform(const Expr *E) {
    if (!E)
      return false;
    E = E->IgnoreParens();
    if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
        isa<CXXBoolLiteralExpr>(E) || isa<FloatingLiteral>(E) ||
        isa<UnaryExprOrTypeTraitExpr>(E) ||
        isa<SubstNonTypeTemplateParmExpr>(E))
      return true;
    std::string Obj, Comp;
    if (builtinVariable(E, Obj, Comp))
      return Obj == "blockIdx" || Obj == "blockDim" || Obj == "gridDim";
    if (auto *Cast = dyn_cast<CastExpr>(E)) {
      if (Cast->getCastKind() == CK_LValueToRValue) {
        // A load: only of a variable (a register), not of memory.
        if (auto *DRE = dyn_cast<DeclRefExpr>(strip(Cast->getSubExpr())))
          return uniformDecl(DRE->getDecl());
        return false;
      }
      return uniform(Cast->getSubExpr());
    }
    if (auto *DRE = dyn_cast<DeclRefExpr>(E))
      return uniformDecl(DRE->getDecl());
    if (auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf ||
          U->isIncrementDecrementOp())
        return false;
      return uniform(U->getSubExpr());
    }
    if (auto *B = dyn_cast<BinaryOperator>(E))
      return !B->isAssignmentOp() && B->getOpcode() != BO_Comma &&
             uniform(B->getLHS()) && uniform(B->getRHS());
    if (auto *C = dyn_cast<ConditionalOperator>(E))
      return uniform(C->getCond()) && uniform(C->getTrueExpr()) &&
             uniform(C->getFalseExpr());
    return false;
  }

  /// A declaration whose value is the same in every thread: a parameter, a
  /// template parameter, an enumerator, or a local variable initialised
  /// uniformly and written only as a for loop's variable with a uniform
  /// header.
  bool uniformDecl(const ValueDecl *D) {
    if (isa<EnumConstantDecl>(D) || isa<NonTypeTemplateParmDecl>(D))
      return true;
    if (auto *P = dyn_cast<ParmVarDecl>(D))
      return !Written.count(P);
    auto *V = dyn_cast<VarDecl>(D);
    if (!V || !V->isLocalVarDecl() || V->getType()->isReferenceType() ||
        V->getType().isVolatileQualified())
      return false;
    if (auto It = UniformVars.find(V); It != UniformVars.end())
      return It->second;
    // Decided by induction over the loop's iterations: V is assumed uniform
    // while its initialiser, step and condition are checked; what was
    // concluded under that assumption is dropped if it fails.
    std::map<const VarDecl *, bool> Before = UniformVars;
    UniformVars[V] = true;
    bool OK = V->getInit() && uniform(V->getInit());
    if (OK && Written.count(V)) {
      // Written: only as the variable of a for loop with a uniform header.
      const ForStmt *Owner = nullptr;
      for (const ForStmt *F : statementsIn<ForStmt>(FD->getBody()))
        if (auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit()))
          for (const Decl *Dc : DS->decls())
            if (Dc == V)
              Owner = F;
      OK = Owner && !writtenVariables(Owner->getBody()).count(V) &&
           uniformStep(Owner->getInc(), V) &&
           (!Owner->getCond() || uniform(Owner->getCond()));
    }
    if (!OK)
      UniformVars = std::move(Before);
    UniformVars[V] = OK;
    return OK;
  }

  /// A loop increment that updates \p V from itself and uniform values.
  bool uniformStep(const Expr *Inc, const VarDecl *V) {
    if (!Inc)
      return true;
    Inc = Inc->IgnoreParens();
    if (auto *U = dyn_cast<UnaryOperator>(Inc))
      return U->isIncrementDecrementOp() && referencedVar(U->getSubExpr()) == V;
    if (auto *B = dyn_cast<BinaryOperator>(Inc)) {
      if (!B->isAssignmentOp() || referencedVar(B->getLHS()) != V)
        return false;
      return uniform(B->getRHS());
    }
    return false;
  }

  /// No memory access, call or assembly: code whose order against other
  /// threads cannot matter.
  static bool touchesNoMemory(const Stmt *S) {
    if (!S)
      return true;
    if (isa<CallExpr>(S) || isa<AsmStmt>(S) || isa<ArraySubscriptExpr>(S) ||
        isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S))
      return false;
    std::string Obj, Comp;
    if (auto *E = dyn_cast<Expr>(S))
      if (builtinVariable(E->IgnoreParens(), Obj, Comp))
        return true;
    if (auto *U = dyn_cast<UnaryOperator>(S))
      if (U->getOpcode() == UO_Deref)
        return false;
    if (auto *M = dyn_cast<MemberExpr>(S))
      if (M->isArrow())
        return false;
    if (auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->hasGlobalStorage() || V->getType()->isReferenceType())
          return false;
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          if (V->hasGlobalStorage() || !touchesNoMemory(V->getInit()))
            return false;
      return true;
    }
    for (const Stmt *C : S->children())
      if (!touchesNoMemory(C))
        return false;
    return true;
  }

  /// Whether the threads are at a barrier boundary (nothing since the last
  /// __syncthreads() touched memory) after the statements [B, E), given
  /// whether they were before them.
  static bool scan(const Stmt *const *B, const Stmt *const *E, bool At) {
    for (; B != E; ++B) {
      if (isBarrier(*B))
        At = true;
      else if (touchesNoMemory(*B))
        continue;
      else if (auto *F = dyn_cast<ForStmt>(*B); F && preservesBoundary(F))
        continue; // Zero trips leave the state; others end at a boundary.
      else
        At = false;
    }
    return At;
  }

  /// A for loop whose body, started at a boundary, ends at one (and which
  /// no break, continue, goto or return leaves early).
  static bool preservesBoundary(const ForStmt *F) {
    auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
    if (!Body || !touchesNoMemory(F->getInit()) ||
        !touchesNoMemory(F->getCond()) || !touchesNoMemory(F->getInc()))
      return false;
    std::function<bool(const Stmt *, bool)> Escapes = [&](const Stmt *S,
                                                          bool Nested) {
      if (!S)
        return false;
      if (isa<GotoStmt>(S) || isa<ReturnStmt>(S))
        return true;
      if (!Nested && (isa<ContinueStmt>(S) || isa<BreakStmt>(S)))
        return true;
      bool Inner = Nested || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
                   isa<DoStmt>(S) || isa<SwitchStmt>(S);
      for (const Stmt *C : S->children())
        if (Escapes(C, Inner))
          return true;
      return false;
    };
    return !Escapes(Body, false) &&
           scan(Body->body_begin(), Body->body_end(), true);
  }

  /// Whether every thread of the block is at a barrier boundary right
  /// before Path[I]; \p Path leads from the kernel's body to it.
  bool boundaryBefore(const std::vector<const Stmt *> &Path, size_t I) {
    auto *C = I > 0 ? dyn_cast<CompoundStmt>(Path[I - 1]) : nullptr;
    if (!C)
      return false;
    const Stmt *const *At = std::find(C->body_begin(), C->body_end(), Path[I]);
    return scan(C->body_begin(), At, boundaryAtStart(Path, I - 1));
  }

  /// The same at the start of the block of statements Path[J]: the
  /// kernel's start, or each iteration of a loop that preserves the
  /// boundary and is entered at one.
  bool boundaryAtStart(const std::vector<const Stmt *> &Path, size_t J) {
    if (J == 0)
      return true;
    auto *F = dyn_cast<ForStmt>(Path[J - 1]);
    return F && F->getBody() == Path[J] && preservesBoundary(F) &&
           boundaryBefore(Path, J - 1);
  }

  ASTContext &Ctx;
  const FunctionDecl *FD;
  std::set<const VarDecl *> Written;
  std::map<const VarDecl *, bool> UniformVars;
};

/// The guard's parts: `Partner > Tid` with Partner = Tid ^ Stride.
struct PartnerGuard {
  const VarDecl *Tid = nullptr;
  const VarDecl *PartnerVar = nullptr; ///< Null: spelled in the guard.
  const Expr *Partner = nullptr;       ///< The guard's operand.
  const Expr *Stride = nullptr;
};

std::optional<PartnerGuard> matchGuard(const Checker &Ck, const IfStmt *If) {
  auto *B = dyn_cast<BinaryOperator>(strip(If->getCond()));
  if (!B || (B->getOpcode() != BO_GT && B->getOpcode() != BO_LT))
    return std::nullopt;
  const Expr *Big = B->getOpcode() == BO_GT ? B->getLHS() : B->getRHS();
  const Expr *Small = B->getOpcode() == BO_GT ? B->getRHS() : B->getLHS();
  PartnerGuard G;
  G.Tid = referencedVar(Small);
  if (!Ck.isTidVar(G.Tid))
    return std::nullopt;
  G.Partner = Big;
  const Expr *Xor = strip(Big);
  if (const VarDecl *P = referencedVar(Big)) {
    if (!P->isLocalVarDecl() || !P->getInit() || Ck.Written.count(P) ||
        P->getType()->isReferenceType())
      return std::nullopt;
    G.PartnerVar = P;
    Xor = strip(P->getInit());
  }
  auto *X = dyn_cast<BinaryOperator>(Xor);
  if (!X || X->getOpcode() != BO_Xor)
    return std::nullopt;
  if (referencedVar(X->getLHS()) == G.Tid)
    G.Stride = X->getRHS();
  else if (referencedVar(X->getRHS()) == G.Tid)
    G.Stride = X->getLHS();
  else
    return std::nullopt;
  if (!G.Tid->getType()->isIntegerType() ||
      (G.PartnerVar && !G.PartnerVar->getType()->isIntegerType()))
    return std::nullopt;
  return G;
}

/// Why the guarded work may observe which thread runs it, or "".
std::string workRefusal(Checker &Ck, const PartnerGuard &G, const Stmt *Work) {
  std::set<const VarDecl *> Declared;
  for (const DeclStmt *DS : statementsIn<DeclStmt>(Work))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        Declared.insert(V);
  for (const VarDecl *V : writtenVariables(Work))
    if (!Declared.count(V))
      return "the guarded code writes `" + V->getNameAsString() +
             "`, a variable of the thread that outlives it";
  std::string Why;
  std::set<const FunctionDecl *> Seen;
  std::function<bool(const Stmt *, bool)> Walk = [&](const Stmt *S,
                                                     bool InCallee) -> bool {
    if (!S)
      return true;
    if (isa<AsmStmt>(S)) {
      Why = "it holds inline assembly";
      return false;
    }
    if (isa<ReturnStmt>(S) && !InCallee) {
      Why = "it returns from the kernel";
      return false;
    }
    if (isa<GotoStmt>(S)) {
      Why = "it holds a goto";
      return false;
    }
    std::string Obj, Comp;
    if (auto *E = dyn_cast<Expr>(S))
      if (builtinVariable(E->IgnoreParens(), Obj, Comp)) {
        if (Obj == "threadIdx") {
          Why = "it reads threadIdx." + Comp + " itself";
          return false;
        }
        return true;
      }
    if (auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee) {
        Why = "it makes an indirect call";
        return false;
      }
      if (isThreadSensitiveCall(Callee->getName())) {
        Why = "it calls `" + Callee->getNameAsString() +
              "`, which depends on the thread's place in its warp or block";
        return false;
      }
      const FunctionDecl *Def = nullptr;
      if (Callee->hasBody(Def) && Seen.insert(Def).second &&
          !Walk(Def->getBody(), true))
        return false;
      if (!Def &&
          !Ck.Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()) &&
          !Callee->getBuiltinID()) {
        Why = "it calls `" + Callee->getNameAsString() +
              "`, whose body warpwise cannot see";
        return false;
      }
    }
    if (!InCallee)
      if (auto *DRE = dyn_cast<DeclRefExpr>(S))
        if (auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
          if (V->isLocalVarDecl() && !V->hasGlobalStorage() &&
              !Declared.count(V) && V != G.Tid && V != G.PartnerVar &&
              !Ck.uniformDecl(V)) {
            Why = "it reads `" + V->getNameAsString() +
                  "`, which may differ between threads (only the thread "
                  "index `" +
                  G.Tid->getNameAsString() + "`" +
                  (G.PartnerVar ? " and the partner `" +
                                      G.PartnerVar->getNameAsString() + "`"
                                : std::string()) +
                  " may name the thread)";
            return false;
          }
    if (auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (V->getType().isVolatileQualified()) {
          Why = "it accesses the volatile `" + V->getNameAsString() + "`";
          return false;
        }
    for (const Stmt *C : S->children())
      if (!Walk(C, InCallee))
        return false;
    return true;
  };
  if (!Walk(Work, false))
    return Why;
  // A break or continue of a loop around the guard.
  std::function<bool(const Stmt *)> Escapes = [&](const Stmt *S) {
    if (!S)
      return false;
    if (isa<BreakStmt>(S) || isa<ContinueStmt>(S))
      return true;
    if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
        isa<SwitchStmt>(S))
      return false;
    for (const Stmt *C : S->children())
      if (Escapes(C))
        return true;
    return false;
  };
  if (Escapes(Work))
    return "it breaks out of, or continues, a loop around the guard";
  return "";
}

/// Why the guard's threads may not be packed, or "".
std::string legality(Checker &Ck, const PartnerGuard &G, const IfStmt *If,
                     std::string &Proof) {
  const FunctionDecl *FD = Ck.FD;
  if (!FD->hasAttr<CUDAGlobalAttr>())
    return "it is in a __device__ function, whose callers' barriers "
           "warpwise does not follow";
  if (If->getElse())
    return "the guard has an else side, which the other threads run";
  if (If->getInit() || If->getConditionVariable() || If->isConstexpr())
    return "the guard declares a variable";
  if (!Ck.uniform(G.Stride))
    return "the partner's distance `" +
           Lexer::getSourceText(
               CharSourceRange::getTokenRange(G.Stride->getSourceRange()),
               Ck.Ctx.getSourceManager(), Ck.Ctx.getLangOpts())
               .str() +
           "` may differ between the threads of a block";
  if (!statementsIn<ReturnStmt>(FD->getBody()).empty())
    return "the kernel has a return, so not every thread may reach the "
           "guard";
  std::vector<const Stmt *> Path = pathTo(FD->getBody(), If);
  if (Path.size() < 2)
    return "the guard was not found in its kernel";
  for (size_t I = 0; I + 1 < Path.size(); ++I) {
    const Stmt *S = Path[I];
    if (isa<CompoundStmt>(S))
      continue;
    if (auto *F = dyn_cast<ForStmt>(S)) {
      if (Path[I + 1] != F->getBody())
        return "the guard is in a loop's header";
      if (F->getCond() && !Ck.uniform(F->getCond()))
        return "the loop around it may run a different number of times in "
               "different threads";
      continue;
    }
    return "a branch or a while loop around it may leave some threads out";
  }
  auto *Parent = dyn_cast<CompoundStmt>(Path[Path.size() - 2]);
  if (!Parent)
    return "the guard is not in a block of statements";
  // After the guard: code that touches no memory, then a barrier.
  const Stmt *const *It =
      std::find(Parent->body_begin(), Parent->body_end(), If);
  bool Barrier = false;
  for (++It; It != Parent->body_end(); ++It) {
    if (isBarrier(*It)) {
      Barrier = true;
      break;
    }
    if (!Checker::touchesNoMemory(*It))
      break;
  }
  if (!Barrier)
    return "no __syncthreads() follows the guard, so code after it could "
           "see which thread did the work";
  if (!Ck.boundaryBefore(Path, Path.size() - 1))
    return "code before the guard in the same barrier interval touches "
           "memory, so it could see which thread does the work";
  std::string Work = workRefusal(Ck, G, If->getThen());
  if (!Work.empty())
    return "the guarded code may depend on which thread runs it: " + Work;
  Proof = "each pair is worked on by one thread as before, in the same "
          "barrier interval (a __syncthreads() follows, and nothing since "
          "the last one touches memory); the work names the thread only "
          "through `" +
          G.Tid->getNameAsString() + "`" +
          (G.PartnerVar ? " and `" + G.PartnerVar->getNameAsString() + "`"
                        : std::string()) +
          ", and the distance is the same in every thread";
  return "";
}

/// Where the prelude goes: above the comment lines right above the guard
/// (they describe the guard and stay next to it), or at the guard.
unsigned preludeOffset(ASTContext &Ctx, const FunctionDecl *FD,
                       const IfStmt *If, unsigned IfBegin) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<const Stmt *> Path = pathTo(FD->getBody(), If);
  auto *Parent =
      Path.size() >= 2 ? dyn_cast<CompoundStmt>(Path[Path.size() - 2]) : nullptr;
  if (!Parent)
    return IfBegin;
  unsigned From = SM.getFileOffset(SM.getExpansionLoc(Parent->getLBracLoc())) + 1;
  for (const Stmt *S : Parent->body()) {
    unsigned B, E;
    if (S == If)
      break;
    if (statementExtent(SM, Ctx.getLangOpts(), S, B, E) && E <= IfBegin)
      From = E;
  }
  llvm::StringRef File =
      SM.getBufferData(SM.getFileID(SM.getExpansionLoc(If->getBeginLoc())));
  for (const SourceComment &C :
       commentsIn(File, From, IfBegin, Ctx.getLangOpts()))
    // Not trailing the statement before: on a line of its own.
    if (File.slice(From, C.Begin).contains('\n'))
      return C.Begin;
  return IfBegin;
}

/// One past the comments that follow offset \p At on its line, or \p At.
unsigned afterCommentsOnLine(const ASTContext &Ctx, llvm::StringRef File,
                             unsigned At) {
  unsigned End = At;
  size_t LineEnd = File.find('\n', At);
  for (const SourceComment &C :
       commentsIn(File, At,
                  LineEnd == llvm::StringRef::npos ? File.size() : LineEnd,
                  Ctx.getLangOpts()))
    if (File.slice(End, C.Begin).trim(" \t").empty())
      End = C.End;
  return End;
}

/// The indentation of the line \p Loc is on.
std::string indentOf(const SourceManager &SM, SourceLocation Loc) {
  unsigned Col = SM.getExpansionColumnNumber(Loc);
  return std::string(Col > 0 ? Col - 1 : 0, ' ');
}

/// Where the guard's pieces are in the file: the edits go around them, and
/// an earlier rewrite of any of them owns the guard.
struct GuardOffsets {
  unsigned IfBegin = 0, CondBegin = 0, CondEnd = 0, ThenBegin = 0, IfEnd = 0;
  /// The guarded code is one statement, not a block: the rewrite adds the
  /// braces the shadowing declarations need.
  bool ThenBlock = false;
};

GuardOffsets guardOffsets(ASTContext &Ctx, const IfStmt *If) {
  const SourceManager &SM = Ctx.getSourceManager();
  GuardOffsets O;
  O.IfBegin = SM.getFileOffset(SM.getExpansionLoc(If->getBeginLoc()));
  O.CondBegin =
      SM.getFileOffset(SM.getExpansionLoc(If->getCond()->getBeginLoc()));
  O.CondEnd = SM.getFileOffset(Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(If->getCond()->getEndLoc()), 0, SM,
      Ctx.getLangOpts()));
  const Stmt *Then = If->getThen();
  O.ThenBlock = isa<CompoundStmt>(Then);
  O.ThenBegin = SM.getFileOffset(SM.getExpansionLoc(Then->getBeginLoc()));
  O.IfEnd = SM.getFileOffset(Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(If->getEndLoc()), 0, SM, Ctx.getLangOpts()));
  if (!O.ThenBlock) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        SM.getExpansionLoc(If->getEndLoc()), tok::semi, SM, Ctx.getLangOpts(),
        false);
    if (Semi.isValid())
      O.IfEnd = SM.getFileOffset(Semi);
  }
  return O;
}

/// The edits: the packing before the guard, the new guard, and the
/// thread's index (and partner) shadowed inside the guarded code, so that
/// its text, and edits earlier transformations made in it, stay. The first
/// edit (the prelude) starts with the decision's mark, filled in once the
/// rewrite is applied.
std::vector<tooling::Replacement>
packingEdits(ASTContext &Ctx, const FunctionDecl *FD, const IfStmt *If,
             const PartnerGuard &G, const GuardOffsets &O,
             const std::string &InFile, const std::string &CondText,
             unsigned Line) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string In = indentOf(SM, If->getBeginLoc());
  std::string Sfx = std::to_string(Line);
  std::string Tid = G.Tid->getNameAsString();
  std::string Stride = "ww_stride" + Sfx, Packed = "ww_packed" + Sfx,
              First = "ww_first" + Sfx;
  // The decision's comment goes first, filled in once it is applied.
  std::string Prelude =
      std::string(DecisionMark) + "\n" + In + "const unsigned " + Stride +
      " = (" + sourceText(Ctx, G.Partner->getSourceRange()) + ") ^ " + Tid +
      ";\n" + In + "const bool " + Packed + " = " + Stride + " != 0u && (" +
      Stride + " & (" + Stride + " - 1u)) == 0u;\n" + In + "const unsigned " +
      First + " =\n" + In + "    " + Packed + " ? 2u * " + Tid + " - (" + Tid +
      " & (" + Stride + " - 1u)) : " + Tid + ";\n" + In;
  std::string Cond =
      Packed + " ? " + First + " < blockDim.x : (" + CondText + ")";
  std::string InnerIn = In + "  ";
  std::string Shadows = "\n" + InnerIn + "const " +
                        G.Tid->getType().getUnqualifiedType().getAsString(
                            Ctx.getPrintingPolicy()) +
                        " " + Tid + " = " + First + ";";
  if (G.PartnerVar)
    Shadows += "\n" + InnerIn + "const " +
               G.PartnerVar->getType().getUnqualifiedType().getAsString(
                   Ctx.getPrintingPolicy()) +
               " " + G.PartnerVar->getNameAsString() + " = " + First + " ^ " +
               Stride + ";";
  // The user's comments stay with what they describe: those above the
  // guard above it, one on its `{` line there, one trailing the single
  // guarded statement after it.
  std::vector<tooling::Replacement> Edits;
  llvm::StringRef File =
      SM.getBufferData(SM.getFileID(SM.getExpansionLoc(If->getBeginLoc())));
  Edits.emplace_back(InFile, preludeOffset(Ctx, FD, If, O.IfBegin), 0,
                     Prelude);
  Edits.emplace_back(InFile, O.CondBegin, O.CondEnd - O.CondBegin, Cond);
  if (O.ThenBlock) {
    Edits.emplace_back(InFile, afterCommentsOnLine(Ctx, File, O.ThenBegin + 1),
                       0, Shadows);
    return Edits;
  }
  unsigned RParen = SM.getFileOffset(SM.getExpansionLoc(If->getRParenLoc())) + 1;
  if (commentsIn(File, RParen, O.ThenBegin, Ctx.getLangOpts()).empty()) {
    Edits.emplace_back(InFile, O.ThenBegin, 0, "{" + Shadows + "\n" + InnerIn);
  } else {
    // `if (c) // why` keeps its comment after the `{`.
    Edits.emplace_back(InFile, RParen, 0, " {");
    Edits.emplace_back(InFile, O.ThenBegin, 0,
                       Shadows.substr(1 + InnerIn.size()) + "\n" + InnerIn);
  }
  Edits.emplace_back(InFile, afterCommentsOnLine(Ctx, File, O.IfEnd), 0,
                     "\n" + In + "}");
  return Edits;
}

} // namespace

void ThreadReallocation::run(TransformContext &TC,
                             std::vector<Decision> &Decisions,
                             std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : deviceCodeDefinitions(Ctx, false, TC.Scope)) {
    Checker Ck(Ctx, FD);
    for (const IfStmt *If : statementsIn<IfStmt>(FD->getBody())) {
      std::optional<PartnerGuard> G = matchGuard(Ck, If);
      if (!G)
        continue; // Not a partner guard: nothing to say.
      if (If->getBeginLoc().isMacroID() || If->getEndLoc().isMacroID() ||
          If->getCond()->getBeginLoc().isMacroID() ||
          If->getCond()->getEndLoc().isMacroID() ||
          If->getThen()->getBeginLoc().isMacroID())
        continue;
      unsigned Line = SM.getExpansionLineNumber(If->getBeginLoc());
      unsigned Col = SM.getExpansionColumnNumber(If->getBeginLoc());
      TC.CurrentKernel = FD->getNameAsString();
      TC.CurrentLine = Line;
      if (TC.DebugCrash)
        crashForTesting();
      const std::string InFile = TC.fileOf(If->getBeginLoc());
      std::string CondText = sourceText(Ctx, If->getCond()->getSourceRange());
      std::string Where = "the partner guard `" + CondText + "` at line " +
                          std::to_string(Line);
      Decision D;
      D.Transform = name();
      D.Kernel = FD->getNameAsString();
      D.Line = Line;
      D.File = TC.decisionFileOf(If->getBeginLoc());
      auto Report = [&]() {
        TC.Log.report(D.Applied ? "WW4001" : "WW3001", Severity::Remark,
                      TC.displayOf(If->getBeginLoc()), Line, Col,
                      std::string(name()) + ": " + D.Reason);
        Decisions.push_back(std::move(D));
      };
      Steer Steering = TC.steer(name(), FD, If->getBeginLoc());
      if (Steering.disabled()) {
        D.Reason = Where + ": disabled by " + Steering.Source +
                   "; not considered";
        Report();
        continue;
      }
      SteerScope Steered(TC, Steering, name());
      std::string Proof;
      std::string Refusal = legality(Ck, *G, If, Proof);
      GuardOffsets O = guardOffsets(Ctx, If);
      if (Refusal.empty()) {
        bool Enclosed = false;
        for (const ClaimedRange &R : TC.Claimed)
          if (R.File == InFile && R.Begin <= O.IfBegin && O.IfEnd <= R.End)
            Enclosed = true;
        if (Enclosed)
          continue; // An enclosing rewrite owns it.
        if (TC.claimed(InFile, O.IfBegin, O.CondEnd) ||
            TC.claimed(InFile, O.ThenBegin, O.ThenBegin + 1) ||
            (!O.ThenBlock && TC.claimed(InFile, O.IfEnd - 1, O.IfEnd)))
          Refusal = "an earlier rewrite edited the guard itself";
      }
      if (!Refusal.empty()) {
        D.Reason = Where + ": not packed: " + Refusal;
        Report();
        continue;
      }
      ReallocCandidate C;
      C.If = If;
      C.FD = FD;
      C.Where = Where;
      C.Proof = Proof;
      C.Edits = packingEdits(Ctx, FD, If, *G, O, InFile, CondText, Line);
      D = planRealloc(TC, C, name());
      D.File = TC.decisionFileOf(If->getBeginLoc());
      if (D.Applied) {
        TC.takeDecisionId(D, "WW4001", TC.textOf(If->getBeginLoc()));
        std::string First = C.Edits.front().getReplacementText().str();
        fillDecisionMark(
            First, TC.decisionComment(D, "the threads that pass this guard "
                                         "are packed onto the lowest threads "
                                         "of the block (thread "
                                         "reallocation)"));
        C.Edits.front() = tooling::Replacement(
            C.Edits.front().getFilePath(), C.Edits.front().getOffset(),
            C.Edits.front().getLength(), First);
        Changes.push_back({"thread reallocation of the partner guard at line " +
                               std::to_string(Line) +
                               (D.File.empty() ? "" : " of " + D.File),
                           C.Edits});
        TC.Claimed.push_back({InFile, O.IfBegin, O.IfEnd});
      }
      Report();
    }
  }
}

} // namespace warpwise
