//===- MergeEngine.h - The engine behind mergeBranch ------------*- C++ -*-===//
//
// The Merger aligns the two sides of a branch and writes them back merged
// (see Merge.h for what it does and the invariant it keeps). Its work is in
// four files, by what it does:
//   Merge.cpp        legality (what the sides may contain, macros) and the
//                    whole branch's rewrite (Merger::run, mergeBranch);
//   MergeAlign.cpp   costs, matching two statements and the alignment;
//   MergeRender.cpp  writing matched pairs, guarded runs and selects back
//                    as source text;
//   MergeCallees.cpp matching the sides' calls of two different functions
//                    by merging their bodies (a Merger one level down).
// Only those files include this header.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_MERGE_ENGINE_H
#define WARPWISE_MERGE_ENGINE_H

#include "Comments.h"
#include "Merge.h"

#include "warpwise/ExecutionModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace warpwise {
namespace merge {

using namespace clang;

enum Side { SideA = 0, SideB = 1 };

/// A floating-point multiplication, which nvcc may contract with its
/// consumer (see Merger::selectable).
bool floatProduct(const Expr *E);

/// Whether \p Text holds a preprocessor directive (code copied statement
/// by statement would lose it, and keep only what this parse saw of an
/// #if).
bool hasDirective(llvm::StringRef Text, const LangOptions &LO);

/// The names \p F declares: its parameters, its template's parameters and
/// everything its body declares (variables, types, enumerators, using
/// declarations); \p UsingDirective: whether its body holds a
/// using-directive.
std::set<std::string> declaredNames(const FunctionDecl *F,
                                    bool *UsingDirective = nullptr);

class Merger {
public:
  Merger(ASTContext &Ctx, const FunctionDecl *FD, const CostTable &C,
         bool AllowCF, bool KeepContraction)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), FD(FD),
        Outer(FD), C(C), AllowCF(AllowCF), KeepContraction(KeepContraction),
        Notes(SM, LO), Counter(Ctx, C) {}

  MergeOutcome run(const IfStmt *If);

private:
  // --- Legality scans -------------------------------------------------------
  /// \p InExpr: \p S is an operand of an expression.
  bool scanSide(const Stmt *S, Side Sd, std::string &Why, bool InExpr = false);

  // --- Costs ---------------------------------------------------------------
  double cost(const Stmt *S) const;

  // --- Matching ------------------------------------------------------------
  struct Selects {
    std::vector<std::pair<const Expr *, const Expr *>> Points;
    /// Calls of two different __device__ functions matched as one call of
    /// their merged function (mergeCallees), innermost first.
    std::vector<std::pair<const CallExpr *, const CallExpr *>> Calls;
    void append(const Selects &O) {
      Points.insert(Points.end(), O.Points.begin(), O.Points.end());
      Calls.insert(Calls.end(), O.Calls.begin(), O.Calls.end());
    }
  };
  bool sameVar(const Expr *A, const Expr *B) const;
  bool matchExpr(const Expr *A, const Expr *B, Selects &Sel, bool Optimistic,
                 bool AllowRootSelect) const;
  bool selectable(const Expr *A, const Expr *B) const;
  /// Whether side A's \p A can be replaced where it is written.
  bool replaceable(const Expr *A) const;
  /// What the merged callees of \p S save, in cost units.
  double callSavings(const Selects &S) const;
  /// Savings of matching two statements; negative when they cannot match.
  double pairScore(const Stmt *A, const Stmt *B, bool Optimistic);

  struct Step {
    enum Kind { Match, OnlyA, OnlyB } K;
    const Stmt *A = nullptr, *B = nullptr;
  };
  std::vector<Step> align(const std::vector<const Stmt *> &A,
                          const std::vector<const Stmt *> &B);

  // --- Merging through calls (MergeCallees.cpp) ------------------------------
  /// Two different __device__ functions that the sides call, merged into
  /// one local function (a lambda at the head of the merged code) that
  /// takes the branch condition as its first parameter: the statements
  /// their bodies share are issued once, as for the sides.
  struct CalleeMerge {
    bool OK = false;
    std::string Refusal;
    /// Not the user's pair to merge (no body, the toolkit's): its refusal
    /// is not reported.
    bool Quiet = false;
    std::string Name;            ///< The lambda's name.
    std::string Pair;            ///< "`f` and `g`", for the remark.
    std::string Definition;      ///< Its definition, a statement.
    double Saved = 0, Total = 0; ///< Cost units, as MergeOutcome's.
    /// The merged body in the execution model's issue slots (MergeOutcome).
    double Shared = 0, GuardedA = 0, GuardedB = 0, Guards = 0;
    unsigned Selects = 0, ProductSelects = 0;
    /// The merged callees' bodies, nested ones included (MergeOutcome).
    std::vector<std::pair<unsigned, std::string>> Bodies;
  };
  /// The merge of \p A and \p B, made once per pair (matching calls it
  /// many times).
  const CalleeMerge &mergeCallees(const FunctionDecl *A,
                                  const FunctionDecl *B) const;
  /// Why \p A and \p B cannot be merged at all, or "".
  std::string calleePairProblem(const FunctionDecl *A,
                                const FunctionDecl *B) const;
  /// Out.UnmergedCalls: the k-th calls of the i-th statements of the sides
  /// \p Then and \p Else, of two functions whose merge was refused.
  void noteUnmergedCalls(const Stmt *Then, const Stmt *Else);
  /// Whether \p F is referenced outside Outer.
  bool referencedOutside(const FunctionDecl *F) const;
  /// Why the bodies of \p DA and \p DB, copied to the branch, could read
  /// other declarations or macros than where they are, or "".
  std::string lookupProblem(const FunctionDecl *DA,
                            const FunctionDecl *DB) const;
  /// Merges the bodies of \p A and \p B under the selector \p Sel into
  /// \p Body (this Merger's FD is A).
  bool mergeBodies(const FunctionDecl *A, const FunctionDecl *B,
                   const std::string &Sel, std::string &Body);
  /// The call of the merged function for side A's \p Call, its arguments
  /// printed with \p Replace.
  std::string
  renderMergedCall(const CallExpr *CallA, const CallExpr *CallB,
                   const std::map<const Stmt *, std::string> &Replace);

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
  /// \p V's declaration without its initialiser, under its new name when
  /// renamed: `float x_else[Q]`. \p First is the first declarator of the
  /// declaration \p V is in (`float a = 0, b;`), whose type specifiers the
  /// others share; the caller makes sure that every declarator there is a
  /// plain name. "" when the text cannot be taken from the file.
  std::string declarator(const VarDecl *V,
                         const VarDecl *First = nullptr) const;
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
  /// The function holding the branch (FD, or the caller whose callees a
  /// nested Merger merges): merged callees are defined before it.
  const FunctionDecl *Outer;
  const CostTable &C;
  bool AllowCF;
  bool KeepContraction; ///< nvcc's -fmad=true: see selectable().
  std::string Cond;
  std::string BaseIndent;
  std::set<const VarDecl *> Local[2];
  std::map<const VarDecl *, const VarDecl *> Partner;
  std::map<const VarDecl *, std::string> Rename;
  mutable std::set<std::string> Taken;
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
  /// The merged branch: where the merged callees' bodies are read.
  SourceLocation BranchLoc;
  unsigned CalleeDepth = 0; ///< Nesting of merged callees (at most 2).
  /// Names declared where this Merger's lambdas go: the caller's (and,
  /// nested, the enclosing merged callee's), and whether a using-directive
  /// is among them.
  std::set<std::string> ScopeNames;
  bool ScopeHasUsingDirective = false;
  /// Statements that follow the sequence renderSeq writes at depth 1 (a
  /// merged callee's return values): what they read is hoisted too.
  const Stmt *After[2] = {nullptr, nullptr};
  mutable std::map<std::pair<const FunctionDecl *, const FunctionDecl *>,
                   CalleeMerge>
      CalleeMerges;
  /// The merged callees the rendered text calls, in the order first used.
  std::vector<const CalleeMerge *> UsedCallees;
};

} // namespace merge
} // namespace warpwise

#endif
