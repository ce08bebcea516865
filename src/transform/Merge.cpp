//===- Merge.cpp - Aligning and merging the two sides of a branch ---------===//
//
// Legality (what the sides may hold, and the macros the rewriting could not
// keep intact) and the whole branch's rewrite; see MergeEngine.h for where
// the alignment and the rendering are.
//
//===----------------------------------------------------------------------===//
#include "MergeEngine.h"
#include "SideEffects.h"
#include "SourceText.h"

#include "warpwise/Transform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>

namespace warpwise {
namespace merge {

// --- Legality ----------------------------------------------------------------

bool Merger::scanSide(const Stmt *S, Side Sd, std::string &Why, bool InExpr) {
  if (!S)
    return true;
  // Statements are written back whole, so each must be one stretch of the
  // file. An operand inside a macro's body (`x = NEXT(v)`) need not be:
  // what is written separately (selects, renamed names, merged calls)
  // is checked where it is chosen, and render() refuses the rest.
  if (!isa<CompoundStmt>(S) && !InExpr &&
      !fileRange(S->getSourceRange()).isValid()) {
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
    if (!scanSide(Child, Sd, Why, isa<Expr>(S)))
      return false;
  return true;
}

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
      if ((Local[SideA].count(V) || Local[SideB].count(V) || Rename.count(V)) &&
          nameInFile(R->getLocation()).isInvalid())
        return Problem(R->getLocation(), "`" + V->getNameAsString() +
                                             "`, a variable of one side, is "
                                             "used");
  for (const Stmt *Child : S->children())
    if (!checkMacros(Child, Why))
      return false;
  return true;
}

// --- The whole branch --------------------------------------------------------

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
  if (hasDirective(text(If->getSourceRange()), LO)) {
    Out.Refusal = "a preprocessor line inside the branch (its rewrite would "
                  "keep only the lines this parse saw, as if the other "
                  "side of an #if, or nvcc's device pass, did not exist)";
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
  BranchLoc = SM.getExpansionLoc(If->getBeginLoc());
  ScopeNames = declaredNames(FD, &ScopeHasUsingDirective);
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
  // The merged callees, before anything that calls them.
  for (const CalleeMerge *M : UsedCallees) {
    Head += M->Definition;
    Out.Total += M->Total;
    Out.MergedCalls.push_back(M->Pair);
    for (const auto &B : M->Bodies)
      if (llvm::none_of(Out.CalleeBodies,
                        [&](const auto &O) { return O.first == B.first; }))
        Out.CalleeBodies.push_back(B);
  }
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
  Out.Text = "{\n" + indent(1) + DecisionMark + "\n" + CondLine + Head + Body +
             BaseIndent + "}";
  noteUnmergedCalls(Then, Else);
  Out.OK = true;
  for (const std::string &A : Counter.assumptions())
    if (std::find(Out.Assumptions.begin(), Out.Assumptions.end(), A) ==
        Out.Assumptions.end())
      Out.Assumptions.push_back(A);
  return Out;
}

} // namespace merge

using namespace clang;

MergeOutcome mergeBranch(ASTContext &Ctx, const FunctionDecl *FD,
                         const IfStmt *If, const CostTable &Costs,
                         bool AllowControlFlow, bool KeepContraction) {
  merge::Merger M(Ctx, FD, Costs, AllowControlFlow, KeepContraction);
  return M.run(If);
}

} // namespace warpwise
