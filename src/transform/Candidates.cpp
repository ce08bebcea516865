//===- Candidates.cpp - Where the transformations look --------------------===//
#include "Candidates.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"

namespace warpwise {

using namespace clang;

std::vector<const FunctionDecl *>
deviceCodeDefinitions(ASTContext &Ctx, bool WithDeviceFunctions,
                      const SourceScope *Scope) {
  SourceScope MainOnly(Ctx.getSourceManager(), "");
  struct Finder : RecursiveASTVisitor<Finder> {
    const SourceScope &Scope;
    bool WithDevice;
    std::vector<const FunctionDecl *> Found;
    Finder(const SourceScope &Scope, bool WithDevice)
        : Scope(Scope), WithDevice(WithDevice) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool VisitFunctionDecl(FunctionDecl *FD) {
      bool Wanted = FD->hasAttr<CUDAGlobalAttr>() ||
                    (WithDevice && FD->hasAttr<CUDADeviceAttr>());
      if (Wanted && FD->doesThisDeclarationHaveABody() &&
          Scope.contains(FD->getLocation()))
        Found.push_back(FD);
      return true;
    }
  } F(Scope ? *Scope : MainOnly, WithDeviceFunctions);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  return F.Found;
}

const Decl *fileScopeDeclOf(const FunctionDecl *FD) {
  const Decl *D = FD;
  if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate())
    D = FT;
  while (D->getDeclContext() && !D->getDeclContext()->isTranslationUnit()) {
    const auto *Outer = dyn_cast<Decl>(D->getDeclContext());
    if (!Outer)
      break;
    D = Outer;
  }
  return D;
}

} // namespace warpwise
