//===- SplitCandidate.cpp - A kernel's branch to split, and its legality --===//
#include "SplitCandidate.h"

#include "../analysis/MemoryAccess.h"
#include "SideEffects.h"
#include "SourceText.h"
#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>

namespace warpwise {

using namespace clang;

namespace {

/// Finds what makes threads depend on each other, or the prefix re-run in
/// both kernels unsafe: the first reason found wins.
class ThreadIndependence : public RecursiveASTVisitor<ThreadIndependence> {
public:
  ThreadIndependence(const SourceManager &SM,
                     std::set<const FunctionDecl *> &Seen)
      : SM(SM), Seen(Seen) {}
  std::string Why;

  std::string at(SourceLocation L) const {
    return " (line " + std::to_string(SM.getExpansionLineNumber(L)) + ")";
  }
  bool VisitVarDecl(VarDecl *V) {
    if (Why.empty() && V->hasAttr<CUDASharedAttr>())
      Why = "it uses shared memory `" + V->getNameAsString() + "`" +
            at(V->getLocation());
    if (Why.empty() && V->getType().isVolatileQualified())
      Why = "it uses the volatile `" + V->getNameAsString() + "`";
    return true;
  }
  bool VisitCallExpr(CallExpr *C) {
    if (!Why.empty() || isa<CUDAKernelCallExpr>(C))
      return true;
    std::vector<const FunctionDecl *> Callees = calleeCandidates(C);
    for (const FunctionDecl *F : Callees) {
      if (F->getIdentifier() && F->getName().starts_with("__fetch_builtin"))
        return true;
      const CallSummary &S = summarizeFunction(F);
      if (!S.OrderedName.empty()) {
        // As the user wrote the call (`cg::sync(block)`), and what in it
        // orders the threads.
        std::string Written;
        CharSourceRange R = Lexer::makeFileCharRange(
            CharSourceRange::getTokenRange(C->getCallee()->getSourceRange()),
            SM, LangOptions());
        if (R.isValid())
          Written = Lexer::getSourceText(R, SM, LangOptions()).str();
        Why = "it calls `" +
              (Written.empty() || Written.size() > 60 ||
                       Written == S.OrderedName
                   ? S.OrderedName
                   : Written + "`, which calls `" + S.OrderedName) +
              "`" + at(C->getBeginLoc()) +
              ", so its threads are not independent";
        return true;
      }
      // Shared memory and volatile data inside a callee count too.
      const FunctionDecl *Def = F->getDefinition();
      if (!Def)
        if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
          Def = P->getDefinition();
      if (Def && Def->hasBody() && Seen.insert(Def).second)
        TraverseDecl(const_cast<FunctionDecl *>(Def));
    }
    if (Callees.empty() &&
        !(isa<CXXOperatorCallExpr>(C) && C->isTypeDependent()))
      Why = "it calls `" + calleeName(C) + "`" + at(C->getBeginLoc()) +
            " indirectly or through a name that depends on a template "
            "parameter";
    return true;
  }

private:
  const SourceManager &SM;
  std::set<const FunctionDecl *> &Seen;
};

/// Base variables of the memory an expression reads and writes.
struct MemoryUse {
  std::set<const VarDecl *> Reads, Writes;
  bool Unknown = false, UnknownRead = false;
  std::string UnknownWhy;
  std::string PrefixEffect; ///< A side effect that must not run twice.
};

MemoryUse memoryOf(const Stmt *S, const FunctionDecl *FD,
                   const SourceManager &SM) {
  Accesses A = collectAccessesAllInstances(S, FD, SM);
  MemoryUse M;
  M.Reads = A.MemReads;
  M.Writes = A.MemWrites;
  M.Unknown = A.UnknownWrite || A.OpaqueCall;
  M.UnknownRead = A.UnknownRead;
  if (A.OpaqueCall)
    M.UnknownWhy = "the call to `" + A.OpaqueName + "` (line " +
                   std::to_string(SM.getExpansionLineNumber(
                       A.OpaqueCall->getBeginLoc())) +
                   ") has unknown effects: " + A.OpaqueWhy;
  else if (A.UnknownWrite)
    M.UnknownWhy = "a store (line " + std::to_string(A.FirstStoreLine) +
                   ") goes through a pointer warpwise cannot name";
  if (A.FirstStoreLine)
    M.PrefixEffect = "a store (line " + std::to_string(A.FirstStoreLine) + ")";
  return M;
}

/// The reads of the prefix and the condition, and the first side effect of
/// the prefix: the code that runs in both kernels.
MemoryUse memoryBeforeBranch(const SplitBranch &B, const SourceManager &SM) {
  MemoryUse Pre;
  for (const Stmt *S : B.Prefix) {
    MemoryUse M = memoryOf(S, B.Kernel, SM);
    Pre.Reads.insert(M.Reads.begin(), M.Reads.end());
    Pre.UnknownRead |= M.UnknownRead;
    if (!M.Writes.empty() || M.Unknown) {
      Pre.PrefixEffect = M.PrefixEffect.empty() || !M.UnknownWhy.empty()
                             ? M.UnknownWhy
                             : M.PrefixEffect;
      break;
    }
  }
  return Pre;
}

/// The writes of the two sides and the suffix: what runs after the branch.
MemoryUse memoryAfterBranch(const SplitBranch &B, const SourceManager &SM) {
  MemoryUse Rest = memoryOf(B.If->getThen(), B.Kernel, SM);
  MemoryUse ElseM = memoryOf(B.If->getElse(), B.Kernel, SM);
  Rest.Writes.insert(ElseM.Writes.begin(), ElseM.Writes.end());
  if (Rest.UnknownWhy.empty())
    Rest.UnknownWhy = ElseM.UnknownWhy;
  Rest.Unknown |= ElseM.Unknown;
  for (const Stmt *S : B.Suffix) {
    MemoryUse M = memoryOf(S, B.Kernel, SM);
    Rest.Writes.insert(M.Writes.begin(), M.Writes.end());
    if (Rest.UnknownWhy.empty())
      Rest.UnknownWhy = M.UnknownWhy;
    Rest.Unknown |= M.Unknown;
  }
  return Rest;
}

/// Why the second kernel could see what the first one wrote: what the
/// prefix and the condition read (\p Pre) may be written by the sides or
/// the suffix (\p Rest); or "".
std::string aliasProblem(const MemoryUse &Pre, const MemoryUse &Rest,
                         AliasFacts &Facts) {
  std::string Alias;
  Facts.Used.clear();
  for (const VarDecl *R : Pre.Reads)
    for (const VarDecl *W : Rest.Writes)
      if (Alias.empty() && mayAlias(R, W, &Facts))
        Alias = "the condition's inputs are read through `" +
                R->getNameAsString() + "`, which may alias `" +
                W->getNameAsString() +
                "` that the branch writes (neither is __restrict__); the "
                "second kernel could see the first one's writes";
  if (Alias.empty() && Rest.Unknown)
    Alias = Rest.UnknownWhy.empty()
                ? "the branch writes memory warpwise cannot name"
                : Rest.UnknownWhy;
  if (Alias.empty() && Pre.UnknownRead && !Rest.Writes.empty())
    Alias = "the condition's inputs include a load warpwise cannot name, "
            "and the branch writes memory";
  return Alias;
}

} // namespace

const Stmt *SplitBranch::heavySide() const {
  return HeavyIsElse ? If->getElse() : If->getThen();
}

const Stmt *SplitBranch::lightSide() const {
  return HeavyIsElse ? If->getThen() : If->getElse();
}

std::string SplitBranch::heavyCondition() const {
  return HeavyIsElse ? "!(" + Cond + ")" : "(" + Cond + ")";
}

std::string SplitBranch::header(const std::string &NameSuffix,
                                const char *Extra) const {
  std::string H = Original.substr(0, BodyAt);
  H.insert(RParenAt, Extra);
  H.replace(NameAt, Name.size(), Name + NameSuffix);
  return H;
}

std::optional<SplitBranch> findSplitBranch(const TransformContext &TC,
                                           const FunctionDecl *FD) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
  if (!Body)
    return std::nullopt;
  SplitBranch B;
  B.Kernel = FD;
  B.Template = FD->getDescribedFunctionTemplate();
  B.Body = Body;
  B.Name = FD->getNameAsString();
  for (const Stmt *S : Body->body()) {
    auto *I = dyn_cast<IfStmt>(S);
    if (I && I->getElse() && !B.If) {
      unsigned Line = SM.getExpansionLineNumber(I->getBeginLoc());
      unsigned Col = SM.getExpansionColumnNumber(I->getBeginLoc());
      for (const KernelInfo &K : TC.Analysis.Kernels)
        for (const BranchInfo &BI : K.Branches)
          if (BI.Function == B.Name && BI.Line == Line && BI.Column == Col &&
              BI.Level == Uniformity::Divergent) {
            B.If = I;
            B.Verdict = &BI;
          }
      if (B.If)
        break;
    }
    B.Prefix.push_back(S);
  }
  if (!B.If)
    return std::nullopt;
  // The branch is one of the body's statements; what follows it runs in
  // both kernels.
  B.Suffix.assign(
      std::next(std::find(Body->body_begin(), Body->body_end(), B.If)),
      Body->body_end());
  B.Line = SM.getExpansionLineNumber(B.If->getBeginLoc());
  B.Column = SM.getExpansionColumnNumber(B.If->getBeginLoc());
  // The kernel may be in a project header: its new kernels go there, its
  // launches are rewritten in the main file, and each edit names its file.
  B.File = TC.fileOf(FD->getLocation());
  B.Text = TC.textOf(FD->getLocation());
  B.Shown = TC.displayOf(FD->getLocation());
  B.HeavyIsElse =
      !B.Verdict || B.Verdict->Else.MaxLive >= B.Verdict->Then.MaxLive;
  return B;
}

std::string splitProblem(const TransformContext &TC, SplitBranch &B,
                         AliasFacts &Facts) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const FunctionDecl *FD = B.Kernel;
  const IfStmt *If = B.If;
  if (B.Template && llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
        return P->isParameterPack();
      }))
    return "it takes a function parameter pack; the launches' arguments "
           "cannot be matched to parameters before instantiation";
  // Threads must be independent: nothing shared, no barriers, no atomics.
  std::set<const FunctionDecl *> Seen{FD};
  ThreadIndependence TI(SM, Seen);
  TI.TraverseStmt(const_cast<CompoundStmt *>(B.Body));
  if (!TI.Why.empty())
    return TI.Why;
  // The prefix and the condition run in both kernels: no side effects, and
  // nothing they read may be written by either side or the suffix.
  MemoryUse Pre = memoryBeforeBranch(B, SM);
  if (!Pre.PrefixEffect.empty())
    return "the code before the branch has " + Pre.PrefixEffect +
           ", and it would run in both kernels";
  if (If->getCond()->isInstantiationDependent())
    return "its condition depends on template parameters, so it cannot "
           "be shown free of side effects before instantiation";
  if (hasEffects(If->getCond()) || If->getConditionVariable() ||
      If->getInit())
    return "its condition has side effects or declares a variable";
  MemoryUse CondM = memoryOf(If->getCond(), FD, SM);
  Pre.Reads.insert(CondM.Reads.begin(), CondM.Reads.end());
  Pre.UnknownRead |= CondM.UnknownRead;
  std::string Alias = aliasProblem(Pre, memoryAfterBranch(B, SM), Facts);
  if (!Alias.empty())
    return Alias;
  B.ReadsMemory = !Pre.Reads.empty() || Pre.UnknownRead;
  return "";
}

bool readSplitText(const TransformContext &TC, SplitBranch &B) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  const FunctionDecl *FD = B.Kernel;
  const IfStmt *If = B.If;
  // A template kernel's text starts at `template <...>`.
  CharSourceRange KR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(B.Template ? B.Template->getSourceRange()
                                                : FD->getSourceRange()),
      SM, LO);
  CharSourceRange IR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(If->getSourceRange()), SM, LO);
  B.Cond = writtenText(SM, LO, If->getCond()->getSourceRange());
  B.ThenText = writtenText(SM, LO, If->getThen()->getSourceRange());
  B.ElseText = writtenText(SM, LO, If->getElse()->getSourceRange());
  if (!KR.isValid() || !IR.isValid() || B.Cond.empty() || B.ThenText.empty() ||
      B.ElseText.empty())
    return false;
  B.ThenText = withSemicolon(If->getThen(), B.ThenText, SM, LO);
  B.ElseText = withSemicolon(If->getElse(), B.ElseText, SM, LO);
  B.Begin = SM.getFileOffset(KR.getBegin());
  B.End = SM.getFileOffset(KR.getEnd());
  B.IfBegin = SM.getFileOffset(IR.getBegin()) - B.Begin;
  B.IfEnd = SM.getFileOffset(IR.getEnd()) - B.Begin;
  if (!isa<CompoundStmt>(If->getElse())) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        If->getEndLoc(), tok::semi, SM, LO, false);
    if (Semi.isValid())
      B.IfEnd = SM.getFileOffset(Semi) - B.Begin;
  }
  B.NameAt = SM.getFileOffset(SM.getExpansionLoc(FD->getLocation())) - B.Begin;
  B.Original = B.Text.substr(B.Begin, B.End - B.Begin).str();
  B.Indent = std::string(B.Column > 0 ? B.Column - 1 : 0, ' ');
  B.BodyAt =
      SM.getFileOffset(SM.getExpansionLoc(B.Body->getLBracLoc())) - B.Begin;
  B.RParenAt = SM.getFileOffset(SM.getExpansionLoc(
                   FD->getFunctionTypeLoc().getRParenLoc())) -
               B.Begin;
  B.RBraceAt =
      SM.getFileOffset(SM.getExpansionLoc(B.Body->getRBracLoc())) - B.Begin;
  return true;
}

void findPrefixReturns(const TransformContext &TC, SplitBranch &B) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  // Early exits of the prefix must be top-level `if (...) return;`.
  std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *N,
                                                     bool TopIfThen) {
    if (!N)
      return;
    if (isa<ReturnStmt>(N)) {
      if (TopIfThen)
        B.PrefixReturns.insert(N);
      else if (B.PrefixProblem.empty())
        B.PrefixProblem =
            "the code before the branch returns from inside a "
            "nested statement (line " +
            std::to_string(SM.getExpansionLineNumber(N->getBeginLoc())) + ")";
      return;
    }
    for (const Stmt *Child : N->children())
      Scan(Child, false);
  };
  for (const Stmt *S : B.Prefix) {
    if (auto *I = dyn_cast<IfStmt>(S); I && !I->getElse()) {
      const Stmt *T = I->getThen();
      if (auto *CS = dyn_cast<CompoundStmt>(T); CS && CS->size() == 1)
        T = CS->body_front();
      Scan(I->getCond(), false);
      Scan(T, true);
    } else {
      Scan(S, isa<ReturnStmt>(S));
    }
  }
}

} // namespace warpwise
