//===- KernelBody.cpp - Per-kernel analyses: divergence, pressure, smem ---===//
#include "AnalysisInternal.h"
#include "RegisterEstimate.h"

#include "warpwise/SourceScope.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

namespace warpwise {

using namespace clang;

namespace {
class SharedCollector : public RecursiveASTVisitor<SharedCollector> {
public:
  SharedCollector(ASTContext &Ctx) : Ctx(Ctx) {}
  bool VisitVarDecl(VarDecl *V) {
    if (V->hasAttr<CUDASharedAttr>() && !V->getType()->isIncompleteType() &&
        !V->getType()->isDependentType() &&
        !V->hasExternalStorage()) // extern __shared__: dynamic.
      Bytes += Ctx.getTypeSize(V->getType()) / 8;
    return true;
  }
  ASTContext &Ctx;
  unsigned long Bytes = 0;
};
} // namespace

/// The verdicts of \p V with each branch's and loop's register pressure.
static void withPressure(RegisterEstimator &Regs, FunctionVerdicts &V,
                         std::vector<BranchInfo> &Branches,
                         std::vector<LoopInfo> &Loops) {
  for (BranchRecord &B : V.Branches) {
    B.Info.Then = Regs.region(B.Then);
    B.Info.Else = Regs.region(B.Else);
    Branches.push_back(B.Info);
  }
  for (LoopRecord &L : V.Loops) {
    L.Info.Body = Regs.region(L.Body);
    Loops.push_back(L.Info);
  }
}

void analyzeKernelBody(ASTContext &Ctx, const FunctionDecl *FD,
                       const BlockShape &Shape, DivergenceAnalysis &DA,
                       KernelInfo &K) {
  RegisterEstimator Regs(Ctx, FD);
  K.Registers = Regs.whole();
  FunctionVerdicts V = DA.analyzeKernel(FD, Shape);
  withPressure(Regs, V, K.Branches, K.Loops);
  K.Variables = V.Variables;
  SharedCollector SC(Ctx);
  SC.TraverseStmt(FD->getBody());
  K.StaticShared = SC.Bytes;
}

std::vector<DeviceFunctionInfo>
collectDeviceFunctions(ASTContext &Ctx, DivergenceAnalysis &DA,
                       const SourceScope &Scope) {
  std::vector<DeviceFunctionInfo> Out;
  const SourceManager &SM = Ctx.getSourceManager();
  for (FunctionVerdicts &V : DA.deviceFunctions()) {
    // System headers' functions (the toolkit's) are not the user's.
    if (!Scope.contains(V.FD->getLocation()))
      continue;
    DeviceFunctionInfo D;
    D.Name = V.FD->getNameAsString();
    FileID FID = SM.getFileID(SM.getExpansionLoc(V.FD->getLocation()));
    if (FID != SM.getMainFileID())
      D.File = Scope.path(FID);
    D.Line = SM.getExpansionLineNumber(V.FD->getLocation());
    D.Contexts = V.Contexts;
    RegisterEstimator Regs(Ctx, V.FD);
    withPressure(Regs, V, D.Branches, D.Loops);
    Out.push_back(std::move(D));
  }
  return Out;
}

} // namespace warpwise
