//===- SplitLaunch.cpp - The launches a branch split rewrites -------------===//
#include "SplitLaunch.h"

#include "SideEffects.h"
#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace warpwise {

using namespace clang;

namespace {

/// The launches of a kernel as written: of the function itself, of a
/// specialization of it when it is a template, and launches inside function
/// templates whose callee still names the template (`k<T><<<...>>>`).
/// Instantiated copies of a launch are not visited: the source has one.
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(const FunctionDecl *K) : Kernel(K) {}
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *C) {
    if (launches(C))
      Launches.push_back(C);
    return true;
  }
  const FunctionDecl *Kernel;
  std::vector<const CUDAKernelCallExpr *> Launches;

private:
  bool launches(const CUDAKernelCallExpr *C) const {
    const FunctionTemplateDecl *FT = Kernel->getDescribedFunctionTemplate();
    if (const FunctionDecl *F = C->getDirectCallee()) {
      if (F->getCanonicalDecl() == Kernel->getCanonicalDecl())
        return true;
      const FunctionTemplateDecl *Primary = F->getPrimaryTemplate();
      return FT && Primary &&
             Primary->getCanonicalDecl() == FT->getCanonicalDecl();
    }
    auto *Lookup =
        dyn_cast<OverloadExpr>(C->getCallee()->IgnoreParenImpCasts());
    if (!Lookup || !FT)
      return false;
    for (const NamedDecl *D : Lookup->decls())
      if (D->getUnderlyingDecl()->getCanonicalDecl() == FT->getCanonicalDecl())
        return true;
    return false;
  }
};

/// `lab::pick` for `lab::pick<2><<<...>>>`: the callee up to its name.
std::string writtenCalleeName(const CUDAKernelCallExpr *Call,
                              const SourceManager &SM, const LangOptions &LO) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation End;
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee))
    End = Ref->getNameInfo().getLoc();
  else if (auto *Lookup = dyn_cast<OverloadExpr>(Callee))
    End = Lookup->getNameLoc();
  if (End.isInvalid())
    return "";
  return writtenText(SM, LO, SourceRange(Callee->getBeginLoc(), End));
}

/// `<T, 4>` as written after the callee's name, or "".
std::string writtenTemplateArgs(const CUDAKernelCallExpr *Call,
                                const SourceManager &SM,
                                const LangOptions &LO) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  SourceLocation L, R;
  if (auto *Ref = dyn_cast<DeclRefExpr>(Callee)) {
    if (Ref->hasExplicitTemplateArgs()) {
      L = Ref->getLAngleLoc();
      R = Ref->getRAngleLoc();
    }
  } else if (auto *Lookup = dyn_cast<OverloadExpr>(Callee)) {
    if (Lookup->hasExplicitTemplateArgs()) {
      L = Lookup->getLAngleLoc();
      R = Lookup->getRAngleLoc();
    }
  }
  if (L.isInvalid() || R.isInvalid())
    return "";
  return writtenText(SM, LO, SourceRange(L, R));
}

/// `<float, 4>`: every template argument of the launched specialization,
/// or "" when the launch is still dependent.
std::string fullTemplateArgs(const CUDAKernelCallExpr *Call,
                             const ASTContext &Ctx) {
  const FunctionDecl *F = Call->getDirectCallee();
  const TemplateArgumentList *Args =
      F ? F->getTemplateSpecializationArgs() : nullptr;
  if (!Args)
    return "";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  printTemplateArgumentList(OS, Args->asArray(), PP);
  return OS.str();
}

/// Spells \p Call, the launch at line \p Line, into \p Site; or says why it
/// cannot be (an argument with side effects whose type is not known).
std::string spellLaunch(const TransformContext &TC, const SplitBranch &B,
                        const CUDAKernelCallExpr *Call, LaunchSite &Site) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  const FunctionTemplateDecl *FT = B.Template;
  unsigned LL = Site.Line;
  // Configuration and arguments: evaluated once when they have side
  // effects, in temporaries whose types are spelled out.
  PrintingPolicy PP(LO);
  const CallExpr *Cfg = Call->getConfig();
  static const char *const CfgType[] = {"dim3", "dim3", "size_t",
                                        "cudaStream_t"};
  static const char *const CfgName[] = {"grid", "block", "shared", "stream"};
  // `_value_`: the compact and adaptive forms declare their own
  // `ww_grid_<tag>` and `ww_block_<tag>` from this.
  std::string ConfigTemps;
  auto ConfigTemp = [&](unsigned I) {
    std::string N = "ww_" + std::string(CfgName[I]) + "_value_" + Site.Tag;
    ConfigTemps +=
        std::string(CfgType[I]) + " const " + N + " = " + Site.Config[I] + "; ";
    Site.Config[I] = N;
  };
  // Written configuration expressions that are not constants and were not
  // hoisted: evaluated where the rewritten launch uses them.
  std::vector<unsigned> Later;
  for (unsigned I = 0; Cfg && I < Cfg->getNumArgs() && I < 4; ++I) {
    const Expr *A = Cfg->getArg(I);
    if (isa<CXXDefaultArgExpr>(A))
      continue;
    Site.Config[I] = writtenText(SM, LO, A->getSourceRange());
    Site.Written[I] = true;
    if (hasEffects(A))
      ConfigTemp(I);
    else if (A->isValueDependent() || !A->isEvaluatable(TC.Ctx))
      Later.push_back(I);
  }
  Site.Callee = writtenCalleeName(Call, SM, LO);
  if (Site.Callee.empty())
    Site.Callee = B.Name;
  Site.TemplateArgs = writtenTemplateArgs(Call, SM, LO);
  Site.FullTemplateArgs = fullTemplateArgs(Call, TC.Ctx);
  // A dependent launch that spells every argument (`k<T, N>`) names its
  // instantiation too.
  if (Site.FullTemplateArgs.empty() && FT)
    if (auto *Lookup =
            dyn_cast<OverloadExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      if (Lookup->getNumTemplateArgs() == FT->getTemplateParameters()->size())
        Site.FullTemplateArgs = Site.TemplateArgs;
  // The parameter types of what is launched: the specialization's when
  // the kernel is a template (the template's own may name T).
  const FunctionDecl *Launched =
      Call->getDirectCallee() ? Call->getDirectCallee() : B.Kernel;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *A = Call->getArg(I);
    std::string T = writtenText(SM, LO, A->getSourceRange());
    if (hasEffects(A)) {
      QualType PT = I < Launched->getNumParams()
                        ? Launched->getParamDecl(I)->getType()
                        : QualType();
      if (PT.isNull() || PT->isDependentType())
        return "argument " + std::to_string(I + 1) + " of the launch at line " +
               std::to_string(LL) +
               " has side effects and a type that depends on template "
               "parameters, so it cannot be evaluated once into a temporary";
      std::string N = "ww_arg" + std::to_string(I) + "_" + Site.Tag;
      // `const int` parameter: one const, or nvcc warns (#83).
      Site.Temps += PT.getUnqualifiedType().getAsString(PP) + " const " + N +
                    " = " + T + "; ";
      T = N;
    }
    QualType PT = I < Launched->getNumParams()
                      ? Launched->getParamDecl(I)->getType()
                      : QualType();
    // Bytes the key can hash: no padding (long double has some).
    if (!PT.isNull() && !PT->isDependentType() &&
        (PT->isIntegralOrEnumerationType() ||
         (PT->isRealFloatingType() &&
          !PT->isSpecificBuiltinType(BuiltinType::LongDouble))))
      Site.ScalarArgs.push_back(T);
    Site.Args += (Site.Args.empty() ? "" : ", ") + T;
  }
  // A launch evaluates its configuration before its arguments: where an
  // argument's side effects now run first (`k<<<(n + 255) / 256, 256>>>(p,
  // n++)`), the configuration is evaluated before them, into temporaries.
  if (!Site.Temps.empty())
    for (unsigned I : Later)
      ConfigTemp(I);
  Site.Temps = ConfigTemps + Site.Temps;
  return "";
}

/// Why \p Call, the launch at line \p Line, cannot be rewritten where it
/// is, or ""; sets \p Semi to the `;` that ends it.
std::string placeProblem(const TransformContext &TC, const SplitBranch &B,
                         const CUDAKernelCallExpr *Call, unsigned LL,
                         SourceLocation &Semi) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID()) {
    llvm::StringRef Macro =
        Lexer::getImmediateMacroName(Call->getBeginLoc(), SM, LO);
    return "the launch at line " + std::to_string(LL) +
           " is inside the macro `" + Macro.str() + "`";
  }
  // Launches are rewritten in the main file only (the analysis records
  // no others); one in a header would keep running the original.
  if (!SM.isInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
    return "the launch at line " + std::to_string(LL) + " of " +
           TC.displayOf(Call->getBeginLoc()) +
           " is in a header, and warpwise rewrites launches only in the "
           "main file";
  // In the translation unit's order: the kernel may be in a header, the
  // launches in the main file.
  SourceLocation KernelEnd = Lexer::getLocForEndOfToken(
      SM.getExpansionLoc(B.Kernel->getEndLoc()), 0, SM, LO);
  if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Call->getBeginLoc()),
                                   KernelEnd))
    return "the launch at line " + std::to_string(LL) +
           " comes before the kernel's definition";
  // The launch must be a statement of its own.
  DynTypedNodeList Parents = Ctx.getParents(*Call);
  const Stmt *Top = Call;
  if (!Parents.empty())
    if (auto *Cleanups = Parents[0].get<ExprWithCleanups>()) {
      Top = Cleanups;
      Parents = Ctx.getParents(*Cleanups);
    }
  if (Parents.empty() || Parents[0].get<Expr>())
    return "the launch at line " + std::to_string(LL) +
           " is used inside an expression";
  Semi = Lexer::findLocationAfterToken(Top->getEndLoc(), tok::semi, SM, LO,
                                       /*SkipTrailingWhitespace=*/false);
  if (Semi.isInvalid())
    return "the launch at line " + std::to_string(LL) +
           " is not followed by ';'";
  return "";
}

} // namespace

std::string measuredKeyArgument(const LaunchSite &L, const std::string &NL) {
  std::string Key;
  for (const std::string &A : L.ScalarArgs)
    Key += (Key.empty() ? "" : ", ") + A;
  return Key.empty() ? Key : "," + NL + "    ww_measured_key(" + Key + ")";
}

std::string findLaunchSites(const TransformContext &TC, const SplitBranch &B,
                            std::vector<const CUDAKernelCallExpr *> &Calls,
                            std::vector<LaunchSite> &Sites) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  LaunchFinder LF(B.Kernel);
  LF.TraverseDecl(TC.Ctx.getTranslationUnitDecl());
  Calls = LF.Launches;
  if (Calls.empty())
    return "no launch of it in this file to rewrite";
  for (const CUDAKernelCallExpr *Call : Calls) {
    LaunchSite Site;
    Site.Line = SM.getExpansionLineNumber(Call->getBeginLoc());
    Site.Tag = std::to_string(Site.Line) + "_" + std::to_string(Sites.size());
    SourceLocation Semi;
    std::string Problem = placeProblem(TC, B, Call, Site.Line, Semi);
    if (Problem.empty())
      Problem = spellLaunch(TC, B, Call, Site);
    if (!Problem.empty())
      return Problem;
    Site.Begin = SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc()));
    Site.Length = SM.getFileOffset(Semi) - Site.Begin;
    Sites.push_back(std::move(Site));
  }
  return "";
}

} // namespace warpwise
