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

/// A floating-point `*` or `*=` and where it is.
struct Product {
  const BinaryOperator *B;
  bool InAtomic = false;   ///< In an `omp atomic` update (rebuilt as text).
  bool InConstant = false; ///< Where only a constant expression may be.
};

/// Every floating-point (or complex) `*` and `*=` of \p Body, outermost
/// first.
std::vector<Product> products(const Stmt *Body) {
  std::vector<Product> Out;
  std::function<void(const Stmt *, bool, bool)> Walk =
      [&](const Stmt *S, bool Atomic, bool Constant) {
        if (!S)
          return;
        if (auto *B = dyn_cast<BinaryOperator>(S)) {
          QualType T = B->getType();
          if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
            T = CA->getComputationResultType();
          if ((B->getOpcode() == BO_Mul || B->getOpcode() == BO_MulAssign) &&
              (T->isRealFloatingType() || T->isAnyComplexType()))
            Out.push_back({B, Atomic, Constant});
        }
        Atomic = Atomic || isa<OMPAtomicDirective>(S);
        if (auto *DS = dyn_cast<DeclStmt>(S)) {
          for (const Decl *D : DS->decls())
            if (auto *V = dyn_cast<VarDecl>(D); V && V->getInit())
              Walk(V->getInit(), Atomic,
                   Constant || V->isConstexpr() || V->isStaticLocal());
          return;
        }
        if (auto *C = dyn_cast<CaseStmt>(S)) {
          Walk(C->getLHS(), Atomic, true);
          Walk(C->getRHS(), Atomic, true);
          Walk(C->getSubStmt(), Atomic, Constant);
          return;
        }
        for (const Stmt *C : childrenOf(S))
          Walk(C, Atomic, Constant);
      };
  Walk(Body, false, false);
  return Out;
}

/// \p E's first (\p Start) or last token, if it comes from a macro, is
/// that end of the macro's expansion: the text around the operand wraps
/// the operand and nothing else (`SCALE * x`, not `W * x` with `#define W
/// 1.0f + 2.0f`).
bool wholeOperand(const OffloadSource &Src, const Expr *E) {
  SourceLocation B = E->getBeginLoc(), L = E->getEndLoc();
  return (!B.isMacroID() ||
          Lexer::isAtStartOfMacroExpansion(B, Src.SM, Src.LO)) &&
         (!L.isMacroID() || Lexer::isAtEndOfMacroExpansion(L, Src.SM, Src.LO));
}

/// Just past the last token of \p E, in the file.
unsigned endOf(const OffloadSource &Src, const Expr *E) {
  SourceLocation L = Src.SM.getExpansionRange(E->getEndLoc()).getEnd();
  return Src.SM.getFileOffset(L) + Lexer::MeasureTokenLength(L, Src.SM, Src.LO);
}

} // namespace

std::string productProblem(const OffloadSource &Src, const Stmt *Body) {
  for (const Product &P : products(Body)) {
    const BinaryOperator *B = P.B;
    std::string Where = " at line " + Src.lineOf(B->getOperatorLoc());
    QualType T = B->getType();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
      T = CA->getComputationResultType();
    if (B->getOperatorLoc().isMacroID() || !wholeOperand(Src, B->getLHS()) ||
        !wholeOperand(Src, B->getRHS()))
      return "a product" + Where +
             " is written partly inside a macro, where it cannot be rounded "
             "on its own (--fmad=false)";
    if (intrinsicFor(T).empty())
      return "a product" + Where + " is of type '" + T.getAsString() +
             "', which CUDA cannot round on its own (--fmad=false)";
    if (P.InAtomic)
      return "a product" + Where +
             " is in an atomic update, which is not rounded (--fmad=false)";
    if (P.InConstant)
      return "a product" + Where +
             " is in a constant expression, where the rounding functions "
             "cannot be called (--fmad=false)";
    if (B->getOpcode() == BO_MulAssign &&
        (B->getLHS()->HasSideEffects(Src.Ctx) ||
         B->getRHS()->HasSideEffects(Src.Ctx)))
      return "the target or the value of '*='" + Where +
             " has side effects, so it cannot be written out (--fmad=false)";
  }
  return "";
}

std::vector<TextEdit> roundedProducts(const OffloadSource &Src,
                                      const Stmt *Body, bool HostAndDevice) {
  std::vector<TextEdit> Edits;
  for (const Product &P : products(Body)) {
    const BinaryOperator *B = P.B;
    QualType T = B->getType();
    if (auto *CA = dyn_cast<CompoundAssignOperator>(B))
      T = CA->getComputationResultType();
    std::string F = intrinsicFor(T);
    if (HostAndDevice)
      F = F == "__fmul_rn" ? "ww_omp_fmul" : "ww_omp_dmul";
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

std::string productFunctionsNote() {
  return "// warpwise offload: --fmad=false; the called functions' products "
         "are rounded\n// on their own on the device (ww_omp_fmul, "
         "ww_omp_dmul), as written on the\n// host.\n";
}

} // namespace offload
} // namespace warpwise
