//===- SplitLiteral.cpp - The literal form of the branch split ------------===//
#include "SplitLiteral.h"

#include "SplitText.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

namespace warpwise {

using namespace clang;

namespace {

/// One side's kernel: the original's text, renamed, with the branch
/// replaced by an early exit and that side.
std::string sideKernel(const TransformContext &TC, const SplitBranch &B,
                       bool ThenSide) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  const LangOptions &LO = TC.Ctx.getLangOpts();
  const IfStmt *If = B.If;
  std::string T = B.Original;
  std::string Branch =
      ThenSide ? "if (!(" + B.Cond + "))\n" + B.Indent + "  return;\n" +
                     B.Indent + B.ThenText
               : "if (" + B.Cond + ")\n" + B.Indent + "  return;\n" +
                     B.Indent + B.ElseText;
  T.replace(B.IfBegin, B.IfEnd - B.IfBegin, Branch);
  // Without the prefix statements this side does not use, last first
  // (they all precede the branch).
  std::vector<const Stmt *> Uses(B.Suffix);
  Uses.push_back(If->getCond());
  Uses.push_back(ThenSide ? If->getThen() : If->getElse());
  std::vector<const Stmt *> Kept = usedPrefix(B.Prefix, Uses);
  for (auto It = B.Prefix.rbegin(); It != B.Prefix.rend(); ++It)
    if (!llvm::is_contained(Kept, *It))
      if (auto R = statementLines(*It, SM, LO, B.Text))
        if (R->first >= B.Begin && R->second - B.Begin <= B.IfBegin)
          T.erase(R->first - B.Begin, R->second - R->first);
  T.replace(B.NameAt, B.Name.size(),
            B.Name + (ThenSide ? "_ww_then" : "_ww_else"));
  return "// warpwise " + B.Tag + ": the " +
         std::string(ThenSide ? "then" : "else") + "-side of `" + B.Name +
         "`, split into a kernel of its own\n" + T;
}

} // namespace

std::string literalKernels(const TransformContext &TC, const SplitBranch &B) {
  return "\n\n" + sideKernel(TC, B, true) + "\n\n" + sideKernel(TC, B, false);
}

std::string literalLaunch(const SplitBranch &B, const LaunchSite &L) {
  std::string Config = L.configAsWritten();
  return "{ // warpwise " + B.Tag + ": split launch\n" + L.Temps + L.Callee +
         "_ww_then" + L.TemplateArgs + "<<<" + Config + ">>>(" + L.Args +
         "); " + L.Callee + "_ww_else" + L.TemplateArgs + "<<<" + Config +
         ">>>(" + L.Args + "); }";
}

} // namespace warpwise
