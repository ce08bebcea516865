//===- KernelCollector.cpp - Kernels and launches of a translation unit ---===//
#include "warpwise/Analysis.h"

#include "AnalysisInternal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace warpwise {

const char *uniformityName(Uniformity U) {
  switch (U) {
  case Uniformity::Uniform:
    return "uniform";
  case Uniformity::BlockUniform:
    return "block-uniform";
  case Uniformity::WarpUniform:
    return "warp-uniform";
  case Uniformity::Divergent:
    return "divergent";
  }
  return "divergent";
}

namespace {

/// Evaluates a launch's block argument when it is a constant: an integer, or
/// a dim3 built from integer constants.
std::optional<unsigned> constantThreads(const clang::Expr *E,
                                        clang::ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreImplicit();
  if (auto *Temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(E))
    E = Temp->getSubExpr()->IgnoreImplicit();
  if (auto *Construct = llvm::dyn_cast<clang::CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() == 1 &&
        !Construct->getArg(0)->getType()->isIntegralOrEnumerationType())
      return constantThreads(Construct->getArg(0), Ctx); // copy of a dim3
    unsigned Product = 1;
    for (const clang::Expr *Arg : Construct->arguments()) {
      if (llvm::isa<clang::CXXDefaultArgExpr>(Arg))
        continue;
      clang::Expr::EvalResult R;
      if (!Arg->EvaluateAsInt(R, Ctx))
        return std::nullopt;
      Product *= R.Val.getInt().getZExtValue();
    }
    return Product;
  }
  clang::Expr::EvalResult R;
  if (E->getType()->isIntegralOrEnumerationType() && E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getZExtValue();
  return std::nullopt;
}

class Collector : public clang::RecursiveASTVisitor<Collector> {
public:
  Collector(clang::ASTContext &Ctx, FileAnalysis &Out) : Ctx(Ctx), Out(Out) {
    Mangler.reset(Ctx.createMangleContext());
  }

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!FD->hasAttr<clang::CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    if (!inMainFile(FD->getLocation()))
      return true;
    KernelInfo K;
    K.Name = FD->getNameAsString();
    K.Line = line(FD->getLocation());
    K.IsTemplate = FD->getDescribedFunctionTemplate() != nullptr ||
                   FD->isTemplateInstantiation();
    if (!K.IsTemplate && Mangler->shouldMangleDeclName(FD)) {
      std::string Name;
      llvm::raw_string_ostream OS(Name);
      Mangler->mangleName(FD, OS);
      K.MangledName = OS.str();
    } else if (!K.IsTemplate) {
      K.MangledName = K.Name;
    }
    analyzeKernelBody(Ctx, FD, K);
    Out.Kernels.push_back(std::move(K));
    return true;
  }

  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr *Call) {
    clang::SourceLocation Loc = Call->getBeginLoc();
    clang::SourceManager &SM = Ctx.getSourceManager();
    if (!inMainFile(SM.getExpansionLoc(Loc)))
      return true;
    LaunchInfo L;
    L.InMacro = Loc.isMacroID();
    L.Line = line(SM.getExpansionLoc(Loc));
    L.Column = SM.getExpansionColumnNumber(Loc);
    if (const clang::FunctionDecl *Callee = Call->getDirectCallee())
      L.Kernel = Callee->getNameAsString();
    const clang::CallExpr *Config = Call->getConfig();
    if (Config && Config->getNumArgs() >= 2) {
      L.GridText = text(Config->getArg(0));
      L.BlockText = text(Config->getArg(1));
      L.BlockThreads = constantThreads(Config->getArg(1), Ctx);
      if (Config->getNumArgs() >= 3 &&
          !llvm::isa<clang::CXXDefaultArgExpr>(Config->getArg(2))) {
        clang::Expr::EvalResult R;
        if (Config->getArg(2)->EvaluateAsInt(R, Ctx))
          L.DynamicShared = R.Val.getInt().getZExtValue();
      } else {
        L.DynamicShared = 0;
      }
    }
    Out.Launches.push_back(std::move(L));
    return true;
  }

private:
  bool inMainFile(clang::SourceLocation Loc) const {
    const clang::SourceManager &SM = Ctx.getSourceManager();
    return SM.isInMainFile(SM.getExpansionLoc(Loc));
  }
  unsigned line(clang::SourceLocation Loc) const {
    return Ctx.getSourceManager().getExpansionLineNumber(Loc);
  }
  std::string text(const clang::Expr *E) const {
    clang::CharSourceRange R = clang::CharSourceRange::getTokenRange(
        E->getSourceRange());
    return clang::Lexer::getSourceText(R, Ctx.getSourceManager(),
                                       Ctx.getLangOpts())
        .str();
  }

  clang::ASTContext &Ctx;
  FileAnalysis &Out;
  std::unique_ptr<clang::MangleContext> Mangler;
};

} // namespace

FileAnalysis analyzeTranslationUnit(clang::ASTContext &Ctx,
                                    const std::string &File) {
  FileAnalysis Out;
  Out.File = File;
  Collector C(Ctx, Out);
  C.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Out;
}

} // namespace warpwise
