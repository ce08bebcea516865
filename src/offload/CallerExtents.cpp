//===- CallerExtents.cpp - A pointer parameter's extent from its callers -===//
#include "CallerExtents.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <functional>

using namespace clang;

namespace warpwise {
namespace offload {

namespace {

/// How many calls up a pointer is followed: a parameter passed down more
/// often than this stays unknown.
constexpr unsigned MaxCallDepth = 4;

/// Every call of a function the file defines, with the function it is in;
/// and the functions named other than as a call's callee.
class CallIndex : public RecursiveASTVisitor<CallIndex> {
public:
  struct Found {
    const CallExpr *Call;
    const FunctionDecl *Caller;
  };
  std::map<const FunctionDecl *, std::vector<Found>> Calls;
  std::set<const FunctionDecl *> NotFollowed;
  bool DefinesMain = false;

  bool TraverseFunctionDecl(FunctionDecl *F) {
    if (F->isMain() && F->doesThisDeclarationHaveABody())
      DefinesMain = true;
    const FunctionDecl *Outer = Current;
    Current = F;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(F);
    Current = Outer;
    return R;
  }
  bool VisitCallExpr(CallExpr *C) {
    const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
    if (auto *DR = dyn_cast<DeclRefExpr>(Callee))
      Callees.insert(DR);
    if (const FunctionDecl *F = C->getDirectCallee())
      Calls[F->getCanonicalDecl()].push_back({C, Current});
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (auto *F = dyn_cast<FunctionDecl>(DR->getDecl());
        F && !Callees.count(DR))
      NotFollowed.insert(F->getCanonicalDecl());
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *E) {
    for (const NamedDecl *D : E->decls())
      if (auto *F = dyn_cast<FunctionDecl>(D->getUnderlyingDecl()))
        NotFollowed.insert(F->getCanonicalDecl());
    return true;
  }

private:
  const FunctionDecl *Current = nullptr;
  std::set<const DeclRefExpr *> Callees;
};

/// \p E through parentheses, implicit casts and explicit casts that keep
/// the element type (`(const float *)a`).
const Expr *pointerArgument(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    auto *Cast = dyn_cast<ExplicitCastExpr>(E);
    if (!Cast)
      return E;
    QualType To = Cast->getType(), From = Cast->getSubExpr()->getType();
    if (!To->isPointerType() || !From->isPointerType() ||
        To->getPointeeType().getCanonicalType().getUnqualifiedType() !=
            From->getPointeeType().getCanonicalType().getUnqualifiedType())
      return E;
    E = Cast->getSubExpr();
  }
}

bool sameElement(QualType A, QualType B) {
  return A.getCanonicalType().getUnqualifiedType() ==
         B.getCanonicalType().getUnqualifiedType();
}

/// A size variable passed as \p Arg keeps its value in parameter \p To: the
/// same integer type, or one at least as wide of the same signedness.
bool keepsValue(const ASTContext &Ctx, QualType From, QualType To) {
  From = From.getCanonicalType().getUnqualifiedType();
  To = To.getCanonicalType().getUnqualifiedType();
  if (From == To)
    return true;
  if (!From->isIntegerType() || !To->isIntegerType())
    return false;
  return From->isSignedIntegerType() == To->isSignedIntegerType() &&
         Ctx.getTypeSize(To) >= Ctx.getTypeSize(From);
}

bool declaresName(const Stmt *S, llvm::StringRef Name) {
  if (!S)
    return false;
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D); V && V->getName() == Name)
        return true;
  for (const Stmt *C : S->children())
    if (declaresName(C, Name))
      return true;
  return false;
}

} // namespace

std::string CallerExtents::Count::render() const {
  std::string S = Text[0];
  for (size_t I = 0; I < Vars.size(); ++I)
    S += Vars[I]->getNameAsString() + Text[I + 1];
  return S;
}

void CallerExtents::Count::append(const Count &C) {
  Text.back() += C.Text.front();
  Text.insert(Text.end(), C.Text.begin() + 1, C.Text.end());
  Vars.insert(Vars.end(), C.Vars.begin(), C.Vars.end());
}

CallerExtents::CallerExtents(const OffloadSource &Src)
    : Src(Src), Ctx(Src.Ctx) {
  CallIndex Index;
  Index.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (auto &[F, Found] : Index.Calls)
    for (const CallIndex::Found &C : Found)
      Calls[F].push_back({C.Call, C.Caller});
  NotFollowed = std::move(Index.NotFollowed);
  DefinesMain = Index.DefinesMain;
}

const FunctionData &CallerExtents::dataOf(const FunctionDecl *G) {
  auto [It, New] = Data.try_emplace(G);
  if (New)
    It->second.reset(Ctx, G);
  return It->second;
}

std::string CallerExtents::lineOf(const Stmt *S) const {
  return Src.lineOf(S->getBeginLoc());
}

bool CallerExtents::unchangedIn(const FunctionDecl *F, const VarDecl *P) {
  const FunctionData &D = dataOf(F);
  auto It = D.Writes.At.find(P);
  return (It == D.Writes.At.end() || It->second.empty()) &&
         !D.Writes.AddressTaken.count(P) && !writesAny(F->getBody(), {P});
}

bool CallerExtents::countOf(const FunctionDecl *F, const ParmVarDecl *V,
                            CallerCount &Out, std::string &Why) {
  unsigned Index = V->getFunctionScopeIndex();
  Count C;
  Assumption.clear();
  if (!paramCount(F, Index, C, Why, 0))
    return false;
  // The count is evaluated in F, where its names must be F's parameters
  // (or constants declared before F), not a local that hides one.
  for (const VarDecl *X : C.Vars)
    if (X->hasGlobalStorage()
            ? Src.offset(X->getLocation()) > Src.offset(F->getBeginLoc())
            : declaresName(F->getBody(), X->getName())) {
      Why = "'" + X->getNameAsString() + "', which its extent reads, is " +
            (X->hasGlobalStorage()
                 ? "declared after '" + F->getNameAsString() + "'"
                 : "hidden by a local of the same name");
      return false;
    }
  Out.Text = C.render();
  Out.Vars = C.Vars;
  Out.From = C.From;
  Out.Assumption = Assumption;
  return true;
}

bool CallerExtents::mayBeCalledElsewhere(const FunctionDecl *F,
                                         std::string &Why,
                                         std::string &Assumed) {
  std::string Name = "'" + F->getNameAsString() + "'";
  if (F->getDescribedFunctionTemplate() || F->isTemplateInstantiation()) {
    Why = Name + " is a function template, whose calls are not followed";
    return true;
  }
  if (NotFollowed.count(F->getCanonicalDecl())) {
    Why = Name + " is used other than by direct calls (a function pointer "
                 "or a template's call)";
    return true;
  }
  if (!F->isExternallyVisible())
    return false;
  if (!DefinesMain) {
    Why = Name + " may be called from other files (declare it static)";
    return true;
  }
  for (const FunctionDecl *R : F->redecls())
    if (!Src.SM.isInMainFile(Src.SM.getExpansionLoc(R->getLocation()))) {
      Why = Name + " is declared in a header, so other files may call it";
      return true;
    }
  Assumed = Name + " has external linkage: the calls in this file, which "
                   "defines main, decided its extents";
  return false;
}

bool CallerExtents::paramCount(const FunctionDecl *F, unsigned Index,
                               Count &Out, std::string &Why, unsigned Depth) {
  F = F->getDefinition() ? F->getDefinition() : F;
  if (Depth > MaxCallDepth) {
    Why = "it is passed down more than " + std::to_string(MaxCallDepth) +
          " calls";
    return false;
  }
  std::string Assumed;
  if (mayBeCalledElsewhere(F, Why, Assumed))
    return false;
  auto It = Calls.find(F->getCanonicalDecl());
  if (It == Calls.end() || It->second.empty()) {
    Why = "no call of '" + F->getNameAsString() + "' is in this file";
    return false;
  }
  const ParmVarDecl *P = F->getParamDecl(Index);
  std::string First, Lines;
  for (const CallSite &C : It->second) {
    if (Index >= C.Expr->getNumArgs() || !C.Caller) {
      Why = "the call at line " + lineOf(C.Expr) + " passes no such argument";
      return false;
    }
    const Expr *Arg = pointerArgument(C.Expr->getArg(Index));
    const VarDecl *W = referencedVar(Arg);
    if (!W || !isa<DeclRefExpr>(Arg)) {
      Why = "the call at line " + lineOf(C.Expr) + " passes '" +
            sourceTextOf(Arg) + "', not a variable";
      return false;
    }
    Count Mine;
    if (!pointerCount(W, C, P->getType()->getPointeeType(), Mine, Why, Depth) ||
        !inCallee(C, F, Mine, Why))
      return false;
    std::string Text = Mine.render();
    if (!First.empty() && Text != First) {
      Why = "its calls pass arrays of different extents (" + First +
            " and, at line " + lineOf(C.Expr) + ", " + Text + ")";
      return false;
    }
    if (First.empty()) {
      First = Text;
      Out = Mine;
    }
    Lines += (Lines.empty() ? "" : ", ") + lineOf(C.Expr);
  }
  Out.From = "line " + lineOf(It->second.front().Expr) + " passes " + Out.From;
  if (It->second.size() > 1)
    Out.From += " (the calls at lines " + Lines + " agree)";
  if (!Assumed.empty())
    Assumption = Assumed;
  return true;
}

std::string CallerExtents::sourceTextOf(const Expr *E) const {
  CharSourceRange R = CharSourceRange::getTokenRange(
      Src.SM.getExpansionRange(E->getBeginLoc()).getBegin(),
      Src.SM.getExpansionRange(E->getEndLoc()).getEnd());
  return Lexer::getSourceText(R, Src.SM, Src.LO).str();
}

bool CallerExtents::inCallee(const CallSite &C, const FunctionDecl *F,
                             Count &Out, std::string &Why) {
  // Each variable of the caller's count is passed to F as a whole argument;
  // the count then reads that parameter. Constants stay themselves.
  for (const VarDecl *&X : Out.Vars) {
    if (X->hasGlobalStorage())
      continue;
    const ParmVarDecl *To = nullptr;
    for (unsigned J = 0; J < C.Expr->getNumArgs() && J < F->getNumParams();
         ++J) {
      const Expr *Arg = C.Expr->getArg(J)->IgnoreParenImpCasts();
      if (isa<DeclRefExpr>(Arg) && referencedVar(Arg) == X &&
          keepsValue(Ctx, X->getType(), F->getParamDecl(J)->getType())) {
        To = F->getParamDecl(J);
        break;
      }
    }
    if (!To || To->getName().empty()) {
      Why = "its size reads '" + X->getNameAsString() +
            "', which the call at "
            "line " +
            lineOf(C.Expr) + " does not pass to '" + F->getNameAsString() + "'";
      return false;
    }
    if (!unchangedIn(F, To)) {
      Why = "'" + F->getNameAsString() + "' changes its parameter '" +
            To->getNameAsString() + "', which the extent reads";
      return false;
    }
    X = To;
  }
  return true;
}

bool CallerExtents::pointerCount(const VarDecl *W, const CallSite &C,
                                 QualType Pointee, Count &Out, std::string &Why,
                                 unsigned Depth, bool Swaps) {
  std::string Name = "'" + W->getNameAsString() + "'";
  const FunctionDecl *G = C.Caller;
  if (auto *CA = Ctx.getAsConstantArrayType(W->getType())) {
    if (!sameElement(CA->getElementType(), Pointee)) {
      Why = "the array " + Name + " has another element type";
      return false;
    }
    Out.Text = {"(" + std::to_string(CA->getSize().getZExtValue()) + ")"};
    Out.From =
        "the array " + Name + " (line " + Src.lineOf(W->getLocation()) + ")";
    return true;
  }
  if (!W->getType()->isPointerType() ||
      !sameElement(W->getType()->getPointeeType(), Pointee)) {
    Why = Name + " is not a pointer to the parameter's element type";
    return false;
  }
  if (!W->isLocalVarDeclOrParm()) {
    Why = Name + " is a global pointer";
    return false;
  }
  const FunctionData &D = dataOf(G);
  if (D.Writes.AddressTaken.count(W)) {
    Why = "the address of " + Name + " is taken in '" + G->getNameAsString() +
          "'";
    return false;
  }
  unsigned N = 0;
  const Expr *Alloc = assignmentsOf(D, G->getBody(), W, false, N);
  if (auto *PV = dyn_cast<ParmVarDecl>(W)) {
    if (N != 0) {
      Why = "'" + G->getNameAsString() + "' assigns its parameter " + Name;
      return false;
    }
    if (!paramCount(G, PV->getFunctionScopeIndex(), Out, Why, Depth + 1))
      return false;
    Out.From = Name + " of '" + G->getNameAsString() + "', where " + Out.From;
  } else {
    if (N != 1 || !Alloc) {
      Why = Name + " is assigned " + (N ? "more than once" : "nowhere") +
            " in '" + G->getNameAsString() + "'";
      return false;
    }
    // The assignment runs before the call, whenever the call does.
    const Stmt *Child = nullptr;
    const Stmt *Holder = allocationBlock(Ctx, Alloc, Child);
    unsigned CallAt = Src.offset(C.Expr->getBeginLoc());
    if (!Holder || Src.offset(Holder->getBeginLoc()) > CallAt ||
        Src.offset(Holder->getEndLoc()) < CallAt ||
        Src.stmtEnd(Child) > CallAt) {
      Why = "the assignment of " + Name + " at line " + lineOf(Alloc) +
            " is not in a block that holds the call at line " + lineOf(C.Expr) +
            ", before it";
      return false;
    }
    const Expr *Value = pointerArgument(Alloc);
    if (const VarDecl *Y = referencedVar(Value);
        Y && isa<DeclRefExpr>(Value) && Y != W) {
      if (!pointerCount(Y, C, Pointee, Out, Why, Depth))
        return false;
      Out.From = Name + ", set to " + Out.From;
    } else if (!allocationCount(Value->IgnoreParenCasts(), Pointee, Out, Why) ||
               !stableUntilCall(Out, G, Holder, Child, Why)) {
      return false;
    } else {
      Out.From = "the allocation of " + Name + " at line " + lineOf(Alloc) +
                 " of '" + G->getNameAsString() + "'";
    }
  }
  return !Swaps || swapsAgree(W, C, Pointee, Out, Why, Depth);
}

bool CallerExtents::swapsAgree(const VarDecl *W, const CallSite &C,
                               QualType Pointee, const Count &Mine,
                               std::string &Why, unsigned Depth) {
  // A buffer the caller swaps with another points to either allocation:
  // both must have one extent.
  for (const SwapTriple &T : dataOf(C.Caller).Swaps) {
    if (T.A != W && T.B != W)
      continue;
    const VarDecl *Other = T.A == W ? T.B : T.A;
    Count Theirs;
    if (!pointerCount(Other, C, Pointee, Theirs, Why, Depth, false))
      return false;
    if (Theirs.render() != Mine.render() || Theirs.Vars != Mine.Vars) {
      Why = "'" + W->getNameAsString() + "' is swapped with '" +
            Other->getNameAsString() + "', of another extent";
      return false;
    }
  }
  return true;
}

bool CallerExtents::allocationCount(const Expr *Alloc, QualType Pointee,
                                    Count &Out, std::string &Why) {
  auto IsSizeof = [](const Expr *E) {
    auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
    return U && U->getKind() == UETT_SizeOf;
  };
  // An element count, or a byte count over the element's size.
  std::string Element =
      Pointee.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  auto Bytes = [&](const Expr *E) {
    Count C;
    if (!exprCount(E, C, Why))
      return false;
    Out.append("((");
    Out.append(C);
    Out.append(") / sizeof(" + Element + "))");
    return true;
  };
  auto Elements = [&](const Expr *E) {
    Count C;
    if (!exprCount(E, C, Why))
      return false;
    Out.append("(");
    Out.append(C);
    Out.append(")");
    return true;
  };
  if (auto *New = dyn_cast<CXXNewExpr>(Alloc)) {
    if (!New->isArray() || !New->getArraySize() || New->getNumPlacementArgs() ||
        !sameElement(New->getAllocatedType(), Pointee)) {
      Why = "its allocation is not a new[] of its element type";
      return false;
    }
    return Elements(*New->getArraySize());
  }
  auto *Call = dyn_cast<CallExpr>(Alloc);
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  bool Calloc = F && F->getName() == "calloc" && Call->getNumArgs() == 2;
  if (!F ||
      (!Calloc && (F->getName() != "malloc" || Call->getNumArgs() != 1))) {
    Why = "it is not set by malloc, calloc or new[]";
    return false;
  }
  auto SizeofElement = [&](const Expr *E) {
    auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
    return U && U->getKind() == UETT_SizeOf &&
           sameElement(U->getTypeOfArgument(), Pointee);
  };
  if (Calloc) {
    const Expr *N = Call->getArg(0), *S = Call->getArg(1);
    if (SizeofElement(S))
      return Elements(N);
    Count C;
    if (!exprCount(N, C, Why))
      return false;
    C.append(") * (");
    Count Size;
    if (!exprCount(S, Size, Why))
      return false;
    C.append(Size);
    Out.append("((");
    Out.append(C);
    Out.append(") / sizeof(" + Element + "))");
    return true;
  }
  const Expr *E = Call->getArg(0)->IgnoreParenImpCasts();
  if (auto *M = dyn_cast<BinaryOperator>(E->IgnoreParens());
      M && M->getOpcode() == BO_Mul) {
    if (SizeofElement(M->getRHS()) && !IsSizeof(M->getLHS()))
      return Elements(M->getLHS());
    if (SizeofElement(M->getLHS()) && !IsSizeof(M->getRHS()))
      return Elements(M->getRHS());
    // `sizeof(T) * n * m`: the product after its first factor.
    const BinaryOperator *Leftmost = M;
    while (auto *L = dyn_cast<BinaryOperator>(
               Leftmost->getLHS()->IgnoreParenImpCasts()))
      if (L->getOpcode() == BO_Mul)
        Leftmost = L;
      else
        break;
    if (Leftmost != M && SizeofElement(Leftmost->getLHS()) &&
        !IsSizeof(Leftmost->getRHS())) {
      Count C;
      if (!exprCount(E, C, Why, Leftmost->getRHS()))
        return false;
      Out.append("(");
      Out.append(C);
      Out.append(")");
      return true;
    }
  }
  return Bytes(E);
}

bool CallerExtents::exprCount(const Expr *E, Count &Out, std::string &Why,
                              const Expr *From) {
  // The size's text, with each variable it reads cut out to be renamed:
  // variables spelled in the file (in a macro's argument too), never inside
  // a macro's body; constants (enumerators, macros of numbers) as written.
  const SourceManager &SM = Src.SM;
  CharSourceRange R = CharSourceRange::getTokenRange(
      SM.getExpansionRange(E->getBeginLoc()).getBegin(),
      SM.getExpansionRange(E->getEndLoc()).getEnd());
  if (!SM.isInMainFile(R.getBegin())) {
    Why = "its size is not written in this file";
    return false;
  }
  unsigned Begin = SM.getFileOffset(R.getBegin());
  if (From)
    Begin = Src.offset(From->getBeginLoc());
  unsigned End = SM.getFileOffset(R.getEnd()) +
                 Lexer::MeasureTokenLength(R.getEnd(), SM, Src.LO);
  std::vector<std::pair<unsigned, const DeclRefExpr *>> Refs;
  bool OK = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !OK)
      return;
    if (auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(S);
        U && U->isArgumentType())
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S)) {
      const ValueDecl *D = DR->getDecl();
      if (isa<EnumConstantDecl>(D))
        return;
      auto *X = dyn_cast<VarDecl>(D);
      SourceLocation L = DR->getLocation();
      if (L.isMacroID() && SM.isMacroArgExpansion(L))
        L = SM.getSpellingLoc(L);
      bool Constant = X && X->hasGlobalStorage() && !X->isStaticLocal() &&
                      X->getType().isConstQualified() &&
                      X->getType()->isIntegerType() && X->hasInit() &&
                      X->getInit()->isIntegerConstantExpr(Ctx);
      if (!X || (!Constant &&
                 (X->hasGlobalStorage() || !X->getType()->isIntegerType()))) {
        Why = "its size reads '" + D->getNameAsString() +
              "', which is not an integer variable of the caller";
        OK = false;
        return;
      }
      if (L.isMacroID() || DR->hasQualifier() || !SM.isInMainFile(L) ||
          SM.getFileOffset(L) < Begin || SM.getFileOffset(L) >= End) {
        Why = "its size reads '" + X->getNameAsString() +
              "' inside a macro's definition";
        OK = false;
        return;
      }
      Refs.push_back({SM.getFileOffset(L), DR});
      return;
    }
    if (auto *C = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F || !F->isConstexpr()) {
        Why = "its size calls a function";
        OK = false;
        return;
      }
    }
    if (isa<BinaryOperator>(S) && cast<BinaryOperator>(S)->isAssignmentOp()) {
      Why = "its size assigns a variable";
      OK = false;
      return;
    }
    if (auto *U = dyn_cast<UnaryOperator>(S);
        U && U->isIncrementDecrementOp()) {
      Why = "its size changes a variable";
      OK = false;
      return;
    }
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(E);
  if (!OK)
    return false;
  llvm::sort(Refs, [](auto &A, auto &B) { return A.first < B.first; });
  unsigned At = Begin;
  for (auto &[Off, DR] : Refs) {
    Out.append(Src.Contents.substr(At, Off - At).str());
    Out.Vars.push_back(cast<VarDecl>(DR->getDecl()));
    Out.Text.push_back("");
    At = Off + DR->getNameInfo().getAsString().size();
  }
  Out.append(Src.Contents.substr(At, End - At).str());
  return true;
}

bool CallerExtents::addressKept(const FunctionDecl *G, const VarDecl *X) {
  // `sscanf(s, "%d", &n)`: a C library function writes n there and keeps
  // no pointer to it; that write is a statement like any other. Any other
  // `&n` may be kept and written through later.
  if (!dataOf(G).Writes.AddressTaken.count(X))
    return false;
  std::set<const Expr *> Passed;
  unsigned Taken = 0;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *C = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *F = C->getDirectCallee();
      if (F &&
          Src.SM.isInSystemHeader(Src.SM.getExpansionLoc(F->getLocation())))
        for (const Expr *A : C->arguments())
          Passed.insert(A->IgnoreParenImpCasts());
    }
    if (auto *U = dyn_cast<UnaryOperator>(S);
        U && U->getOpcode() == UO_AddrOf && referencedVar(U->getSubExpr()) == X)
      Taken += Passed.count(U) ? 0 : 1;
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(G->getBody());
  return Taken > 0;
}

bool CallerExtents::stableUntilCall(const Count &C, const FunctionDecl *G,
                                    const Stmt *Holder, const Stmt *Child,
                                    std::string &Why) {
  // Each variable of the size holds at the call what it held at the
  // allocation: no statement of the block from the allocation on writes it.
  std::set<const VarDecl *> Vars;
  for (const VarDecl *X : C.Vars)
    if (!X->hasGlobalStorage())
      Vars.insert(X);
  bool After = false;
  for (const Stmt *S : cast<CompoundStmt>(Holder)->body()) {
    After = After || S == Child;
    if (!After)
      continue;
    for (const VarDecl *X : Vars)
      if (addressKept(G, X) || writesAny(S, {X})) {
        Why = "'" + G->getNameAsString() + "' changes '" +
              X->getNameAsString() +
              "', which the allocation's size reads, "
              "after it (line " +
              lineOf(S) + ")";
        return false;
      }
  }
  return true;
}

} // namespace offload
} // namespace warpwise
