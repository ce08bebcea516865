//===- SplitText.cpp - Statement text for the split's kernels -------------===//
#include "SplitText.h"

#include "SourceText.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

namespace warpwise {

using namespace clang;

std::string writtenText(const SourceManager &SM, const LangOptions &LO,
                        SourceRange R) {
  CharSourceRange FR =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (!FR.isValid())
    return "";
  return Lexer::getSourceText(FR, SM, LO).str();
}

unsigned lineStart(llvm::StringRef Text, unsigned Pos) {
  size_t NL = Text.rfind('\n', Pos); // Looks at the bytes before Pos.
  return NL == llvm::StringRef::npos ? 0 : NL + 1;
}

std::string indentBefore(llvm::StringRef Text, unsigned Pos) {
  llvm::StringRef Before = Text.slice(lineStart(Text, Pos), Pos);
  return Before.trim().empty() ? Before.str() : std::string();
}

unsigned aboveLineComments(llvm::StringRef Text, unsigned Offset) {
  unsigned Start = lineStart(Text, Offset);
  if (!Text.slice(Start, Offset).trim().empty())
    return Offset; // Something else precedes it on its line.
  while (Start > 0) {
    unsigned PrevStart = lineStart(Text, Start - 1);
    if (!Text.slice(PrevStart, Start - 1).trim().starts_with("//"))
      break;
    Start = PrevStart;
  }
  return Start;
}

namespace {

class BuiltinFinder : public RecursiveASTVisitor<BuiltinFinder> {
public:
  BuiltinFinder(const SourceManager &SM, const LangOptions &LO)
      : SM(SM), LO(LO) {}
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *P) {
    const Expr *B = P->getBaseExpr()->IgnoreParenImpCasts();
    if (auto *O = dyn_cast<OpaqueValueExpr>(B))
      B = O->getSourceExpr()->IgnoreParenImpCasts();
    auto *R = dyn_cast_or_null<DeclRefExpr>(B);
    if (!R)
      return true;
    std::string Obj = R->getDecl()->getNameAsString();
    if (Obj != "threadIdx" && Obj != "blockIdx" && Obj != "blockDim" &&
        Obj != "gridDim")
      return true;
    Refs.push_back(
        {Obj, P->getPropertyDecl()->getNameAsString(),
         Lexer::makeFileCharRange(
             CharSourceRange::getTokenRange(P->getSourceRange()), SM, LO)});
    return true;
  }
  std::vector<BuiltinRef> Refs;

private:
  const SourceManager &SM;
  const LangOptions &LO;
};

/// The variables a statement or expression refers to.
class VarRefs : public RecursiveASTVisitor<VarRefs> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (auto *V = dyn_cast<VarDecl>(E->getDecl()))
      Vars.insert(V->getCanonicalDecl());
    return true;
  }
  std::set<const VarDecl *> Vars;
};

/// The variable whose storage an lvalue \p E names (`v`, `s.x`, `a[i]` of a
/// local array `a`), or null when it is reached through a pointer.
const VarDecl *storageVar(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return nullptr;
      E = M->getBase();
    } else if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      // `a[i]` of an array (the base decays from it), not of a pointer.
      const Expr *Base = A->getBase()->IgnoreParenImpCasts();
      if (!Base->getType()->isArrayType())
        return nullptr;
      E = Base;
    } else if (auto *R = dyn_cast<DeclRefExpr>(E)) {
      return dyn_cast<VarDecl>(R->getDecl());
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// What a prefix statement changes besides memory (legality kept memory
/// stores out of the prefix): the variables it assigns, increments, takes
/// the address of or passes by reference, and whether it does anything a
/// kernel that leaves it out would miss (leaves the kernel, writes through
/// something other than a variable, runs assembly).
struct PrefixEffects {
  std::set<const VarDecl *> Writes;
  bool MustKeep = false;
};

void collectPrefixEffects(const Stmt *S, PrefixEffects &E) {
  if (!S || E.MustKeep)
    return;
  auto Write = [&](const Expr *Target) {
    if (const VarDecl *V = storageVar(Target))
      E.Writes.insert(V->getCanonicalDecl());
    else
      E.MustKeep = true;
  };
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) ||
      isa<LabelStmt>(S) || isa<AsmStmt>(S)) {
    E.MustKeep = true;
    return;
  }
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->isAssignmentOp())
      Write(B->getLHS());
  } else if (auto *U = dyn_cast<UnaryOperator>(S)) {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      Write(U->getSubExpr());
  } else if (auto *C = dyn_cast<CallExpr>(S)) {
    // Any argument a callee could write through: by reference, by pointer,
    // or to a callee not known; an operator's or a method's object too.
    const FunctionDecl *Callee = C->getDirectCallee();
    bool Operator = isa<CXXOperatorCallExpr>(C);
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      const Expr *A = C->getArg(I);
      QualType P = !Operator && Callee && I < Callee->getNumParams()
                       ? Callee->getParamDecl(I)->getType()
                       : QualType();
      if (P.isNull() || P->isReferenceType() || P->isPointerType())
        if (A->isGLValue() || A->getType()->isPointerType())
          if (const VarDecl *V = storageVar(A))
            E.Writes.insert(V->getCanonicalDecl());
    }
    if (auto *M = dyn_cast<CXXMemberCallExpr>(C))
      if (const VarDecl *V = storageVar(M->getImplicitObjectArgument()))
        E.Writes.insert(V->getCanonicalDecl());
  } else if (auto *C = dyn_cast<CXXConstructExpr>(S)) {
    for (const Expr *A : C->arguments())
      if (A->isGLValue())
        if (const VarDecl *V = storageVar(A))
          E.Writes.insert(V->getCanonicalDecl());
  } else if (auto *D = dyn_cast<DeclStmt>(S)) {
    for (const Decl *Dc : D->decls()) {
      auto *V = dyn_cast<VarDecl>(Dc);
      const CXXRecordDecl *R =
          V ? V->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl()
            : nullptr;
      // A declaration of anything else, a static or a reference (an alias
      // of another variable), or an object with a destructor of its own.
      if (!V || V->isStaticLocal() || V->getType()->isReferenceType() ||
          (R && R->hasDefinition() && !R->hasTrivialDestructor()))
        E.MustKeep = true;
      else
        E.Writes.insert(V->getCanonicalDecl());
    }
  }
  for (const Stmt *Child : S->children())
    collectPrefixEffects(Child, E);
}

} // namespace

std::vector<const Stmt *> usedPrefix(const std::vector<const Stmt *> &Prefix,
                                     std::vector<const Stmt *> Uses) {
  VarRefs Needed;
  for (const Stmt *U : Uses)
    Needed.TraverseStmt(const_cast<Stmt *>(U));
  std::vector<const Stmt *> Kept;
  for (auto It = Prefix.rbegin(); It != Prefix.rend(); ++It) {
    PrefixEffects E;
    collectPrefixEffects(*It, E);
    if (!E.MustKeep && llvm::none_of(E.Writes, [&](const VarDecl *V) {
          return Needed.Vars.count(V);
        }))
      continue;
    Kept.push_back(*It);
    Needed.TraverseStmt(const_cast<Stmt *>(*It));
  }
  std::reverse(Kept.begin(), Kept.end());
  return Kept;
}

std::optional<std::pair<unsigned, unsigned>>
statementLines(const Stmt *S, const SourceManager &SM, const LangOptions &LO,
               llvm::StringRef Text) {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
  if (!R.isValid())
    return std::nullopt;
  unsigned Begin = SM.getFileOffset(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  if (End > Text.size() || Begin > End)
    return std::nullopt;
  if (!Text.slice(Begin, End).rtrim().ends_with(";") &&
      !Text.slice(Begin, End).rtrim().ends_with("}")) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        R.getEnd().getLocWithOffset(-1), tok::semi, SM, LO,
        /*SkipTrailingWhitespaceAndNewLine=*/false);
    if (Semi.isInvalid())
      return std::nullopt;
    End = SM.getFileOffset(Semi);
  }
  // Whole lines, with the statement's comments: a trailing `//` comment and
  // the `//` lines directly above it.
  unsigned LineBegin = lineStart(Text, Begin);
  size_t LineEnd = Text.find('\n', End);
  llvm::StringRef After = Text.slice(End, LineEnd).trim();
  if (!Text.slice(LineBegin, Begin).trim().empty() ||
      LineEnd == llvm::StringRef::npos ||
      !(After.empty() || After.starts_with("//")))
    return std::make_pair(Begin, End);
  return std::make_pair(aboveLineComments(Text, Begin),
                        static_cast<unsigned>(LineEnd + 1));
}


std::vector<BuiltinRef> builtinRefs(const Stmt *S, const SourceManager &SM,
                                    const LangOptions &LO) {
  BuiltinFinder BF(SM, LO);
  BF.TraverseStmt(const_cast<Stmt *>(S));
  return BF.Refs;
}

namespace {

/// The source of \p S with each builtin reference that \p Rename maps to a
/// non-empty string replaced by it, and top-level `return` statements of
/// \p Returns turned into \p ReturnAs.
std::string
renderMapped(const Stmt *S, const SourceManager &SM, const LangOptions &LO,
             const std::function<std::string(const BuiltinRef &)> &Rename,
             const std::set<const Stmt *> &Returns,
             const std::string &ReturnAs) {
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
  if (!R.isValid())
    return "";
  unsigned Begin = SM.getFileOffset(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> Edits;
  BuiltinFinder BF(SM, LO);
  BF.TraverseStmt(const_cast<Stmt *>(S));
  for (const BuiltinRef &B : BF.Refs) {
    if (!B.Range.isValid())
      return "";
    std::string To = Rename(B);
    if (To.empty())
      continue;
    Edits.push_back({{SM.getFileOffset(B.Range.getBegin()),
                      SM.getFileOffset(B.Range.getEnd())},
                     To});
  }
  for (const Stmt *Ret : Returns) {
    CharSourceRange RR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Ret->getSourceRange()), SM, LO);
    unsigned RB = SM.getFileOffset(RR.getBegin());
    if (RB >= Begin && RB < End)
      Edits.push_back({{RB, SM.getFileOffset(RR.getEnd())}, ReturnAs});
  }
  std::sort(Edits.begin(), Edits.end());
  llvm::StringRef File = SM.getBufferData(SM.getFileID(R.getBegin()));
  std::string Out;
  unsigned Pos = Begin;
  for (auto &[Rg, T] : Edits) {
    if (Rg.first < Pos)
      continue;
    Out += File.substr(Pos, Rg.first - Pos).str() + T;
    Pos = Rg.second;
  }
  Out += File.substr(Pos, End - Pos).str();
  return withSemicolon(S, Out, SM, LO);
}

} // namespace

std::string renderWith(const Stmt *S, const SourceManager &SM,
                       const LangOptions &LO, const std::string &Thread,
                       const std::string &Block,
                       const std::set<const Stmt *> &Returns,
                       const std::string &ReturnAs) {
  return renderMapped(
      S, SM, LO,
      [&](const BuiltinRef &B) {
        return B.Object == "threadIdx"  ? Thread
               : B.Object == "blockIdx" ? Block
                                        : std::string();
      },
      Returns, ReturnAs);
}

std::string renderAsWritten(const Stmt *S, const SourceManager &SM,
                            const LangOptions &LO,
                            const std::set<const Stmt *> &Returns,
                            const std::string &ReturnAs) {
  return renderMapped(
      S, SM, LO, [](const BuiltinRef &) { return std::string(); }, Returns,
      ReturnAs);
}

std::string renderListed(const Stmt *S, const SourceManager &SM,
                         const LangOptions &LO,
                         const std::set<const Stmt *> &Returns,
                         const std::string &ReturnAs) {
  return renderMapped(
      S, SM, LO,
      [&](const BuiltinRef &B) {
        const char *To = B.Object == "threadIdx" ? "ww_thread."
                         : B.Object == "blockIdx" ? "ww_block."
                         : B.Object == "gridDim"  ? "ww_grid."
                                                  : nullptr;
        return To ? To + B.Component : std::string();
      },
      Returns, ReturnAs);
}

} // namespace warpwise
