//===- Divergence.cpp - The divergence analysis of kernels ----------------===//
//
// The kernel-level driver of the analysis: runs FunctionRun
// (DivergenceFunction.h) on each kernel with uniform parameters and on each
// __device__ function it calls, once per calling context (the levels of the
// arguments), caches the callee summaries, and joins a device function's
// verdicts over its contexts.
//
//===----------------------------------------------------------------------===//
#include "Divergence.h"
#include "DivergenceFunction.h"

#include "clang/AST/Decl.h"

#include <algorithm>

namespace warpwise {

using namespace clang;
using namespace divergence;

Summary DivergenceAnalysis::Impl::analyze(const FunctionDecl *FD,
                                          const std::vector<Val> &Args,
                                          const BlockShape &Shape,
                                          FunctionVerdicts *Out) {
  ContextKey Key{FD, {}};
  for (const Val &A : Args)
    Key.Params.push_back(A.L);
  if (!Out) {
    auto It = Summaries.find(Key);
    if (It != Summaries.end())
      return It->second;
    if (InProgress.count(Key)) {
      // Recursion: assume the worst for the result.
      Summary S;
      S.Return = Val::divergent(cause(
          {Cause::Source, "a recursive call to `" + FD->getNameAsString() + "`",
           nullptr, 0, nullptr}));
      S.ParamWrites.assign(FD->getNumParams(), S.Return);
      return S;
    }
  }
  InProgress.insert(Key);
  FunctionRun Run(*this, FD, Args, Shape);
  Summary S = Run.run();
  InProgress.erase(Key);
  if (Out) {
    Out->FD = FD;
    Run.collect(*Out);
    return S;
  }
  Summaries[Key] = S;
  // Join this context's verdicts into the device function's.
  FunctionVerdicts V;
  V.FD = FD;
  Run.collect(V);
  DeviceContexts[FD].insert(Key.Params);
  auto &Joined = DeviceVerdicts[FD];
  if (!Joined.FD) {
    Joined = V;
  } else {
    for (size_t I = 0; I < Joined.Branches.size() && I < V.Branches.size(); ++I)
      if (V.Branches[I].Info.Level > Joined.Branches[I].Info.Level)
        Joined.Branches[I].Info = V.Branches[I].Info;
    for (size_t I = 0; I < Joined.Loops.size() && I < V.Loops.size(); ++I)
      if (V.Loops[I].Info.Level > Joined.Loops[I].Info.Level)
        Joined.Loops[I].Info = V.Loops[I].Info;
  }
  Joined.Contexts = DeviceContexts[FD].size();
  return S;
}

DivergenceAnalysis::DivergenceAnalysis(ASTContext &Ctx)
    : P(std::make_unique<Impl>(Ctx)) {}
DivergenceAnalysis::~DivergenceAnalysis() = default;

FunctionVerdicts DivergenceAnalysis::analyzeKernel(const FunctionDecl *FD,
                                                   const BlockShape &Shape) {
  FunctionVerdicts Out;
  std::vector<Val> Args(FD->getNumParams()); // Kernel parameters: uniform.
  P->analyze(FD, Args, Shape, &Out);
  return Out;
}

std::vector<FunctionVerdicts> DivergenceAnalysis::deviceFunctions() const {
  std::vector<FunctionVerdicts> Out;
  for (auto &[FD, V] : P->DeviceVerdicts)
    Out.push_back(V);
  std::sort(Out.begin(), Out.end(),
            [&](const FunctionVerdicts &A, const FunctionVerdicts &B) {
              return P->SM.isBeforeInTranslationUnit(A.FD->getLocation(),
                                                     B.FD->getLocation());
            });
  return Out;
}

} // namespace warpwise
