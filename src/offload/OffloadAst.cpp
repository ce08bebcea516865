//===- OffloadAst.cpp - What the parts of offload ask of the AST ----------===//
#include "OffloadAst.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

#include "clang/AST/PrettyPrinter.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace clang;

namespace warpwise {
namespace offload {

bool isDeviceMath(llvm::StringRef Name) {
  static const llvm::StringSet<> DeviceMath = {
      "sqrt",   "sqrtf",  "exp",    "expf",     "exp2",      "exp2f",  "log",
      "logf",   "log2",   "log2f",  "log10",    "log10f",    "sin",    "sinf",
      "cos",    "cosf",   "tan",    "tanf",     "pow",       "powf",   "fabs",
      "fabsf",  "floor",  "floorf", "ceil",     "ceilf",     "fmin",   "fminf",
      "fmax",   "fmaxf",  "abs",    "labs",     "llabs",     "tanh",   "tanhf",
      "atan",   "atanf",  "atan2",  "atan2f",   "asin",      "asinf",  "acos",
      "acosf",  "sinh",   "sinhf",  "cosh",     "coshf",     "cbrt",   "cbrtf",
      "round",  "roundf", "trunc",  "truncf",   "fmod",      "fmodf",  "hypot",
      "hypotf", "erf",    "erff",   "copysign", "copysignf", "rint",   "rintf",
      "expm1",  "expm1f", "log1p",  "log1pf",   "rsqrt",     "rsqrtf", "fma",
      "fmaf"};
  return DeviceMath.count(Name) > 0;
}

const Stmt *directiveBody(const OMPExecutableDirective *D) {
  if (!D->hasAssociatedStmt())
    return nullptr;
  const Stmt *A = D->getAssociatedStmt();
  if (isa<CapturedStmt>(A))
    return D->getInnermostCapturedStmt()->getCapturedStmt();
  return A;
}

std::vector<const Stmt *> childrenOf(const Stmt *S) {
  if (auto *D = dyn_cast<OMPExecutableDirective>(S)) {
    if (const Stmt *B = directiveBody(D))
      return {B};
    return {};
  }
  if (auto *C = dyn_cast<CapturedStmt>(S))
    return {C->getCapturedStmt()};
  std::vector<const Stmt *> Out(S->child_begin(), S->child_end());
  return Out;
}

namespace {

/// \p L up through the macro arguments it was passed as, to where its
/// token was written: a macro's body or the file.
SourceLocation upThroughArguments(const SourceManager &SM, SourceLocation L) {
  while (L.isMacroID() && SM.isMacroArgExpansion(L))
    L = SM.getImmediateSpellingLoc(L);
  return L;
}

/// The one token at \p L as written.
std::string tokenSpelling(const ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation S = SM.getSpellingLoc(L);
  return Lexer::getSourceText(CharSourceRange::getTokenRange(S, S), SM,
                              Ctx.getLangOpts())
      .str();
}

/// The macro whose whole expansion is the tokens \p B to \p E, as the
/// program invokes it: an object-like macro by its name (`N`, `DATA_TYPE`),
/// a function-like one by its invocation where that is written in the file
/// (`MAX(N, M)`); "" otherwise.
std::string coveringMacro(const ASTContext &Ctx, SourceLocation B,
                          SourceLocation E) {
  const SourceManager &SM = Ctx.getSourceManager();
  B = upThroughArguments(SM, B);
  E = upThroughArguments(SM, E);
  if (!B.isMacroID() || !E.isMacroID() || SM.getFileID(B) != SM.getFileID(E))
    return "";
  unsigned Len =
      Lexer::MeasureTokenLength(SM.getSpellingLoc(E), SM, Ctx.getLangOpts());
  if (!SM.isAtStartOfImmediateMacroExpansion(B) ||
      !SM.isAtEndOfImmediateMacroExpansion(E.getLocWithOffset(Len)))
    return "";
  CharSourceRange R = SM.getImmediateExpansionRange(B);
  if (R.getBegin() == R.getEnd())
    return tokenSpelling(Ctx, R.getBegin());
  if (R.getBegin().isFileID() && R.getEnd().isFileID())
    return Lexer::getSourceText(R, SM, Ctx.getLangOpts()).str();
  return "";
}

} // namespace

std::string spelledExpr(const ASTContext &Ctx, const Expr *E) {
  if (!E)
    return "";
  if (auto *IC = dyn_cast<ImplicitCastExpr>(E))
    return spelledExpr(Ctx, IC->getSubExpr());
  SourceLocation B = E->getBeginLoc(), End = E->getEndLoc();
  if (B.isFileID() && End.isFileID())
    return sourceText(Ctx, E->getSourceRange());
  if (std::string M = coveringMacro(Ctx, B, End); !M.empty())
    return M;
  auto Join = [](std::initializer_list<std::string> Parts) {
    std::string Out;
    for (const std::string &P : Parts) {
      if (P.empty())
        return std::string();
      Out += P;
    }
    return Out;
  };
  if (auto *P = dyn_cast<ParenExpr>(E))
    return Join({"(", spelledExpr(Ctx, P->getSubExpr()), ")"});
  if (auto *BO = dyn_cast<BinaryOperator>(E))
    return Join({spelledExpr(Ctx, BO->getLHS()),
                 " " + BO->getOpcodeStr().str() + " ",
                 spelledExpr(Ctx, BO->getRHS())});
  if (auto *UO = dyn_cast<UnaryOperator>(E)) {
    std::string Op = UnaryOperator::getOpcodeStr(UO->getOpcode()).str();
    std::string Sub = spelledExpr(Ctx, UO->getSubExpr());
    return UO->isPostfix() ? Join({Sub, Op}) : Join({Op, Sub});
  }
  if (auto *C = dyn_cast<ConditionalOperator>(E))
    return Join({spelledExpr(Ctx, C->getCond()), " ? ",
                 spelledExpr(Ctx, C->getTrueExpr()), " : ",
                 spelledExpr(Ctx, C->getFalseExpr())});
  // One token: a literal or a name written in a macro's body means the
  // same written here.
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, DeclRefExpr>(E) &&
      Ctx.getSourceManager().getSpellingLoc(B) ==
          Ctx.getSourceManager().getSpellingLoc(End))
    return tokenSpelling(Ctx, B);
  return "";
}

std::string spelledType(const ASTContext &Ctx, TypeLoc TL) {
  TL = TL.getUnqualifiedLoc();
  SourceLocation B = TL.getBeginLoc(), E = TL.getEndLoc();
  if (B.isInvalid() || E.isInvalid() || (B.isFileID() && E.isFileID()))
    return "";
  return coveringMacro(Ctx, B, E);
}

std::string spelledVarType(const ASTContext &Ctx, const VarDecl *V) {
  const TypeSourceInfo *TSI = V->getTypeSourceInfo();
  QualType T = V->getType();
  if (!TSI || T->isArrayType() || T->isPointerType() || T->isReferenceType())
    return "";
  return spelledType(Ctx, TSI->getTypeLoc());
}

namespace {

/// \p T with whitespace runs removed and redundant outer parentheses.
std::string compact(const std::string &T) {
  std::string Out;
  for (char C : T)
    if (!llvm::isSpace(C))
      Out += C;
  // Redundant outer parentheses do not change a bound.
  while (Out.size() > 2 && Out.front() == '(' && Out.back() == ')') {
    int Depth = 0;
    bool Outer = true;
    for (size_t I = 0; I + 1 < Out.size(); ++I) {
      Depth += Out[I] == '(' ? 1 : Out[I] == ')' ? -1 : 0;
      if (Depth == 0) {
        Outer = false;
        break;
      }
    }
    if (!Outer)
      break;
    Out = Out.substr(1, Out.size() - 2);
  }
  return Out;
}

} // namespace

std::string normalised(const ASTContext &Ctx, const Expr *E) {
  return compact(sourceText(Ctx, E->getSourceRange()));
}

std::string subscriptText(const ASTContext &Ctx, const Expr *E) {
  if (E->getBeginLoc().isFileID() && E->getEndLoc().isFileID())
    return normalised(Ctx, E);
  // Written through a macro: what it expands to, not the invocation's
  // text (`x[j]` in `#define cell(x, j) sqrt(x[j])` is subscript j).
  std::string T;
  llvm::raw_string_ostream OS(T);
  PrintingPolicy Policy(Ctx.getLangOpts());
  E->printPretty(OS, nullptr, Policy);
  return compact(OS.str());
}

const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

const VarDecl *baseVar(const Expr *E) {
  E = strip(E);
  while (E) {
    if (auto *DR = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(DR->getDecl());
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = strip(AS->getBase());
    else if (auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref)
      E = strip(U->getSubExpr());
    else if (auto *M = dyn_cast<MemberExpr>(E))
      E = strip(M->getBase());
    else if (auto *B = dyn_cast<BinaryOperator>(E);
             B && B->isAdditiveOp() && B->getType()->isPointerType())
      E = strip(B->getLHS()->getType()->isPointerType() ? B->getLHS()
                                                        : B->getRHS());
    else
      return nullptr;
  }
  return nullptr;
}

const VarDecl *subscripts(const Expr *E, std::vector<const Expr *> &Subs) {
  E = strip(E);
  std::vector<const Expr *> Rev;
  while (auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    Rev.push_back(AS->getIdx());
    E = strip(AS->getBase());
  }
  Subs.assign(Rev.rbegin(), Rev.rend());
  return referencedVar(E);
}

bool WrittenVars::VisitBinaryOperator(BinaryOperator *B) {
  if (B->isAssignmentOp())
    if (const VarDecl *V = referencedVar(B->getLHS()))
      At[V].push_back(B->getBeginLoc());
  return true;
}

bool WrittenVars::VisitUnaryOperator(UnaryOperator *U) {
  if (U->isIncrementDecrementOp())
    if (const VarDecl *V = referencedVar(U->getSubExpr()))
      At[V].push_back(U->getBeginLoc());
  if (U->getOpcode() == UO_AddrOf)
    if (const VarDecl *V = referencedVar(U->getSubExpr()))
      AddressTaken.insert(V);
  return true;
}

bool writesAny(const Stmt *S, const std::set<const VarDecl *> &Vars) {
  if (!S || Vars.empty())
    return false;
  for (const VarDecl *V : writtenVariables(S))
    if (Vars.count(V))
      return true;
  return false;
}

bool hasOwnJump(const Stmt *S, bool Breaks, bool Continues) {
  if (!S)
    return false;
  if (Breaks && isa<BreakStmt>(S))
    return true;
  if (Continues && isa<ContinueStmt>(S))
    return true;
  bool InnerLoop = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S);
  bool InnerSwitch = isa<SwitchStmt>(S);
  for (const Stmt *C : childrenOf(S))
    if (hasOwnJump(C, Breaks && !InnerLoop && !InnerSwitch,
                   Continues && !InnerLoop))
      return true;
  return false;
}

bool plainData(QualType T) {
  T = T.getCanonicalType();
  if (T->isArithmeticType() || T->isEnumeralType())
    return true;
  if (const ArrayType *A = T->getAsArrayTypeUnsafe())
    return isa<ConstantArrayType>(A) && plainData(A->getElementType());
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || !RD->isCompleteDefinition() || RD->isUnion())
    return false;
  if (auto *CXX = dyn_cast<CXXRecordDecl>(RD))
    if (!CXX->isTriviallyCopyable() || CXX->getNumBases() > 0 ||
        CXX->isPolymorphic())
      return false;
  for (const FieldDecl *F : RD->fields())
    if (!plainData(F->getType()))
      return false;
  return true;
}

bool localType(QualType Q) {
  for (int Guard = 0; Guard < 64 && !Q.isNull(); ++Guard) {
    if (const auto *TT = Q->getAs<TypedefType>()) {
      if (TT->getDecl()->getDeclContext()->isFunctionOrMethod())
        return true;
      Q = TT->getDecl()->getUnderlyingType();
      continue;
    }
    if (const TagDecl *TD = Q->getAsTagDecl())
      return TD->getDeclContext()->isFunctionOrMethod();
    if (Q->isPointerType()) {
      Q = Q->getPointeeType();
      continue;
    }
    if (const ArrayType *AT = Q->getAsArrayTypeUnsafe()) {
      Q = AT->getElementType();
      continue;
    }
    return false;
  }
  return false;
}

const Stmt *soleStatement(const Stmt *S) {
  while (auto *C = dyn_cast_or_null<CompoundStmt>(S)) {
    if (C->size() != 1)
      return S;
    S = C->body_front();
  }
  return S;
}

bool sameVariables(const Expr *A, const Expr *B) {
  auto Refs = [](const Expr *E) {
    std::vector<const Decl *> Out;
    std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
      if (!S)
        return;
      if (auto *DR = dyn_cast<DeclRefExpr>(S))
        Out.push_back(DR->getDecl()->getCanonicalDecl());
      for (const Stmt *C : S->children())
        Walk(C);
    };
    Walk(E);
    return Out;
  };
  return Refs(A) == Refs(B);
}

unsigned OffloadSource::stmtEnd(const Stmt *S) const {
  // A statement ending in a macro's arguments (`AT(B, i, j) = AT(A, i, j);`)
  // ends at the invocation's `)`, not at its name.
  SourceLocation End = S->getEndLoc();
  End = End.isMacroID() ? SM.getExpansionRange(End).getEnd()
                        : SM.getExpansionLoc(End);
  unsigned Off = offset(End) + Lexer::MeasureTokenLength(End, SM, LO);
  if (isa<CompoundStmt>(S) || Contents[Off - 1] == '}')
    return Off;
  // The `;` closing an expression statement is not part of its range.
  unsigned I = Off;
  while (I < Contents.size() && llvm::isSpace(Contents[I]))
    ++I;
  if (I < Contents.size() && Contents[I] == ';')
    return I + 1;
  return Off;
}

unsigned OffloadSource::endOf(const Stmt *S) const {
  if (auto *D = dyn_cast<OMPExecutableDirective>(S))
    if (const Stmt *B = directiveBody(D))
      return stmtEnd(B);
  return stmtEnd(S);
}

unsigned OffloadSource::headOffset(const Stmt *S) const {
  if (auto *D = dyn_cast<OMPExecutableDirective>(S))
    if (const Stmt *B = directiveBody(D))
      return offset(B->getBeginLoc());
  return offset(S->getBeginLoc());
}

std::pair<unsigned, unsigned>
OffloadSource::pragmaLines(const OMPExecutableDirective *D) const {
  unsigned B = lineStart(offset(D->getBeginLoc()));
  unsigned E = offset(D->getBeginLoc());
  while (E < Contents.size()) {
    size_t NL = Contents.find('\n', E);
    if (NL == llvm::StringRef::npos) {
      E = Contents.size();
      break;
    }
    E = NL + 1;
    llvm::StringRef Line = Contents.slice(B, NL).rtrim();
    if (!Line.ends_with("\\"))
      break;
  }
  return {lineStart(offset(D->getBeginLoc())), E};
}

} // namespace offload
} // namespace warpwise
