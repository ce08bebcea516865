//===- Candidates.cpp - Where the transformations look --------------------===//
#include "Candidates.h"
#include "MeasuredDispatch.h"
#include "SplitText.h"

#include "warpwise/Embedded.h"
#include "warpwise/Transform.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <set>
#include <string>

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
    /// Kernels by the namespace (or class) they are in, and name.
    std::set<std::pair<const DeclContext *, std::string>> Kernels;
    bool VisitFunctionDecl(FunctionDecl *FD) {
      if (FD->hasAttr<CUDAGlobalAttr>() && FD->getIdentifier())
        Kernels.insert(
            {FD->getDeclContext()->getRedeclContext(), FD->getName().str()});
      bool Wanted = FD->hasAttr<CUDAGlobalAttr>() ||
                    (WithDevice && FD->hasAttr<CUDADeviceAttr>());
      // The original a measured dispatch keeps is final.
      if (Wanted && FD->getIdentifier() &&
          FD->getName().ends_with(KeptOriginalSuffix))
        Wanted = false;
      if (Wanted && FD->doesThisDeclarationHaveABody() &&
          Scope.contains(FD->getLocation()))
        Found.push_back(FD);
      return true;
    }
  } F(Scope ? *Scope : MainOnly, WithDeviceFunctions);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  // A kernel a split rewrote stays as its launches' fallback (the adaptive
  // form's path 0) or for other files: it is final too. Proposing its split
  // again costs an nvcc run that can only fail (the split kernels exist).
  std::vector<const FunctionDecl *> Open;
  for (const FunctionDecl *FD : F.Found) {
    std::string Name = FD->getIdentifier() ? FD->getName().str() : "";
    const DeclContext *In = FD->getDeclContext()->getRedeclContext();
    bool Split = !Name.empty() && (F.Kernels.count({In, Name + "_ww_then"}) ||
                                   F.Kernels.count({In, Name + "_ww_light"}));
    if (!Split)
      Open.push_back(FD);
  }
  return Open;
}

bool touched(const std::vector<tooling::Replacement> &Edits,
             const std::string &File, unsigned Begin, unsigned End) {
  for (const tooling::Replacement &R : Edits)
    if (R.getFilePath() == File && R.getOffset() < End &&
        Begin < R.getOffset() + std::max(R.getLength(), 1u))
      return true;
  return false;
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

/// The offset of the line that starts the first `#define` in \p Text
/// before \p Limit, or of the outermost `#if` around it; \p Limit if none.
/// Clang's raw lexer skips comments, literals and continued lines.
static unsigned firstMacroDefinition(llvm::StringRef Text, unsigned Limit,
                                     const LangOptions &LO) {
  Lexer L(SourceLocation(), LO, Text.data(), Text.data(),
          Text.data() + Text.size());
  unsigned Depth = 0, OuterIf = 0;
  Token Tok;
  while (!L.LexFromRawLexer(Tok)) {
    unsigned At = L.getBufferLocation() - Text.data() - Tok.getLength();
    if (At >= Limit)
      break;
    if (!Tok.is(tok::hash) || !Tok.isAtStartOfLine())
      continue;
    Token Name;
    L.LexFromRawLexer(Name);
    if (!Name.is(tok::raw_identifier))
      continue;
    llvm::StringRef Word = Name.getRawIdentifier();
    unsigned Line = lineStart(Text, At);
    if (Word == "if" || Word == "ifdef" || Word == "ifndef") {
      if (Depth++ == 0)
        OuterIf = Line;
    } else if (Word == "endif" && Depth > 0) {
      --Depth;
    } else if (Word == "define") {
      return Depth == 0 ? Line : OuterIf;
    }
  }
  return Limit;
}

unsigned runtimeIncludeAt(const TransformContext &TC, const FunctionDecl *FD,
                          llvm::StringRef Text) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  SourceLocation DeclLoc =
      SM.getExpansionLoc(fileScopeDeclOf(FD)->getBeginLoc());
  unsigned AboveDecl = aboveLineComments(Text, SM.getFileOffset(DeclLoc));
  unsigned At = firstMacroDefinition(Text, AboveDecl, TC.Ctx.getLangOpts());
  if (At == AboveDecl)
    return AboveDecl;
  // Only at file scope: above a declaration whose text holds the point.
  FileID Holder = SM.getFileID(DeclLoc);
  for (const Decl *D : TC.Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation B = SM.getExpansionLoc(D->getBeginLoc()),
                   E = SM.getExpansionLoc(D->getEndLoc());
    if (B.isInvalid() || E.isInvalid() || SM.getFileID(B) != Holder ||
        SM.getFileID(E) != Holder)
      continue;
    if (SM.getFileOffset(B) < At && At <= SM.getFileOffset(E))
      At = SM.getFileOffset(B);
  }
  return std::min(aboveLineComments(Text, At), AboveDecl);
}

bool runtimeVisibleAt(const TransformContext &TC, SourceLocation InFile,
                      llvm::StringRef File, unsigned Offset,
                      llvm::StringRef PastedFunction) {
  if (includesRuntimeHeader(TC.textOf(InFile).take_front(Offset)))
    return true;
  for (const tooling::Replacement &R : TC.Applied)
    if (R.getFilePath() == File && R.getOffset() <= Offset &&
        includesRuntimeHeader(R.getReplacementText()))
      return true;
  if (PastedFunction.empty())
    return false;
  const SourceManager &SM = TC.Ctx.getSourceManager();
  FileID Holder = SM.getFileID(SM.getExpansionLoc(InFile));
  for (const Decl *D : TC.Ctx.getTranslationUnitDecl()->decls()) {
    const auto *F = dyn_cast<FunctionDecl>(D);
    if (!F || !F->getIdentifier() || F->getName() != PastedFunction)
      continue;
    SourceLocation Loc = SM.getExpansionLoc(F->getBeginLoc());
    if (SM.getFileID(Loc) == Holder && SM.getFileOffset(Loc) < Offset)
      return true;
  }
  return false;
}

} // namespace warpwise
