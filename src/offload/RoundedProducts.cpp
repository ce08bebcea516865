//===- RoundedProducts.cpp - Kernel products nvcc cannot contract --------===//
#include "RoundedProducts.h"

#include "../transform/SourceText.h"

#include "clang/AST/Expr.h"
#include "clang/Lex/Lexer.h"

#include <functional>

using namespace clang;

namespace warpwise {
namespace offload {

namespace {

/// `__fmul_rn` or `__dmul_rn` for a product computed in \p T; "" for
/// other types (long double, half, complex).
std::string intrinsicFor(QualType T) {
  const auto *B = T.getCanonicalType()->getAs<BuiltinType>();
  if (!B)
    return "";
  if (B->getKind() == BuiltinType::Float)
    return "__fmul_rn";
  if (B->getKind() == BuiltinType::Double)
    return "__dmul_rn";
  return "";
}

/// Every floating-point `*` and `*=` of \p Body, outermost first.
std::vector<const BinaryOperator *> products(const Stmt *Body) {
  std::vector<const BinaryOperator *> Out;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *B = dyn_cast<BinaryOperator>(S)) {
      QualType T = B->getType();
      if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
        T = CA->getComputationResultType();
      if ((B->getOpcode() == BO_Mul || B->getOpcode() == BO_MulAssign) &&
          T->isRealFloatingType())
        Out.push_back(B);
    }
    for (const Stmt *C : childrenOf(S))
      Walk(C);
  };
  Walk(Body);
  return Out;
}

/// Just past the last token of \p E, in the file.
unsigned endOf(const OffloadSource &Src, const Expr *E) {
  SourceLocation L = Src.SM.getExpansionRange(E->getEndLoc()).getEnd();
  return Src.SM.getFileOffset(L) + Lexer::MeasureTokenLength(L, Src.SM, Src.LO);
}

} // namespace

std::string productProblem(const OffloadSource &Src, const Stmt *Body) {
  for (const BinaryOperator *B : products(Body)) {
    std::string Where = " at line " + Src.lineOf(B->getOperatorLoc());
    QualType T = B->getType();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
      T = CA->getComputationResultType();
    if (B->getOperatorLoc().isMacroID())
      return "a product" + Where +
             " is written inside a macro, where it cannot be rounded on its "
             "own (--fmad=false)";
    if (intrinsicFor(T).empty())
      return "a product" + Where + " is of type '" + T.getAsString() +
             "', which CUDA cannot round on its own (--fmad=false)";
    if (B->getOpcode() == BO_MulAssign && B->getLHS()->HasSideEffects(Src.Ctx))
      return "the target of '*='" + Where +
             " has side effects, so it cannot be written twice (--fmad=false)";
  }
  return "";
}

std::vector<TextEdit> roundedProducts(const OffloadSource &Src,
                                      const Stmt *Body, bool HostAndDevice) {
  std::vector<TextEdit> Edits;
  for (const BinaryOperator *B : products(Body)) {
    QualType T = B->getType();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
      T = CA->getComputationResultType();
    std::string F = intrinsicFor(T);
    if (HostAndDevice)
      F = F == "__fmul_rn" ? "WW_OMP_FMUL" : "WW_OMP_DMUL";
    unsigned Op = Src.offset(B->getOperatorLoc());
    unsigned OpEnd = Op + (B->getOpcode() == BO_MulAssign ? 2 : 1);
    if (B->getOpcode() == BO_Mul) {
      unsigned L = Src.offset(B->getLHS()->getBeginLoc());
      Edits.push_back({L, L, F + "("});
      Edits.push_back({Op, OpEnd, ","});
    } else {
      std::string Target = sourceText(Src.Ctx, B->getLHS()->getSourceRange());
      Edits.push_back({Op, OpEnd, "= " + F + "(" + Target + ","});
    }
    unsigned R = endOf(Src, B->getRHS());
    Edits.push_back({R, R, ")"});
  }
  return Edits;
}

bool hasFloatProduct(const Stmt *S) { return !products(S).empty(); }

std::string productMacros() {
  return "// warpwise offload: --fmad=false; the called functions' products "
         "are rounded\n// on their own on the device, as written on the "
         "host.\n"
         "#ifdef __CUDA_ARCH__\n"
         "#define WW_OMP_FMUL(a, b) __fmul_rn((a), (b))\n"
         "#define WW_OMP_DMUL(a, b) __dmul_rn((a), (b))\n"
         "#else\n"
         "#define WW_OMP_FMUL(a, b) ((a) * (b))\n"
         "#define WW_OMP_DMUL(a, b) ((a) * (b))\n"
         "#endif\n";
}

} // namespace offload
} // namespace warpwise
