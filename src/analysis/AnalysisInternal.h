//===- AnalysisInternal.h - Shared by the analysis sources ------*- C++ -*-===//
#ifndef WARPWISE_ANALYSIS_INTERNAL_H
#define WARPWISE_ANALYSIS_INTERNAL_H

#include "warpwise/Analysis.h"

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace warpwise {

/// Fills \p K's branches, loops, register estimate and static shared memory.
void analyzeKernelBody(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                       KernelInfo &K);

} // namespace warpwise

#endif
