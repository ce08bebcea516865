//===- BranchMerge.cpp - Shared driver of fusion and melding --------------===//
#include "BranchMerge.h"

#include "../plan/MergePlanner.h"
#include "Candidates.h"
#include "IfConvert.h"
#include "Merge.h"

#include <optional>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

namespace warpwise {

using namespace clang;

namespace {

bool hasControlFlow(const Stmt *S) {
  if (!S)
    return false;
  if (isa<IfStmt>(S) || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
      isa<DoStmt>(S) || isa<SwitchStmt>(S) || isa<CXXForRangeStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (hasControlFlow(C))
      return true;
  return false;
}

} // namespace

void BranchMergeTransform::run(TransformContext &TC,
                               std::vector<Decision> &Decisions,
                               std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<std::pair<const IfStmt *, const FunctionDecl *>> Found;
  for (const FunctionDecl *FD : deviceCodeDefinitions(Ctx, true, TC.Scope))
    for (const IfStmt *If : statementsIn<IfStmt>(FD->getBody()))
      if (If->getElse())
        Found.push_back({If, FD});
  for (auto [If, FD] : Found) {
    bool CF = hasControlFlow(If->getThen()) || hasControlFlow(If->getElse());
    if (CF != allowsControlFlow())
      continue; // The other transformation's candidate.
    if (If->getBeginLoc().isMacroID())
      continue;
    unsigned Begin = SM.getFileOffset(SM.getExpansionLoc(If->getBeginLoc()));
    SourceLocation EndLoc = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(If->getEndLoc()), 0, SM, Ctx.getLangOpts());
    if (!isa<CompoundStmt>(If->getElse())) {
      // `else x = y;`: the semicolon belongs to the statement.
      SourceLocation Semi = Lexer::findLocationAfterToken(
          SM.getExpansionLoc(If->getEndLoc()), tok::semi, SM, Ctx.getLangOpts(),
          false);
      if (Semi.isValid())
        EndLoc = Semi;
    }
    unsigned End = SM.getFileOffset(EndLoc);
    // The branch's file: the main file or a project header, whose offsets,
    // edits and messages these are.
    const std::string InFile = TC.fileOf(If->getBeginLoc());
    if (TC.claimed(InFile, Begin, End))
      continue; // An enclosing branch was rewritten already.
    TC.CurrentKernel = FD->getNameAsString();
    TC.CurrentLine = SM.getExpansionLineNumber(If->getBeginLoc());
    if (TC.DebugCrash)
      crashForTesting();
    unsigned Line = SM.getExpansionLineNumber(If->getBeginLoc());
    unsigned Col = SM.getExpansionColumnNumber(If->getBeginLoc());
    Steer Steering = TC.steer(name(), FD, If->getBeginLoc());
    if (Steering.disabled()) {
      Decision D;
      D.Transform = name();
      D.Kernel = FD->getNameAsString();
      D.Line = Line;
      D.File = TC.decisionFileOf(If->getBeginLoc());
      D.Reason = "if-else at line " + std::to_string(Line) + ": disabled by " +
                 Steering.Source + "; not considered";
      TC.Log.report("WW3001", Severity::Remark, TC.displayOf(If->getBeginLoc()),
                    Line, Col, std::string(name()) + ": " + D.Reason);
      Decisions.push_back(std::move(D));
      continue;
    }
    SteerScope Steered(TC, Steering, name());
    MergeCandidate C;
    C.If = If;
    C.FD = FD;
    C.File = InFile;
    C.Begin = Begin;
    C.End = End;
    std::string Fn = FD->getNameAsString();
    for (const KernelInfo &K : TC.Analysis.Kernels)
      for (const BranchInfo &B : K.Branches)
        if (B.Line == Line && B.Column == Col && B.Function == Fn)
          C.Branch = &B;
    for (const DeviceFunctionInfo &F : TC.Analysis.DeviceFunctions)
      for (const BranchInfo &B : F.Branches)
        if (B.Line == Line && B.Column == Col && B.Function == Fn)
          C.Branch = &B;
    MergeOutcome M = mergeBranch(Ctx, FD, If, TC.Costs, allowsControlFlow(),
                                 /*KeepContraction=*/!TC.FmadFalse);
    // Melding also considers the branch-free form with speculated stores.
    std::optional<SpeculationOutcome> BF;
    if (allowsControlFlow() && TC.MeldForm != "merged")
      BF = speculateStores(Ctx, FD, If, TC.Costs);
    std::string Text;
    Decision D = planMerge(TC, C, M, BF ? &*BF : nullptr, name(), Text);
    D.File = TC.decisionFileOf(If->getBeginLoc());
    if (D.Applied && D.Form != "branch-free" && !M.MergedCalls.empty())
      D.Reason += " (through calls: " + llvm::join(M.MergedCalls, "; ") +
                  (M.MergedCalls.size() == 1
                       ? " merged into one local function)"
                       : " merged, each pair into one local function)");
    if (!M.UnmergedCalls.empty())
      D.Reason += " (calls of two functions not merged into one: " +
                  llvm::join(M.UnmergedCalls, "; ") + ")";
    if (D.Applied && D.Form != "branch-free" && M.ProductSelects)
      D.Reason += " (" + std::to_string(M.ProductSelects) +
                  " select(s) of a floating-point product: bit-identical "
                  "only when built with -fmad=false, as --fmad=false says)";
    if (D.Applied) {
      TC.takeDecisionId(D, "WW4001", TC.textOf(If->getBeginLoc()));
      fillDecisionMark(
          Text, TC.decisionComment(
                    D, D.Form == "branch-free"
                           ? "made a divergent if-else branch-free"
                           : std::string(allowsControlFlow() ? "melded"
                                                             : "fused") +
                                 " the two sides of a divergent if-else"));
      Changes.push_back(
          {std::string(name()) + " of the if-else at line " +
               std::to_string(Line) + (D.File.empty() ? "" : " of " + D.File),
           {tooling::Replacement(InFile, Begin, End - Begin, Text)}});
      TC.Claimed.push_back({InFile, Begin, End});
    }
    TC.Log.report(D.Applied ? "WW4001" : "WW3001", Severity::Remark,
                  TC.displayOf(If->getBeginLoc()), Line, Col,
                  std::string(name()) + ": " + D.Reason);
    Decisions.push_back(std::move(D));
  }
}

} // namespace warpwise
