//===- Candidates.h - Where the transformations look ------------*- C++ -*-===//
//
// Every transformation starts from the same place: the definitions of device
// code in the file being rewritten (kernels, and for fuse/meld __device__
// functions too), template patterns rather than their instantiations, in
// namespaces as well, in source order; then the statements of one kind in
// each body.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_CANDIDATES_H
#define WARPWISE_CANDIDATES_H

#include "warpwise/SourceScope.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Core/Replacement.h"

#include <string>
#include <vector>

namespace warpwise {

struct TransformContext;

/// The kernels (and with \p WithDeviceFunctions, the __device__ functions)
/// defined in the main file and the project headers \p Scope accepts (the
/// main file only when null), in the order the translation unit has them.
std::vector<const clang::FunctionDecl *>
deviceCodeDefinitions(clang::ASTContext &Ctx, bool WithDeviceFunctions,
                      const SourceScope *Scope = nullptr);

/// Whether \p Edits of earlier rewrites touch [Begin, End) of \p File (an
/// insertion at Begin does).
bool touched(const std::vector<clang::tooling::Replacement> &Edits,
             const std::string &File, unsigned Begin, unsigned End);

/// The file-scope declaration that holds \p FD: FD itself, its function
/// template, or the outermost namespace around it.
const clang::Decl *fileScopeDeclOf(const clang::FunctionDecl *FD);

/// Where warpwise's runtime include goes for a kernel \p FD in \p Text
/// (the text of its file): at file scope, above the declaration that holds
/// the kernel and its comment, or higher, above the file's first macro
/// definition (or the outermost conditional around it), so that no macro of
/// the program's (a `swap(A, B)`) reaches the standard headers the runtime
/// includes.
unsigned runtimeIncludeAt(const TransformContext &TC,
                          const clang::FunctionDecl *FD, llvm::StringRef Text);

/// Whether warpwise's runtime is visible at \p Offset of \p File, the file
/// that holds \p InFile: its text or an earlier rewrite of it includes the
/// runtime above that point, or (a runtime part an older warpwise pasted in)
/// a function named \p PastedFunction is defined in it above that point. An
/// include below the point does not count: code inserted there would not
/// see it.
bool runtimeVisibleAt(const TransformContext &TC, clang::SourceLocation InFile,
                      llvm::StringRef File, unsigned Offset,
                      llvm::StringRef PastedFunction = "");

/// The statements of type \p T in \p Body, outer before inner, in source
/// order.
template <class T>
std::vector<const T *> statementsIn(const clang::Stmt *Body) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    std::vector<const T *> Found;
    bool VisitStmt(clang::Stmt *S) {
      if (auto *Match = llvm::dyn_cast<T>(S))
        Found.push_back(Match);
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<clang::Stmt *>(Body));
  return F.Found;
}

} // namespace warpwise

#endif
