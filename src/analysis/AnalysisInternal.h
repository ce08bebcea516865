//===- AnalysisInternal.h - Shared by the analysis sources ------*- C++ -*-===//
#ifndef WARPWISE_ANALYSIS_INTERNAL_H
#define WARPWISE_ANALYSIS_INTERNAL_H

#include "Divergence.h"
#include "warpwise/Analysis.h"

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace warpwise {

class SourceScope;

/// Fills \p K's branches and loops (uniformity and register pressure of each
/// side), its register estimate and its static shared memory.
void analyzeKernelBody(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                       const BlockShape &Shape, DivergenceAnalysis &DA,
                       KernelInfo &K);

/// The same for the __device__ functions the kernels called, those defined
/// in \p Scope.
std::vector<DeviceFunctionInfo>
collectDeviceFunctions(clang::ASTContext &Ctx, DivergenceAnalysis &DA,
                       const SourceScope &Scope);

} // namespace warpwise

#endif
