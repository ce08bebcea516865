//===- KernelBody.cpp - Per-kernel analyses (placeholder until #3) --------===//
#include "AnalysisInternal.h"

namespace warpwise {
void analyzeKernelBody(clang::ASTContext &, const clang::FunctionDecl *,
                       KernelInfo &) {}
} // namespace warpwise
