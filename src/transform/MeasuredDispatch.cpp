//===- MeasuredDispatch.cpp - Let the run choose rewrite or original ------===//
//
// Legal where every run of the kernel in this file goes through a launch
// the dispatch can rewrite: the launches are statements of their own in
// host code of the main file, after the kernel, and nothing else names the
// kernel (a cudaFuncSetAttribute or a pointer to it would reach the rewrite
// only). Launches from other files, which this rewrite cannot see, run the
// rewrite: the model's decision, as without dispatch.
//
//===----------------------------------------------------------------------===//
#include "MeasuredDispatch.h"

#include "../analysis/MemoryAccess.h"

#include "Candidates.h"
#include "SplitCandidate.h"
#include "SplitLaunch.h"
#include "SplitText.h"

#include "warpwise/Embedded.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

/// Where the translation unit names a kernel other than as the callee of a
/// host launch: its address taken (cudaFuncSetAttribute, a pointer), or a
/// launch from device code, which the host-side dispatch cannot wrap.
class OtherUses : public RecursiveASTVisitor<OtherUses> {
public:
  OtherUses(const FunctionDecl *K, ASTContext &Ctx)
      : Kernel(K->getCanonicalDecl()),
        Template(K->getDescribedFunctionTemplate()), Ctx(Ctx),
        SM(Ctx.getSourceManager()) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *C) {
    const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
    Callees.push_back(Callee);
    if (!names(Callee))
      return true;
    if (inDeviceCode(C))
      note(C->getBeginLoc(), "is launched from device code");
    // `using ns::k; k<<<...>>>`: the kept original's name is not in scope.
    bool Using = false;
    if (auto *Ref = dyn_cast<DeclRefExpr>(Callee))
      Using = isa<UsingShadowDecl>(Ref->getFoundDecl());
    else if (auto *Lookup = dyn_cast<OverloadExpr>(Callee))
      for (const NamedDecl *D : Lookup->decls())
        Using |= isa<UsingShadowDecl>(D);
    if (Using)
      note(C->getBeginLoc(), "is launched through a using-declaration");
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (names(E) && !isCallee(E))
      note(E->getBeginLoc(), "is named other than by a launch");
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    if (names(E) && !isCallee(E))
      note(E->getBeginLoc(), "is named other than by a launch");
    return true;
  }

  std::string Problem;

private:
  const FunctionDecl *Kernel;
  const FunctionTemplateDecl *Template;
  ASTContext &Ctx;
  const SourceManager &SM;
  std::vector<const Expr *> Callees;

  /// Whether \p S is in a __global__ or __device__ function, a member
  /// function or a lambda included. A lambda written without attributes is
  /// implicitly __host__ __device__ and runs where the function that holds
  /// it runs: a host function's `[&] { k<<<g, b>>>(...); }` is host code.
  bool inDeviceCode(const Stmt *S) const {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    while (!Parents.empty()) {
      const DynTypedNode &P = Parents[0];
      const FunctionDecl *F = P.get<FunctionDecl>();
      if (const auto *L = P.get<LambdaExpr>())
        F = L->getCallOperator();
      if (F) {
        const auto *Method = dyn_cast<CXXMethodDecl>(F);
        const auto *Device = F->getAttr<CUDADeviceAttr>();
        if (F->hasAttr<CUDAGlobalAttr>() || (Device && !Device->isImplicit()))
          return true;
        if (!Device || !Method || !Method->getParent()->isLambda())
          return false;
      }
      Parents = Ctx.getParents(P);
    }
    return false;
  }

  bool isKernel(const NamedDecl *D) const {
    D = D->getUnderlyingDecl();
    if (auto *F = dyn_cast<FunctionDecl>(D)) {
      if (F->getCanonicalDecl() == Kernel)
        return true;
      const FunctionTemplateDecl *P = F->getPrimaryTemplate();
      return Template && P &&
             P->getCanonicalDecl() == Template->getCanonicalDecl();
    }
    auto *FT = dyn_cast<FunctionTemplateDecl>(D);
    return Template && FT &&
           FT->getCanonicalDecl() == Template->getCanonicalDecl();
  }
  bool names(const Expr *E) const {
    if (auto *Ref = dyn_cast<DeclRefExpr>(E))
      return isKernel(Ref->getDecl());
    if (auto *Lookup = dyn_cast<OverloadExpr>(E))
      for (const NamedDecl *D : Lookup->decls())
        if (isKernel(D))
          return true;
    return false;
  }
  // The launch is visited before its callee (pre-order).
  bool isCallee(const Expr *E) const {
    return std::find(Callees.begin(), Callees.end(), E) != Callees.end();
  }
  void note(SourceLocation Loc, const char *What) {
    if (Problem.empty())
      Problem = std::string("the kernel ") + What + " at line " +
                std::to_string(SM.getExpansionLineNumber(Loc)) +
                ", which would reach the rewrite only";
  }
};

/// The functions \p FD's body calls, as written (calleeCandidates: direct
/// callees and a dependent call's candidates; launches are not calls), each
/// as its template's pattern when it is an instantiation.
std::vector<const FunctionDecl *> calleesOf(const FunctionDecl *FD) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const FunctionDecl *> Found;
    bool VisitCallExpr(CallExpr *C) {
      for (const FunctionDecl *F : calleeCandidates(C)) {
        const FunctionDecl *P = F->getTemplateInstantiationPattern();
        Found.push_back(P ? P : F);
      }
      return true;
    }
  } F;
  if (FD->getBody())
    F.TraverseStmt(FD->getBody());
  return F.Found;
}

/// The first function \p FD calls, directly or through others, whose
/// definition an earlier transformation of this pass rewrote; null if none.
/// A kernel's kept original would call its rewrite.
const FunctionDecl *rewrittenCallee(const TransformContext &TC,
                                    const FunctionDecl *FD) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  std::set<const FunctionDecl *> Seen = {FD->getCanonicalDecl()};
  std::vector<const FunctionDecl *> Work = {FD};
  while (!Work.empty()) {
    const FunctionDecl *F = Work.back();
    Work.pop_back();
    for (const FunctionDecl *C : calleesOf(F)) {
      const FunctionDecl *Def = nullptr;
      if (!C->hasBody(Def) || !Seen.insert(Def->getCanonicalDecl()).second)
        continue;
      CharSourceRange R = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Def->getSourceRange()), SM,
          TC.Ctx.getLangOpts());
      if (R.isValid() &&
          touched(TC.Applied, TC.fileOf(R.getBegin()),
                  SM.getFileOffset(R.getBegin()), SM.getFileOffset(R.getEnd())))
        return Def;
      Work.push_back(Def);
    }
  }
  return nullptr;
}

/// The launch \p L as a measured dispatch between the rewrite and the
/// original, tagged \p Tag.
std::string dispatchLaunch(llvm::StringRef MainText, const LaunchSite &L,
                           const std::string &Tag) {
  std::string Ind = indentBefore(MainText, L.Begin);
  std::string G = "ww_grid_" + L.Tag, Bl = "ww_block_" + L.Tag,
              Site = "ww_msite_" + L.Tag, Plan = "ww_mplan_" + L.Tag,
              Cfg = G + ", " + Bl + ", " + L.shared() + ", " + L.stream();
  std::string NL = "\n" + Ind + "  ";
  std::string Key = measuredKeyArgument(L, NL);
  return "{ // warpwise " + Tag + ": measured dispatch launch" + NL +
         llvm::StringRef(L.Temps).rtrim().str() + (L.Temps.empty() ? "" : NL) +
         "dim3 const " + G + "(" + L.Config[0] + ");" + NL + "dim3 const " +
         Bl + "(" + L.Config[1] + ");" + NL + "static ww_measured_site " +
         Site + ";" + NL + "ww_measured_plan " + Plan +
         " = ww_measured_begin(" + NL + "    " + Site + ", " + G + ", " + Bl +
         ", " + L.shared() + ", " + L.stream() + Key + ");" + NL + "if (" +
         Plan + ".version != 0u)" + NL + "  " + L.Callee + L.TemplateArgs +
         "<<<" + Cfg + ">>>(" + L.Args + ");" + NL + "else" + NL + "  " +
         L.Callee + KeptOriginalSuffix + L.TemplateArgs + "<<<" + Cfg + ">>>(" +
         L.Args + ");" + NL + "ww_measured_end(" + Plan + ");\n" + Ind + "}";
}

/// One run of the dispatch over a file.
class DispatchRun {
public:
  DispatchRun(TransformContext &TC, std::vector<Decision> &Decisions,
              std::vector<Change> &Changes, const char *Name)
      : TC(TC), Decisions(Decisions), Changes(Changes), Name(Name) {}

  void kernel(const FunctionDecl *FD);

private:
  TransformContext &TC;
  std::vector<Decision> &Decisions;
  std::vector<Change> &Changes;
  const char *Name;
  /// Where this run wrote the runtime's include (-1: nowhere yet).
  unsigned RuntimeAddedAt = -1u;

  /// Whether the namespace (or class) of \p FD declares \p Function.
  bool declaresBeside(const FunctionDecl *FD,
                      const std::string &Function) const {
    const DeclContext *In = FD->getDeclContext()->getRedeclContext();
    return !In->lookup(DeclarationName(&TC.Ctx.Idents.get(Function))).empty();
  }
  /// Whether an earlier transformation of this pass writes \p Definition
  /// (a name and its opening parenthesis).
  bool earlierDefines(const std::string &Definition) const {
    for (const tooling::Replacement &R : TC.Applied)
      if (R.getReplacementText().contains(Definition))
        return true;
    return false;
  }
  void report(Decision &D, SourceLocation Loc, const char *Code) {
    const SourceManager &SM = TC.Ctx.getSourceManager();
    TC.Log.report(Code, Severity::Remark, TC.displayOf(Loc), D.Line,
                  SM.getExpansionColumnNumber(Loc),
                  std::string(Name) + ": " + D.Reason);
    Decisions.push_back(D);
  }
  std::string problem(const FunctionDecl *FD, std::vector<LaunchSite> &Sites);
  void apply(const FunctionDecl *FD, Decision &D,
             const std::vector<LaunchSite> &Sites, unsigned KBegin,
             unsigned KEnd);
};

/// Why the launches of \p FD cannot all go through a dispatch, or "";
/// fills \p Sites.
std::string DispatchRun::problem(const FunctionDecl *FD,
                                 std::vector<LaunchSite> &Sites) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  if (!SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
    return "the kernel is in a header, and the dispatch keeps the originals "
           "of kernels in the main file only";
  if (!TC.Ctx.getLangOpts().CPlusPlus11)
    return "the dispatch's host code needs C++11 (std::mutex), and this file "
           "is parsed as an earlier standard";
  // The copy is the definition's text alone.
  const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate();
  const Decl *Earlier = FT ? static_cast<const Decl *>(FT->getPreviousDecl())
                           : static_cast<const Decl *>(FD->getPreviousDecl());
  if (Earlier)
    return "the kernel is declared before its definition (line " +
           std::to_string(SM.getExpansionLineNumber(Earlier->getLocation())) +
           "), and a copy of the definition would not carry that "
           "declaration's attributes and linkage";
  if (FD->getQualifier())
    return "the kernel is defined out of line, under a qualified name";
  if (FD->getLocation().isMacroID())
    return "the kernel's name is written by a macro";
  if (FT)
    for (const FunctionDecl *Spec : FT->specializations())
      if (Spec->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
        return "the template has an explicit specialization (line " +
               std::to_string(SM.getExpansionLineNumber(Spec->getLocation())) +
               "), which the copy of the template would not have";
  OtherUses Uses(FD, TC.Ctx);
  Uses.TraverseDecl(TC.Ctx.getTranslationUnitDecl());
  if (!Uses.Problem.empty())
    return Uses.Problem;
  SplitBranch B;
  B.Kernel = FD;
  B.Template = FD->getDescribedFunctionTemplate();
  B.Name = FD->getNameAsString();
  std::vector<const CUDAKernelCallExpr *> Calls;
  std::string Why = findLaunchSites(TC, B, Calls, Sites);
  if (!Why.empty())
    return Why;
  for (const CUDAKernelCallExpr *Call : Calls)
    for (const Expr *A : Call->arguments())
      if (isa<CXXDefaultArgExpr>(A))
        return "the launch at line " +
               std::to_string(SM.getExpansionLineNumber(Call->getBeginLoc())) +
               " leaves an argument to its default";
  for (const LaunchSite &L : Sites)
    if (touched(TC.Applied, TC.File, L.Begin, L.Begin + L.Length))
      return "the launch at line " + std::to_string(L.Line) +
             " is rewritten by an earlier transformation (split, refill or "
             "external share), which decides what runs there";
  return "";
}

void DispatchRun::apply(const FunctionDecl *FD, Decision &D,
                        const std::vector<LaunchSite> &Sites, unsigned KBegin,
                        unsigned KEnd) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  std::string Kernel = D.Kernel;
  TC.takeDecisionId(D, "WW4006", TC.Contents);
  std::string Tag = "WW4006 " + D.Id;
  std::vector<tooling::Replacement> Edits;
  unsigned IncludeAt = runtimeIncludeAt(TC, FD, TC.Contents);
  if (RuntimeAddedAt > IncludeAt &&
      !runtimeVisibleAt(TC, FD->getLocation(), TC.File, IncludeAt)) {
    Edits.emplace_back(TC.File, IncludeAt, 0, runtimeIncludeLine("WW4006"));
    RuntimeAddedAt = IncludeAt;
  }
  // The original, renamed, right after the rewrite: a comment above the
  // kernel stays with the kernel that keeps its name.
  unsigned NameAt =
      SM.getFileOffset(SM.getExpansionLoc(FD->getLocation())) - KBegin;
  std::string Copy = TC.Contents.slice(KBegin, KEnd).str();
  Copy.insert(NameAt + Kernel.size(), KeptOriginalSuffix);
  // Internal linkage: only this file's launches run the kept original.
  if (FD->isExternallyVisible() && FD->getStorageClass() != SC_Static) {
    unsigned DeclAt = SM.getFileOffset(SM.getExpansionLoc(FD->getBeginLoc()));
    if (DeclAt >= KBegin && DeclAt - KBegin <= NameAt)
      Copy.insert(DeclAt - KBegin, "static ");
  }
  Edits.emplace_back(
      TC.File, KEnd, 0,
      "\n\n" +
          TC.decisionComment(D, "the original of `" + Kernel +
                                    "`, which the measured dispatch runs "
                                    "where it is faster") +
          "\n" + Copy);
  llvm::StringRef Main = SM.getBufferData(SM.getMainFileID());
  for (const LaunchSite &L : Sites)
    Edits.emplace_back(TC.File, L.Begin, L.Length,
                       dispatchLaunch(Main, L, Tag));
  Changes.push_back({"measured dispatch of `" + Kernel + "`", Edits});
}

void DispatchRun::kernel(const FunctionDecl *FD) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  std::string Kernel = FD->getNameAsString();
  // Kernels warpwise wrote, kernels whose original is already kept, and
  // kernels refilled (the refill's launches choose between the refill kernel
  // and the kernel as written, timed where this dispatch runs).
  if (llvm::StringRef(Kernel).contains("_ww_") ||
      declaresBeside(FD, Kernel + KeptOriginalSuffix) ||
      declaresBeside(FD, Kernel + "_ww_refill") ||
      earlierDefines(Kernel + "_ww_refill("))
    return;
  const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate();
  CharSourceRange KR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(FT ? FT->getSourceRange()
                                        : FD->getSourceRange()),
      SM, TC.Ctx.getLangOpts());
  if (KR.isInvalid())
    return; // Written by a macro: nothing in it was rewritten either.
  unsigned KBegin = SM.getFileOffset(KR.getBegin()),
           KEnd = SM.getFileOffset(KR.getEnd());
  // Only a kernel an earlier transformation of this pass rewrote in place
  // (in a project header too, which problem() declines with the reason), or
  // one that calls a function it rewrote, which is declined: the kept
  // original would run the rewritten callee.
  const FunctionDecl *Callee = rewrittenCallee(TC, FD);
  if (!Callee && !touched(TC.Applied, TC.fileOf(KR.getBegin()), KBegin, KEnd))
    return;
  SourceLocation Loc = FD->getLocation();
  Decision D;
  D.Transform = Name;
  D.Kernel = Kernel;
  D.Line = SM.getExpansionLineNumber(Loc);
  D.File = TC.decisionFileOf(Loc);
  TC.CurrentKernel = Kernel;
  TC.CurrentLine = D.Line;
  if (TC.DebugCrash)
    crashForTesting();
  Steer Steering = TC.steer(Name, FD, SourceLocation());
  if (Steering.disabled()) {
    D.Reason = "`" + Kernel + "`: disabled by " + Steering.Source +
               "; its launches run the rewrite";
    return report(D, Loc, "WW3006");
  }
  std::vector<LaunchSite> Sites;
  std::string Why;
  // An earlier pass's rewrite of the kernel is not the original.
  if (TC.textOf(KR.getBegin()).slice(KBegin, KEnd).contains("// warpwise WW"))
    Why = "an earlier pass rewrote the kernel, so its original is no longer "
          "in the text";
  if (Why.empty() && Callee)
    Why = "it calls `" + Callee->getNameAsString() +
          "`, which an earlier transformation rewrote, so its original would "
          "run the rewritten code too";
  if (Why.empty())
    Why = problem(FD, Sites);
  if (!Why.empty()) {
    D.Reason = "`" + Kernel + "`: no measured dispatch: " + Why +
               "; the rewrite runs on the model's decision alone";
    return report(D, Loc, "WW3006");
  }
  D.Applied = true;
  D.Measured = "chosen at run time";
  D.Reason =
      "`" + Kernel + "` keeps its original as `" + Kernel + KeptOriginalSuffix +
      "`; its " + std::to_string(Sites.size()) + " launch" +
      (Sites.size() == 1 ? "" : "es") +
      " in this file time both versions on their first launches of each "
      "shape, the rewrite first, and run the faster (-DWARPWISE_DISPATCH=0 "
      "or =1 pins one)" +
      (FD->isExternallyVisible() ? "; launches from other files run the rewrite"
                                 : "");
  apply(FD, D, Sites, KBegin, KEnd);
  report(D, Loc, "WW4006");
}

} // namespace

void MeasuredDispatch::run(TransformContext &TC,
                           std::vector<Decision> &Decisions,
                           std::vector<Change> &Changes) {
  DispatchRun Run(TC, Decisions, Changes, name());
  for (const FunctionDecl *FD : deviceCodeDefinitions(TC.Ctx, false, TC.Scope))
    if (FD->hasAttr<CUDAGlobalAttr>())
      Run.kernel(FD);
}

} // namespace warpwise
