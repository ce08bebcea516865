//===- Merge.cpp - Aligning and merging the two sides of a branch ---------===//
#include "Merge.h"
#include "Comments.h"
#include "SideEffects.h"
#include "SourceText.h"

#include "warpwise/Transform.h"
#include "warpwise/AstQueries.h"
#include "warpwise/ExecutionModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

enum Side { SideA = 0, SideB = 1 };

/// A floating-point multiplication, which nvcc may contract with its
/// consumer (see Merger::selectable).
bool floatProduct(const Expr *E) {
  auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  return BO && BO->getOpcode() == BO_Mul && BO->getType()->isRealFloatingType();
}

class Merger {
public:
  Merger(ASTContext &Ctx, const FunctionDecl *FD, const CostTable &C,
         bool AllowCF, bool KeepContraction)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), FD(FD),
        C(C), AllowCF(AllowCF), KeepContraction(KeepContraction),
        Notes(SM, LO), Counter(Ctx, C) {}

  MergeOutcome run(const IfStmt *If);

private:
  // --- Legality scans -------------------------------------------------------
  bool scanSide(const Stmt *S, Side Sd, std::string &Why);

  // --- Costs ---------------------------------------------------------------
  double cost(const Stmt *S) const;

  // --- Matching ------------------------------------------------------------
  struct Selects {
    std::vector<std::pair<const Expr *, const Expr *>> Points;
  };
  bool sameVar(const Expr *A, const Expr *B) const;
  bool matchExpr(const Expr *A, const Expr *B, Selects &Sel, bool Optimistic,
                 bool AllowRootSelect) const;
  bool selectable(const Expr *A, const Expr *B) const;
  /// Savings of matching two statements; negative when they cannot match.
  double pairScore(const Stmt *A, const Stmt *B, bool Optimistic);

  struct Step {
    enum Kind { Match, OnlyA, OnlyB } K;
    const Stmt *A = nullptr, *B = nullptr;
  };
  std::vector<Step> align(const std::vector<const Stmt *> &A,
                          const std::vector<const Stmt *> &B);

  // --- Rendering -----------------------------------------------------------
  /// The file range of \p R, or an invalid range when it does not map to one
  /// contiguous stretch of the file.
  CharSourceRange fileRange(SourceRange R) const {
    return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  }
  std::string text(SourceRange R) const;
  std::string render(const Stmt *S, Side Sd,
                     const std::map<const Stmt *, std::string> &Replace) const;
  std::string renderMatchedExpr(const Expr *A, const Expr *B,
                                bool AllowRootSelect);
  std::string declarator(const VarDecl *V, Side Sd) const;
  /// Where the name at \p Loc is written in the file: itself, or the macro
  /// argument it came from; invalid inside a macro's body.
  SourceLocation nameInFile(SourceLocation Loc) const;
  /// The macro invocation, as written in the file, that \p Loc is part of.
  std::string macroAt(SourceLocation Loc) const;
  /// Refuses macros that the rewriting could not keep intact.
  bool checkMacros(const Stmt *S, std::string &Why) const;
  bool renderSeq(const std::vector<const Stmt *> &A,
                 const std::vector<const Stmt *> &B, unsigned Depth,
                 std::string &Out);
  bool renderPair(const Stmt *A, const Stmt *B, unsigned Depth,
                  std::string &Out);
  /// The merged body of side \p SA of \p A and side \p SB of \p B (matched
  /// if, for or while statements), with the comments of their own lines.
  bool renderRegion(const Stmt *A, const Stmt *SA, const Stmt *B,
                    const Stmt *SB, unsigned Depth, std::string &Text) {
    std::vector<const Stmt *> BodyA = body(A, SA), BodyB = body(B, SB);
    sideComments(SA, SB, false, Depth, Text);
    if (!renderSeq(BodyA, BodyB, Depth, Text))
      return false;
    sideComments(SA, SB, true, Depth, Text);
    return true;
  }
  bool renderGuarded(const std::vector<const Stmt *> &Run, Side Sd,
                     unsigned Depth, std::string &Out,
                     const std::set<const VarDecl *> &UsedLater);
  std::string fresh(const std::string &Base);
  /// Moves the continuation lines of \p Text (the source of \p S) from S's
  /// original column to the indentation of \p Depth.
  std::string reindent(const std::string &Text, const Stmt *S,
                       unsigned Depth) const {
    unsigned Col = SM.getExpansionColumnNumber(S->getBeginLoc());
    std::string Out;
    size_t Pos = 0;
    bool First = true;
    while (Pos <= Text.size()) {
      size_t NL = Text.find('\n', Pos);
      std::string Line = Text.substr(
          Pos, NL == std::string::npos ? std::string::npos : NL - Pos);
      if (!First) {
        size_t Strip = 0;
        while (Strip < Line.size() && Strip + 1 < Col && Line[Strip] == ' ')
          ++Strip;
        Line = indent(Depth) + Line.substr(Strip);
        Out += "\n";
      }
      Out += Line;
      First = false;
      if (NL == std::string::npos)
        break;
      Pos = NL + 1;
    }
    return Out;
  }
  std::string indent(unsigned Depth) const {
    return BaseIndent + std::string(2 * Depth, ' ');
  }
  /// The statements of \p Side of \p Owner (an if, for or while), whose
  /// comments are kept from now on.
  std::vector<const Stmt *> body(const Stmt *Owner, const Stmt *Side) {
    return Notes.side(Owner, Side);
  }
  /// The comments on the own lines of a merged region's sides (if, for or
  /// while \p A with its partner \p B), or after their last statements.
  void sideComments(const Stmt *A, const Stmt *B, bool Closing, unsigned Depth,
                    std::string &Text) {
    if (Closing)
      Notes.closings(A, B, Cond, "!" + Cond, indent(Depth), Text);
    else
      Notes.headers(A, B, Cond, "!" + Cond, indent(Depth), Text);
  }

  ASTContext &Ctx;
  SourceManager &SM;
  const LangOptions &LO;
  const FunctionDecl *FD;
  const CostTable &C;
  bool AllowCF;
  bool KeepContraction; ///< nvcc's -fmad=true: see selectable().
  std::string Cond;
  std::string BaseIndent;
  std::set<const VarDecl *> Local[2];
  std::map<const VarDecl *, const VarDecl *> Partner;
  std::map<const VarDecl *, std::string> Rename;
  std::set<std::string> Taken;
  std::vector<std::string> Hoisted; ///< Declarations for the top of the block.
  CommentKeeper Notes; ///< The user's comments, each written once.
  /// Set when a piece of text could not be taken from the file.
  mutable std::string MacroProblem;
  MergeOutcome Out;
  /// The execution model: issue slots, and how often the code being
  /// rendered runs per execution of the branch (merged loops' trips).
  IssueCounter Counter;
  double Mult = 1;
  double EnclosingTrips = 1; ///< For unrolling: product of merged trips.
};

// --- Legality ----------------------------------------------------------------

bool Merger::scanSide(const Stmt *S, Side Sd, std::string &Why) {
  if (!S)
    return true;
  if (!isa<CompoundStmt>(S) && !fileRange(S->getSourceRange()).isValid()) {
    Why = "code at line " +
          std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
          " lies partly inside macro `" + macroAt(S->getBeginLoc()) +
          "`, so it cannot be rewritten in place";
    return false;
  }
  if (isa<ReturnStmt>(S) || isa<BreakStmt>(S) || isa<ContinueStmt>(S) ||
      isa<GotoStmt>(S) || isa<LabelStmt>(S) || isa<IndirectGotoStmt>(S) ||
      isa<SwitchStmt>(S) || isa<DoStmt>(S) || isa<AsmStmt>(S) ||
      isa<CUDAKernelCallExpr>(S) || isa<CXXTryStmt>(S) ||
      isa<CXXForRangeStmt>(S)) {
    Why = std::string("the branch contains a `") + S->getStmtClassName() +
          "` at line " +
          std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
          ", which leaves or restructures the region";
    return false;
  }
  if (!AllowCF && (isa<IfStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S))) {
    Why = "the sides are not straight-line code (control flow at line " +
          std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
          "); melding handles that";
    return false;
  }
  if (auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      auto *V = dyn_cast<VarDecl>(D);
      if (!V) {
        Why = "the branch declares something other than a variable";
        return false;
      }
      if (V->isStaticLocal() || V->hasAttr<CUDASharedAttr>()) {
        Why = "the branch declares a static or __shared__ variable `" +
              V->getNameAsString() + "`";
        return false;
      }
      Local[Sd].insert(V);
    }
  }
  for (const Stmt *Child : S->children())
    if (!scanSide(Child, Sd, Why))
      return false;
  return true;
}

// --- Costs
// ---------------------------------------------------------------------

double Merger::cost(const Stmt *S) const {
  if (!S)
    return 0;
  double Own = 0;
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    switch (B->getOpcode()) {
    case BO_Add:
    case BO_Sub:
    case BO_AddAssign:
    case BO_SubAssign:
      Own = C.Add;
      break;
    case BO_Mul:
    case BO_MulAssign:
      Own = C.Mul;
      break;
    case BO_Div:
    case BO_Rem:
    case BO_DivAssign:
    case BO_RemAssign:
      Own = C.Div;
      break;
    case BO_Assign: {
      const Expr *L = B->getLHS()->IgnoreParenImpCasts();
      Own = isa<DeclRefExpr>(L) ? 0 : C.Store;
      break;
    }
    case BO_Comma:
      Own = 0;
      break;
    default:
      Own = C.Other;
    }
    // A store's address is not a load.
    if (B->getOpcode() == BO_Assign &&
        !isa<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts())) {
      double Sub = 0;
      for (const Stmt *Child : B->getLHS()->children())
        Sub += cost(Child);
      return Own + Sub + cost(B->getRHS());
    }
  } else if (isa<ArraySubscriptExpr>(S)) {
    Own = C.Load;
  } else if (auto *U = dyn_cast<UnaryOperator>(S)) {
    Own = U->getOpcode() == UO_Deref ? C.Load : C.Other;
  } else if (isa<CallExpr>(S)) {
    Own = C.Call;
  } else if (isa<ConditionalOperator>(S)) {
    Own = C.Select;
  } else if (auto *Cast = dyn_cast<CastExpr>(S)) {
    CastKind K = Cast->getCastKind();
    Own = (K == CK_IntegralToFloating || K == CK_FloatingToIntegral ||
           K == CK_FloatingCast)
              ? C.Other
              : 0;
  } else if (isa<IfStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S)) {
    Own = C.Branch;
  }
  double Sum = Own;
  for (const Stmt *Child : S->children())
    Sum += cost(Child);
  return Sum;
}

// --- Matching
// ------------------------------------------------------------------

bool Merger::sameVar(const Expr *A, const Expr *B) const {
  auto *RA = dyn_cast<DeclRefExpr>(A);
  auto *RB = dyn_cast<DeclRefExpr>(B);
  if (!RA || !RB)
    return false;
  if (RA->getDecl() == RB->getDecl())
    return true;
  auto *VA = dyn_cast<VarDecl>(RA->getDecl());
  auto *VB = dyn_cast<VarDecl>(RB->getDecl());
  if (!VA || !VB)
    return false;
  auto It = Partner.find(VA);
  return It != Partner.end() && It->second == VB;
}

bool Merger::selectable(const Expr *A, const Expr *B) const {
  // `c ? a : b` must have the type each operand had, and evaluate nothing
  // that could change another thread's view of memory.
  QualType TA = A->getType().getCanonicalType().getUnqualifiedType();
  QualType TB = B->getType().getCanonicalType().getUnqualifiedType();
  if (TA != TB || TA->isArrayType() || TA->isRecordType())
    return false;
  if (A->isLValue() != B->isLValue())
    return false;
  if (hasEffects(A) || hasEffects(B))
    return false;
  // nvcc contracts a floating-point product with the add that consumes it
  // into one fma (-fmad=true, its default), even across statements. A
  // select between a product and its consumer blocks that, so the program
  // would round differently: a product is selected only as part of the
  // whole expression that consumes it, unless the build uses -fmad=false.
  if (KeepContraction && TA->isRealFloatingType() &&
      (floatProduct(A) || floatProduct(B)))
    return false;
  // The operands are printed from the source: each must be a whole file
  // range (a macro argument or a complete macro invocation).
  if (!fileRange(A->getSourceRange()).isValid() ||
      !fileRange(B->getSourceRange()).isValid())
    return false;
  // Side A's operand is replaced where it is written. A macro argument may
  // be expanded more than once (`#define TWICE(x) x + x`), and replacing
  // its text would change every use; only file text and whole macro
  // invocations are replaced.
  if (!SM.getExpansionLoc(A->getBeginLoc()).isValid() ||
      SM.isMacroArgExpansion(A->getBeginLoc()) ||
      SM.isMacroArgExpansion(A->getEndLoc()))
    return false;
  return true;
}

bool Merger::matchExpr(const Expr *A, const Expr *B, Selects &Sel,
                       bool Optimistic, bool AllowRootSelect) const {
  if (auto *PA = dyn_cast<ParenExpr>(A))
    if (auto *PB = dyn_cast<ParenExpr>(B))
      return matchExpr(PA->getSubExpr(), PB->getSubExpr(), Sel, Optimistic,
                       AllowRootSelect);
  auto SelectHere = [&]() {
    if (!AllowRootSelect || !selectable(A, B))
      return false;
    Sel.Points.push_back({A, B});
    return true;
  };
  if (A->getStmtClass() != B->getStmtClass())
    return SelectHere();
  if (A->getType().getCanonicalType() != B->getType().getCanonicalType())
    return SelectHere();
  if (isa<DeclRefExpr>(A)) {
    if (sameVar(A, B))
      return true;
    if (Optimistic) {
      const VarDecl *VA = referencedVar(A), *VB = referencedVar(B);
      if (VA && VB && Local[SideA].count(VA) && Local[SideB].count(VB) &&
          !Partner.count(VA) && !Partner.count(VB))
        return true; // They may still be paired.
    }
    return SelectHere();
  }
  if (auto *IA = dyn_cast<IntegerLiteral>(A))
    return IA->getValue() == cast<IntegerLiteral>(B)->getValue() ||
           SelectHere();
  if (auto *FA = dyn_cast<FloatingLiteral>(A))
    return FA->getValue().bitwiseIsEqual(
               cast<FloatingLiteral>(B)->getValue()) ||
           SelectHere();
  if (auto *CA = dyn_cast<CharacterLiteral>(A))
    return CA->getValue() == cast<CharacterLiteral>(B)->getValue() ||
           SelectHere();
  if (auto *BA = dyn_cast<CXXBoolLiteralExpr>(A))
    return BA->getValue() == cast<CXXBoolLiteralExpr>(B)->getValue() ||
           SelectHere();
  if (auto *OA = dyn_cast<BinaryOperator>(A)) {
    auto *OB = cast<BinaryOperator>(B);
    if (OA->getOpcode() != OB->getOpcode())
      return SelectHere();
    // A store's target must be the same memory on both sides (each thread
    // then stores its own value there); a local variable may be selected.
    bool LocalTarget = isa<DeclRefExpr>(OA->getLHS()->IgnoreParenImpCasts()) &&
                       isa<DeclRefExpr>(OB->getLHS()->IgnoreParenImpCasts());
    if (OA->isAssignmentOp() && !LocalTarget) {
      Selects Target;
      if (!matchExpr(OA->getLHS(), OB->getLHS(), Target, Optimistic, false) ||
          !Target.Points.empty())
        return false;
    } else if (!matchExpr(OA->getLHS(), OB->getLHS(), Sel, Optimistic, true)) {
      return false;
    }
    return matchExpr(OA->getRHS(), OB->getRHS(), Sel, Optimistic, true);
  }
  if (auto *UA = dyn_cast<UnaryOperator>(A)) {
    auto *UB = cast<UnaryOperator>(B);
    if (UA->getOpcode() != UB->getOpcode())
      return SelectHere();
    bool Inc = UA->isIncrementDecrementOp();
    return matchExpr(
        UA->getSubExpr(), UB->getSubExpr(), Sel, Optimistic,
        !Inc || isa<DeclRefExpr>(UA->getSubExpr()->IgnoreParenImpCasts()));
  }
  if (auto *CA = dyn_cast<CastExpr>(A)) {
    if (CA->getCastKind() != cast<CastExpr>(B)->getCastKind())
      return SelectHere();
    if (isa<ExplicitCastExpr>(A) &&
        cast<ExplicitCastExpr>(A)->getTypeAsWritten() !=
            cast<ExplicitCastExpr>(B)->getTypeAsWritten())
      return SelectHere();
    // An lvalue-to-rvalue conversion of two different variables: select the
    // values, not the lvalues.
    size_t Before = Sel.Points.size();
    Selects Inner;
    if (matchExpr(CA->getSubExpr(), cast<CastExpr>(B)->getSubExpr(), Inner,
                  Optimistic, false)) {
      Sel.Points.insert(Sel.Points.end(), Inner.Points.begin(),
                        Inner.Points.end());
      return true;
    }
    Sel.Points.resize(Before);
    return SelectHere();
  }
  if (auto *AA = dyn_cast<ArraySubscriptExpr>(A)) {
    auto *AB = cast<ArraySubscriptExpr>(B);
    return matchExpr(AA->getBase(), AB->getBase(), Sel, Optimistic, true) &&
           matchExpr(AA->getIdx(), AB->getIdx(), Sel, Optimistic, true);
  }
  if (auto *KA = dyn_cast<CallExpr>(A)) {
    auto *KB = cast<CallExpr>(B);
    if (KA->getDirectCallee() != KB->getDirectCallee() ||
        !KA->getDirectCallee() || KA->getNumArgs() != KB->getNumArgs())
      return SelectHere();
    // Impure calls (atomics, barriers, stores behind a call) only with
    // identical arguments.
    bool Pure = isPureCallee(KA->getDirectCallee());
    for (unsigned I = 0; I < KA->getNumArgs(); ++I) {
      Selects Args;
      if (!matchExpr(KA->getArg(I), KB->getArg(I), Args, Optimistic, Pure) ||
          (!Pure && !Args.Points.empty()))
        return false;
      Sel.Points.insert(Sel.Points.end(), Args.Points.begin(),
                        Args.Points.end());
    }
    return true;
  }
  if (auto *MA = dyn_cast<MemberExpr>(A)) {
    auto *MB = cast<MemberExpr>(B);
    if (MA->getMemberDecl() != MB->getMemberDecl() ||
        MA->isArrow() != MB->isArrow())
      return SelectHere();
    return matchExpr(MA->getBase(), MB->getBase(), Sel, Optimistic, true);
  }
  if (isa<CXXThisExpr>(A))
    return true; // `this` is the same object on both sides.
  if (auto *TA = dyn_cast<ConditionalOperator>(A)) {
    auto *TB = cast<ConditionalOperator>(B);
    return matchExpr(TA->getCond(), TB->getCond(), Sel, Optimistic, true) &&
           matchExpr(TA->getTrueExpr(), TB->getTrueExpr(), Sel, Optimistic,
                     true) &&
           matchExpr(TA->getFalseExpr(), TB->getFalseExpr(), Sel, Optimistic,
                     true);
  }
  // Builtin variables (threadIdx.x) and anything else: equal when they are
  // the very same source text and contain no side-local variable.
  if (isa<PseudoObjectExpr>(A) || isa<MSPropertyRefExpr>(A))
    return text(A->getSourceRange()) == text(B->getSourceRange()) ||
           SelectHere();
  return SelectHere();
}

double Merger::pairScore(const Stmt *A, const Stmt *B, bool Optimistic) {
  if (auto *DA = dyn_cast<DeclStmt>(A)) {
    auto *DB = dyn_cast<DeclStmt>(B);
    if (!DB || !DA->isSingleDecl() || !DB->isSingleDecl())
      return -1;
    auto *VA = dyn_cast<VarDecl>(DA->getSingleDecl());
    auto *VB = dyn_cast<VarDecl>(DB->getSingleDecl());
    if (!VA || !VB || !VA->getInit() || !VB->getInit() ||
        VA->getInitStyle() != VarDecl::CInit ||
        VB->getInitStyle() != VarDecl::CInit ||
        VA->getType().getCanonicalType() != VB->getType().getCanonicalType() ||
        VA->getType()->isArrayType() || VA->getType()->isReferenceType())
      return -1;
    Selects S;
    if (!matchExpr(VA->getInit(), VB->getInit(), S, Optimistic, true))
      return -1;
    double Saved = cost(VA->getInit());
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    return std::max(Saved, 0.001);
  }
  if (auto *EA = dyn_cast<Expr>(A)) {
    auto *EB = dyn_cast<Expr>(B);
    if (!EB)
      return -1;
    Selects S;
    if (!matchExpr(EA, EB, S, Optimistic, false))
      return -1;
    double Saved = cost(EA);
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    return std::max(Saved, 0.001);
  }
  if (!AllowCF)
    return -1;
  if (auto *IA = dyn_cast<IfStmt>(A)) {
    auto *IB = dyn_cast<IfStmt>(B);
    if (!IB || !IA->getElse() != !IB->getElse() || IA->getInit() ||
        IB->getInit() || IA->getConditionVariable() ||
        IB->getConditionVariable())
      return -1;
    Selects S;
    if (!matchExpr(IA->getCond(), IB->getCond(), S, Optimistic, true))
      return -1;
    double Saved = C.Branch + cost(IA->getCond());
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    // The bodies' own alignment adds to it; estimate with their cheaper side.
    Saved += 0.5 * std::min(cost(IA->getThen()), cost(IB->getThen()));
    if (IA->getElse())
      Saved += 0.5 * std::min(cost(IA->getElse()), cost(IB->getElse()));
    return std::max(Saved, 0.001);
  }
  if (auto *FA = dyn_cast<ForStmt>(A)) {
    auto *FB = dyn_cast<ForStmt>(B);
    if (!FB || !FA->getInit() != !FB->getInit() ||
        !FA->getCond() != !FB->getCond() || !FA->getInc() != !FB->getInc() ||
        FA->getConditionVariable() || FB->getConditionVariable())
      return -1;
    double Saved = C.Branch;
    if (FA->getInit()) {
      double S0 = pairScore(FA->getInit(), FB->getInit(), Optimistic);
      if (S0 < 0)
        return -1;
      Saved += S0;
    }
    Selects S;
    if (FA->getCond() &&
        !matchExpr(FA->getCond(), FB->getCond(), S, Optimistic, true))
      return -1;
    if (FA->getInc() &&
        !matchExpr(FA->getInc(), FB->getInc(), S, Optimistic, false))
      return -1;
    Saved -= S.Points.size() * C.Select;
    Saved += 0.5 * std::min(cost(FA->getBody()), cost(FB->getBody()));
    return std::max(Saved, 0.001);
  }
  if (auto *WA = dyn_cast<WhileStmt>(A)) {
    auto *WB = dyn_cast<WhileStmt>(B);
    if (!WB || WA->getConditionVariable() || WB->getConditionVariable())
      return -1;
    Selects S;
    if (!matchExpr(WA->getCond(), WB->getCond(), S, Optimistic, true))
      return -1;
    double Saved = C.Branch - S.Points.size() * C.Select +
                   0.5 * std::min(cost(WA->getBody()), cost(WB->getBody()));
    return std::max(Saved, 0.001);
  }
  return -1;
}

/// The single-variable declaration a matched statement introduces for what
/// follows it: a declaration, or a for loop's counter.
static const DeclStmt *pairedDecl(const Stmt *S) {
  if (auto *DS = dyn_cast_or_null<DeclStmt>(S))
    return DS->isSingleDecl() ? DS : nullptr;
  if (auto *F = dyn_cast_or_null<ForStmt>(S))
    if (auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit()))
      return DS->isSingleDecl() ? DS : nullptr;
  return nullptr;
}

std::vector<Merger::Step> Merger::align(const std::vector<const Stmt *> &A,
                                        const std::vector<const Stmt *> &B) {
  size_t N = A.size(), M = B.size();
  std::vector<std::vector<double>> Score(N, std::vector<double>(M));
  for (size_t I = 0; I < N; ++I)
    for (size_t J = 0; J < M; ++J)
      Score[I][J] = pairScore(A[I], B[J], /*Optimistic=*/true);
  // Needleman-Wunsch with free gaps: the best total of savings.
  std::vector<std::vector<double>> D(N + 1, std::vector<double>(M + 1, 0));
  for (size_t I = 1; I <= N; ++I)
    for (size_t J = 1; J <= M; ++J) {
      double Best = std::max(D[I - 1][J], D[I][J - 1]);
      if (Score[I - 1][J - 1] > 0)
        Best = std::max(Best, D[I - 1][J - 1] + Score[I - 1][J - 1]);
      D[I][J] = Best;
    }
  std::vector<Step> Rev;
  size_t I = N, J = M;
  while (I > 0 || J > 0) {
    if (I > 0 && J > 0 && Score[I - 1][J - 1] > 0 &&
        D[I][J] == D[I - 1][J - 1] + Score[I - 1][J - 1]) {
      Rev.push_back({Step::Match, A[I - 1], B[J - 1]});
      --I;
      --J;
    } else if (J > 0 && (I == 0 || D[I][J] == D[I][J - 1])) {
      Rev.push_back({Step::OnlyB, nullptr, B[J - 1]});
      --J;
    } else {
      Rev.push_back({Step::OnlyA, A[I - 1], nullptr});
      --I;
    }
  }
  std::reverse(Rev.begin(), Rev.end());
  // Between two matches print side A's statements before side B's.
  std::vector<Step> Steps;
  size_t K = 0;
  while (K < Rev.size()) {
    if (Rev[K].K == Step::Match) {
      Steps.push_back(Rev[K++]);
      continue;
    }
    std::vector<Step> As, Bs;
    for (; K < Rev.size() && Rev[K].K != Step::Match; ++K)
      (Rev[K].K == Step::OnlyA ? As : Bs).push_back(Rev[K]);
    Steps.insert(Steps.end(), As.begin(), As.end());
    Steps.insert(Steps.end(), Bs.begin(), Bs.end());
  }
  return Steps;
}

// --- Rendering
// -----------------------------------------------------------------

std::string Merger::text(SourceRange R) const {
  return Lexer::getSourceText(fileRange(R), SM, LO).str();
}

std::string Merger::fresh(const std::string &Base) {
  for (unsigned N = 0;; ++N) {
    std::string Name = N ? Base + "_" + std::to_string(N) : Base;
    if (Taken.count(Name) || Ctx.Idents.find(Name) != Ctx.Idents.end())
      continue;
    Taken.insert(Name);
    return Name;
  }
}

namespace {
struct Edit {
  unsigned Begin, End; ///< Offsets in the file.
  std::string Text;
};
} // namespace

SourceLocation Merger::nameInFile(SourceLocation Loc) const {
  while (Loc.isMacroID()) {
    if (!SM.isMacroArgExpansion(Loc))
      return SourceLocation(); // Spelled in a macro's body.
    Loc = SM.getImmediateSpellingLoc(Loc);
  }
  return Loc;
}

std::string Merger::macroAt(SourceLocation Loc) const {
  SourceLocation Exp = SM.getExpansionLoc(Loc);
  return Lexer::getSourceText(CharSourceRange::getTokenRange(Exp), SM, LO)
      .str();
}

bool Merger::checkMacros(const Stmt *S, std::string &Why) const {
  if (!S)
    return true;
  // A name warpwise may rename (a variable of one side: merged, or declared
  // ahead of a guard) must be written in the file or in a macro argument;
  // text copied from a macro invocation cannot be renamed inside the
  // macro's body.
  auto Problem = [&](SourceLocation Loc, const std::string &What) {
    Why = What + " inside the body of macro `" + macroAt(Loc) + "` (line " +
          std::to_string(SM.getExpansionLineNumber(Loc)) +
          "), where warpwise cannot rewrite it; declined";
    return false;
  };
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D)) {
        if (nameInFile(V->getLocation()).isInvalid())
          return Problem(V->getLocation(),
                         "`" + V->getNameAsString() + "` is declared");
        if (!fileRange(SourceRange(V->getBeginLoc(), V->getLocation()))
                 .isValid())
          return Problem(V->getBeginLoc(), "the declaration of `" +
                                               V->getNameAsString() +
                                               "` starts");
        if (V->getInit() &&
            !fileRange(V->getInit()->getSourceRange()).isValid())
          return Problem(V->getInit()->getBeginLoc(), "the initialiser of `" +
                                                          V->getNameAsString() +
                                                          "` ends");
      }
  if (auto *R = dyn_cast<DeclRefExpr>(S))
    if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
      if ((Local[SideA].count(V) || Local[SideB].count(V)) &&
          nameInFile(R->getLocation()).isInvalid())
        return Problem(R->getLocation(), "`" + V->getNameAsString() +
                                             "`, a variable of one side, is "
                                             "used");
  for (const Stmt *Child : S->children())
    if (!checkMacros(Child, Why))
      return false;
  return true;
}

std::string
Merger::render(const Stmt *S, Side Sd,
               const std::map<const Stmt *, std::string> &Replace) const {
  CharSourceRange FR = fileRange(S->getSourceRange());
  if (!FR.isValid()) {
    if (MacroProblem.empty())
      MacroProblem =
          "the expression at line " +
          std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
          " is only partly inside macro `" + macroAt(S->getBeginLoc()) +
          "`, so it cannot be rewritten in place; declined";
    return "";
  }
  unsigned Begin = SM.getFileOffset(FR.getBegin());
  unsigned End = SM.getFileOffset(FR.getEnd());
  std::vector<Edit> Edits;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *N) {
    if (!N)
      return;
    auto It = Replace.find(N);
    if (It != Replace.end() && N != S) {
      CharSourceRange NR = fileRange(N->getSourceRange());
      if (!NR.isValid())
        return; // selectable() admits only file ranges.
      Edits.push_back({SM.getFileOffset(NR.getBegin()),
                       SM.getFileOffset(NR.getEnd()), It->second});
      return;
    }
    // A renamed name written in a macro argument is renamed where the
    // argument is spelled; checkMacros refused names inside macro bodies.
    auto RenameAt = [&](SourceLocation Loc, const std::string &To) {
      SourceLocation F = nameInFile(Loc);
      if (F.isValid()) {
        unsigned B = SM.getFileOffset(F);
        Edits.push_back({B, B + Lexer::MeasureTokenLength(F, SM, LO), To});
      }
    };
    if (auto *Ref = dyn_cast<DeclRefExpr>(N))
      if (auto *V = dyn_cast<VarDecl>(Ref->getDecl())) {
        auto RIt = Rename.find(V);
        if (RIt != Rename.end())
          RenameAt(Ref->getLocation(), RIt->second);
      }
    if (auto *DS = dyn_cast<DeclStmt>(N))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D)) {
          auto RIt = Rename.find(V);
          if (RIt != Rename.end())
            RenameAt(V->getLocation(), RIt->second);
          if (V->getInit())
            Walk(V->getInit());
        }
    for (const Stmt *Child : N->children())
      Walk(Child);
  };
  auto Top = Replace.find(S);
  if (Top != Replace.end())
    return Top->second;
  Walk(S);
  std::sort(Edits.begin(), Edits.end(),
            [](const Edit &X, const Edit &Y) { return X.Begin < Y.Begin; });
  llvm::StringRef File = SM.getBufferData(SM.getFileID(FR.getBegin()));
  std::string Out;
  unsigned Pos = Begin;
  for (const Edit &E : Edits) {
    if (E.Begin < Pos || E.End > End)
      continue; // Nested inside an earlier replacement.
    Out += File.substr(Pos, E.Begin - Pos).str();
    Out += E.Text;
    Pos = E.End;
  }
  Out += File.substr(Pos, End - Pos).str();
  (void)Sd;
  return Out;
}

std::string Merger::renderMatchedExpr(const Expr *A, const Expr *B,
                                      bool AllowRootSelect) {
  Selects S;
  if (!matchExpr(A, B, S, /*Optimistic=*/false, AllowRootSelect))
    return "";
  std::map<const Stmt *, std::string> Replace;
  for (auto &P : S.Points) {
    std::string TA = render(P.first, SideA, {});
    std::string TB = render(P.second, SideB, {});
    Replace[P.first] = "(" + Cond + " ? " + TA + " : " + TB + ")";
    ++Out.Selects;
    if (floatProduct(P.first) || floatProduct(P.second))
      ++Out.ProductSelects;
  }
  return render(A, SideA, Replace);
}

/// "float x" for `float x = 1.0f;`: everything before the initialiser. All
/// positions are file positions: the type, the name or the initialiser may be
/// written with a macro (`float a = MUL(u, u);`), and an offset taken from a
/// location inside a macro expansion is an offset into that expansion, not
/// into the file. Empty when the declarator is not file text of its own
/// (checkMacros refuses those declarations before rendering starts).
std::string Merger::declarator(const VarDecl *V, Side Sd) const {
  CharSourceRange Head =
      fileRange(SourceRange(V->getBeginLoc(), V->getLocation()));
  CharSourceRange Name = fileRange(SourceRange(V->getLocation()));
  if (!Head.isValid() || !Name.isValid() ||
      SM.getFileID(Head.getBegin()) != SM.getFileID(Name.getBegin()))
    return "";
  unsigned Begin = SM.getFileOffset(Head.getBegin());
  unsigned NameBegin = SM.getFileOffset(Name.getBegin());
  unsigned NameEnd = SM.getFileOffset(Name.getEnd());
  if (NameBegin < Begin || NameEnd < NameBegin)
    return "";
  llvm::StringRef File = SM.getBufferData(SM.getFileID(Head.getBegin()));
  // Array bounds and other declarator parts follow the name up to '='.
  unsigned End = NameEnd;
  if (V->getInit()) {
    CharSourceRange Init = fileRange(V->getInit()->getSourceRange());
    if (!Init.isValid())
      return "";
    unsigned InitBegin = SM.getFileOffset(Init.getBegin());
    if (InitBegin < NameEnd)
      return "";
    size_t Eq = File.substr(NameEnd, InitBegin - NameEnd).rfind('=');
    if (Eq != llvm::StringRef::npos)
      End = NameEnd + Eq;
  }
  std::string Text = File.substr(Begin, End - Begin).str();
  while (!Text.empty() && (Text.back() == ' ' || Text.back() == '\t'))
    Text.pop_back();
  auto It = Rename.find(V);
  if (It != Rename.end() && NameEnd <= Begin + Text.size())
    Text.replace(NameBegin - Begin, NameEnd - NameBegin, It->second);
  (void)Sd;
  return Text;
}

bool Merger::renderPair(const Stmt *A, const Stmt *B, unsigned Depth,
                        std::string &Text) {
  std::string In = indent(Depth);
  if (auto *DA = dyn_cast<DeclStmt>(A)) {
    auto *VA = cast<VarDecl>(DA->getSingleDecl());
    auto *VB = cast<VarDecl>(cast<DeclStmt>(B)->getSingleDecl());
    std::string Init = renderMatchedExpr(VA->getInit(), VB->getInit(), true);
    if (Init.empty())
      return false;
    std::string Decl = declarator(VA, SideA);
    if (Decl.empty())
      return false;
    Text += In + Decl + " = " + Init + ";\n";
    return true;
  }
  if (auto *EA = dyn_cast<Expr>(A)) {
    std::string E = renderMatchedExpr(EA, cast<Expr>(B), false);
    if (E.empty())
      return false;
    Text += In + E + ";\n";
    return true;
  }
  if (auto *IA = dyn_cast<IfStmt>(A)) {
    auto *IB = cast<IfStmt>(B);
    unsigned SelectsBefore = Out.Selects;
    std::string Cnd = renderMatchedExpr(IA->getCond(), IB->getCond(), true);
    if (Cnd.empty())
      return false;
    // A merged inner branch: its condition once, and (lanes that disagree)
    // both of its sides, which the recursion counts.
    bool Pred = Counter.innerPredicated(IA->getThen()) &&
                Counter.innerPredicated(IA->getElse()) &&
                Counter.innerPredicated(IB->getThen()) &&
                Counter.innerPredicated(IB->getElse());
    Out.AfterShared +=
        Mult * (Counter.exprSlots(IA->getCond()) +
                (Pred ? 0 : C.IssueSlots.Branch + C.DivergedBranch) +
                (Out.Selects - SelectsBefore) * C.IssueSlots.Select);
    Text += In + "if (" + Cnd + ") {\n";
    if (!renderRegion(IA, IA->getThen(), IB, IB->getThen(), Depth + 1, Text))
      return false;
    if (IA->getElse()) {
      Text += In + "} else {\n";
      if (!renderRegion(IA, IA->getElse(), IB, IB->getElse(), Depth + 1, Text))
        return false;
    }
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  if (auto *FA = dyn_cast<ForStmt>(A)) {
    auto *FB = cast<ForStmt>(B);
    unsigned HeaderSelects = Out.Selects;
    std::string Init, Cnd, Inc;
    if (FA->getInit()) {
      if (auto *DA = dyn_cast<DeclStmt>(FA->getInit())) {
        auto *VA = cast<VarDecl>(DA->getSingleDecl());
        auto *VB =
            cast<VarDecl>(cast<DeclStmt>(FB->getInit())->getSingleDecl());
        std::string I = renderMatchedExpr(VA->getInit(), VB->getInit(), true);
        if (I.empty())
          return false;
        std::string Decl = declarator(VA, SideA);
        if (Decl.empty())
          return false;
        Init = Decl + " = " + I;
      } else {
        Init = renderMatchedExpr(cast<Expr>(FA->getInit()),
                                 cast<Expr>(FB->getInit()), false);
        if (Init.empty())
          return false;
      }
    }
    if (FA->getCond()) {
      Cnd = renderMatchedExpr(FA->getCond(), FB->getCond(), true);
      if (Cnd.empty())
        return false;
    }
    if (FA->getInc()) {
      Inc = renderMatchedExpr(FA->getInc(), FB->getInc(), false);
      if (Inc.empty())
        return false;
    }
    // The merged loop runs until the last lane's side is done; when its
    // header needed selects, nvcc can no longer unroll it.
    TripCount TA = Counter.trips(FA), TB = Counter.trips(FB);
    for (const TripCount *T : {&TA, &TB})
      if (!T->Assumption.empty())
        Out.Assumptions.push_back(T->Assumption);
    double Trips = std::max(TA.Trips, TB.Trips);
    bool Selected = Out.Selects != HeaderSelects;
    bool WasUnrolled =
        (TA.Constant && EnclosingTrips * TA.Trips <= C.UnrollMaxTrips) ||
        (TB.Constant && EnclosingTrips * TB.Trips <= C.UnrollMaxTrips);
    bool Unrolled = !Selected && TA.Constant && TB.Constant &&
                    EnclosingTrips * Trips <= C.UnrollMaxTrips;
    if (!Unrolled) {
      Out.AfterLoopIterations += Mult * Trips;
      if (WasUnrolled)
        ++Out.LostUnrolling;
    }
    Out.AfterShared +=
        Mult * Trips *
        (Counter.exprSlots(FA->getCond()) + Counter.exprSlots(FA->getInc()) +
         (Out.Selects - HeaderSelects) * C.IssueSlots.Select);
    double SavedMult = Mult, SavedTrips = EnclosingTrips;
    Mult *= Trips;
    EnclosingTrips *= std::max(Trips, 1.0);
    Text += In + "for (" + Init + "; " + Cnd + "; " + Inc + ") {\n";
    bool BodyOK =
        renderRegion(FA, FA->getBody(), FB, FB->getBody(), Depth + 1, Text);
    Mult = SavedMult;
    EnclosingTrips = SavedTrips;
    if (!BodyOK)
      return false;
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  if (auto *WA = dyn_cast<WhileStmt>(A)) {
    auto *WB = cast<WhileStmt>(B);
    std::string Cnd = renderMatchedExpr(WA->getCond(), WB->getCond(), true);
    if (Cnd.empty())
      return false;
    Out.AfterLoopIterations += Mult * C.AssumedTrips;
    Out.AfterShared += Mult * C.AssumedTrips * Counter.exprSlots(WA->getCond());
    double SavedMult = Mult;
    Mult *= C.AssumedTrips;
    Text += In + "while (" + Cnd + ") {\n";
    bool BodyOK =
        renderRegion(WA, WA->getBody(), WB, WB->getBody(), Depth + 1, Text);
    Mult = SavedMult;
    if (!BodyOK)
      return false;
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  return false;
}

/// Variables declared by \p S (at any depth) that are referenced outside \p S
/// in \p Later.
static void collectDecls(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        Out.insert(V);
  for (const Stmt *C : S->children())
    collectDecls(C, Out);
}
static void collectRefs(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *R = dyn_cast<DeclRefExpr>(S))
    if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
      Out.insert(V);
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        if (V->getInit())
          collectRefs(V->getInit(), Out);
  for (const Stmt *C : S->children())
    collectRefs(C, Out);
}

bool Merger::renderGuarded(const std::vector<const Stmt *> &Run, Side Sd,
                           unsigned Depth, std::string &Text,
                           const std::set<const VarDecl *> &UsedLater) {
  if (Run.empty())
    return true;
  double RunSlots = 0;
  bool Straight = true;
  for (const Stmt *S : Run) {
    RunSlots += Counter.slots(S);
    Straight = Straight && isa<Expr>(S) && isStraightLine(S);
  }
  (Sd == SideA ? Out.AfterGuardedA : Out.AfterGuardedB) += Mult * RunSlots;
  // nvcc predicates a short straight-line run instead of branching.
  if (!Straight || RunSlots > C.PredicateMaxSlots)
    Out.AfterGuards += Mult;
  std::string In = indent(Depth);
  Text += In + "if (" + (Sd == SideA ? Cond : "!" + Cond) + ") {\n";
  std::string In2 = indent(Depth + 1);
  for (const Stmt *S : Run) {
    auto *DS = dyn_cast<DeclStmt>(S);
    bool Hoist = false;
    if (DS)
      for (const Decl *D : DS->decls())
        if (UsedLater.count(cast<VarDecl>(D)))
          Hoist = true;
    if (!Hoist) {
      std::string T =
          reindent(withSemicolon(S, render(S, Sd, {}), SM, LO), S, Depth + 1);
      Notes.place(S, nullptr, In2 + T + "\n", In2, Text);
      continue;
    }
    // Declared here, used after the guard: declare it before the merged
    // code (under a fresh name) and assign it here.
    std::string Assigned;
    for (const Decl *D : DS->decls()) {
      auto *V = cast<VarDecl>(D);
      QualType T = V->getType();
      if (T.isConstQualified() || T->isReferenceType() ||
          (V->getInit() && (T->isArrayType() || T->isRecordType())) ||
          (V->getInit() && V->getInitStyle() != VarDecl::CInit)) {
        Out.Refusal =
            "`" + V->getNameAsString() + "` (line " +
            std::to_string(SM.getExpansionLineNumber(V->getLocation())) +
            ") would have to be declared before its initialiser, "
            "which its type or initialisation does not allow";
        return false;
      }
      std::string Decl = declarator(V, Sd);
      if (Decl.empty())
        return false;
      Hoisted.push_back(Decl + ";");
      if (V->getInit())
        Assigned += In2 + Rename[V] + " = " + render(V->getInit(), Sd, {}) +
                    ";\n";
    }
    Notes.place(S, nullptr, Assigned, In2, Text);
  }
  Text += In + "}\n";
  return true;
}

bool Merger::renderSeq(const std::vector<const Stmt *> &A,
                       const std::vector<const Stmt *> &B, unsigned Depth,
                       std::string &Text) {
  std::vector<Step> Steps = align(A, B);
  // Fix the pairs: a pair that does not match once the final variable
  // pairing is known is split into two guarded statements.
  for (bool Changed = true; Changed;) {
    Changed = false;
    // Declarations of matched pairs (and of matched loops' counters) pair
    // their variables.
    for (Step &S : Steps)
      if (S.K == Step::Match)
        if (const DeclStmt *DA = pairedDecl(S.A)) {
          auto *VA = cast<VarDecl>(DA->getSingleDecl());
          auto *VB = cast<VarDecl>(pairedDecl(S.B)->getSingleDecl());
          Partner[VA] = VB;
        }
    for (size_t I = 0; I < Steps.size(); ++I) {
      Step &S = Steps[I];
      if (S.K != Step::Match || pairScore(S.A, S.B, false) > 0)
        continue;
      if (const DeclStmt *DA = pairedDecl(S.A))
        Partner.erase(cast<VarDecl>(DA->getSingleDecl()));
      Step B = {Step::OnlyB, nullptr, S.B};
      S = {Step::OnlyA, S.A, nullptr};
      Steps.insert(Steps.begin() + I + 1, B);
      Changed = true;
      break;
    }
  }
  // Names: merged variables share one name; a guarded declaration used after
  // its guard is hoisted under a fresh name.
  for (Step &S : Steps)
    if (S.K == Step::Match)
      if (const DeclStmt *DA = pairedDecl(S.A)) {
        auto *VA = cast<VarDecl>(DA->getSingleDecl());
        auto *VB = cast<VarDecl>(pairedDecl(S.B)->getSingleDecl());
        if (VA->getName() != VB->getName()) {
          std::string N =
              fresh(VA->getNameAsString() + "_" + VB->getNameAsString());
          Rename[VA] = Rename[VB] = N;
        }
      }
  // Guarded runs and what the statements after each run use.
  std::set<const VarDecl *> Hoist;
  for (size_t I = 0; I < Steps.size(); ++I) {
    if (Steps[I].K == Step::Match)
      continue;
    size_t J = I;
    Step::Kind K = Steps[I].K;
    while (J < Steps.size() && Steps[J].K == K)
      ++J;
    std::set<const VarDecl *> Declared, Used;
    for (size_t R = I; R < J; ++R)
      collectDecls(K == Step::OnlyA ? Steps[R].A : Steps[R].B, Declared);
    for (size_t R = J; R < Steps.size(); ++R) {
      collectRefs(Steps[R].A, Used);
      collectRefs(Steps[R].B, Used);
    }
    for (const VarDecl *V : Declared)
      if (Used.count(V)) {
        Hoist.insert(V);
        if (!Rename.count(V))
          Rename[V] = fresh(V->getNameAsString() +
                            (K == Step::OnlyA ? "_then" : "_else"));
      }
    I = J - 1;
  }
  for (size_t I = 0; I < Steps.size(); ++I) {
    Step &S = Steps[I];
    if (S.K == Step::Match) {
      unsigned SelectsBefore = Out.Selects;
      bool Simple =
          !isa<IfStmt>(S.A) && !isa<ForStmt>(S.A) && !isa<WhileStmt>(S.A);
      std::string Piece;
      if (!renderPair(S.A, S.B, Depth, Piece))
        return false;
      Notes.place(S.A, S.B, Piece, indent(Depth), Text);
      if (Simple)
        Out.AfterShared +=
            Mult * (Counter.slots(S.A) +
                    (Out.Selects - SelectsBefore) * C.IssueSlots.Select);
      ++Out.Matched;
      Out.Saved += pairScore(S.A, S.B, false);
      continue;
    }
    std::vector<const Stmt *> Run;
    Step::Kind K = S.K;
    while (I < Steps.size() && Steps[I].K == K) {
      Run.push_back(K == Step::OnlyA ? Steps[I].A : Steps[I].B);
      ++I;
    }
    --I;
    if (K == Step::OnlyA)
      Out.GuardedA += Run.size();
    else
      Out.GuardedB += Run.size();
    if (!renderGuarded(Run, K == Step::OnlyA ? SideA : SideB, Depth, Text,
                       Hoist))
      return false;
  }
  return true;
}

MergeOutcome Merger::run(const IfStmt *If) {
  const Stmt *Then = If->getThen(), *Else = If->getElse();
  if (!Else) {
    Out.Refusal = "the `if` has no else side: there is nothing to merge";
    return Out;
  }
  if (isa<IfStmt>(Else)) {
    Out.Refusal = "the else side is an `else if` chain";
    return Out;
  }
  if (If->getInit() || If->getConditionVariable()) {
    Out.Refusal = "the `if` declares a variable in its condition";
    return Out;
  }
  for (SourceLocation L :
       {If->getBeginLoc(), If->getEndLoc(), If->getCond()->getBeginLoc()})
    if (L.isMacroID()) {
      Out.Refusal = "the branch is written with macro `" + macroAt(L) +
                    "` (line " + std::to_string(SM.getExpansionLineNumber(L)) +
                    ")";
      return Out;
    }
  std::string Why;
  if (!scanSide(Then, SideA, Why) || !scanSide(Else, SideB, Why) ||
      !checkMacros(Then, Why) || !checkMacros(Else, Why)) {
    Out.Refusal = Why;
    return Out;
  }
  Out.Total = cost(Then) + cost(Else);
  Out.IssueCond = Counter.exprSlots(If->getCond());
  unsigned Line = SM.getExpansionLineNumber(If->getBeginLoc());
  Cond = fresh("ww_cond_" + std::to_string(Line));
  unsigned Col = SM.getExpansionColumnNumber(If->getBeginLoc());
  BaseIndent = std::string(Col > 0 ? Col - 1 : 0, ' ');
  std::string Body;
  if (!renderSeq(body(If, Then), body(If, Else), 1, Body) ||
      !MacroProblem.empty()) {
    if (Out.Refusal.empty())
      Out.Refusal = MacroProblem.empty()
                        ? "the aligned sides could not be written back"
                        : MacroProblem;
    return Out;
  }
  // The decision's comment goes first (BranchMerge fills it in), then the
  // condition, which stands for the branch's own lines and their comments.
  std::string CondLine = indent(1) + "const bool " + Cond + " = " +
                         render(If->getCond(), SideA, {}) + ";\n";
  std::string Head;
  sideComments(Then, Else, false, 1, Head);
  for (const std::string &H : Hoisted)
    Head += indent(1) + H + "\n";
  sideComments(Then, Else, true, 1, Body);
  // What no statement took (a comment inside the condition's parentheses)
  // goes with the condition: trailing it when it is one.
  unsigned Begin, End;
  if (statementExtent(SM, LO, If, Begin, End)) {
    llvm::StringRef File =
        SM.getBufferData(SM.getFileID(SM.getExpansionLoc(If->getBeginLoc())));
    std::vector<SourceComment> Left =
        Notes.leftOver(File, Begin, End, CondLine + Head + Body);
    if (Left.size() == 1)
      CondLine.insert(CondLine.size() - 1, " " + Left.front().Text);
    else
      for (const SourceComment &L : Left)
        CondLine += commentLines(L.Text, indent(1));
  }
  Out.Text = "{\n" + indent(1) + DecisionMark + "\n" + CondLine + Head +
             Body + BaseIndent + "}";
  Out.OK = true;
  for (const std::string &A : Counter.assumptions())
    if (std::find(Out.Assumptions.begin(), Out.Assumptions.end(), A) ==
        Out.Assumptions.end())
      Out.Assumptions.push_back(A);
  return Out;
}

} // namespace

MergeOutcome mergeBranch(ASTContext &Ctx, const FunctionDecl *FD,
                         const IfStmt *If, const CostTable &Costs,
                         bool AllowControlFlow, bool KeepContraction) {
  Merger M(Ctx, FD, Costs, AllowControlFlow, KeepContraction);
  return M.run(If);
}

} // namespace warpwise
