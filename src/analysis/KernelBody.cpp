//===- KernelBody.cpp - Per-kernel analyses: divergence, pressure, smem ---===//
#include "AnalysisInternal.h"
#include "RegisterEstimate.h"

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

void analyzeKernelBody(ASTContext &Ctx, const FunctionDecl *FD,
                       const BlockShape &Shape, DivergenceAnalysis &DA,
                       KernelInfo &K) {
  RegisterEstimator Regs(Ctx, FD);
  K.Registers = Regs.whole();
  FunctionVerdicts V = DA.analyzeKernel(FD, Shape);
  for (BranchRecord &B : V.Branches) {
    B.Info.Then = Regs.region(B.Then);
    B.Info.Else = Regs.region(B.Else);
    K.Branches.push_back(B.Info);
  }
  for (LoopRecord &L : V.Loops) {
    L.Info.Body = Regs.region(L.Body);
    K.Loops.push_back(L.Info);
  }
  SharedCollector SC(Ctx);
  SC.TraverseStmt(FD->getBody());
  K.StaticShared = SC.Bytes;
}

std::vector<DeviceFunctionInfo> collectDeviceFunctions(ASTContext &Ctx,
                                                       DivergenceAnalysis &DA) {
  std::vector<DeviceFunctionInfo> Out;
  const SourceManager &SM = Ctx.getSourceManager();
  for (FunctionVerdicts &V : DA.deviceFunctions()) {
    if (!SM.isInMainFile(SM.getExpansionLoc(V.FD->getLocation())))
      continue; // Headers' functions (the toolkit's) are not the user's.
    DeviceFunctionInfo D;
    D.Name = V.FD->getNameAsString();
    D.Line = SM.getExpansionLineNumber(V.FD->getLocation());
    D.Contexts = V.Contexts;
    RegisterEstimator Regs(Ctx, V.FD);
    for (BranchRecord &B : V.Branches) {
      B.Info.Then = Regs.region(B.Then);
      B.Info.Else = Regs.region(B.Else);
      D.Branches.push_back(B.Info);
    }
    for (LoopRecord &L : V.Loops) {
      L.Info.Body = Regs.region(L.Body);
      D.Loops.push_back(L.Info);
    }
    Out.push_back(std::move(D));
  }
  return Out;
}

} // namespace warpwise
