//===- CallerExtents.cpp - A pointer parameter's extent from its callers -===//
#include "CallerExtents.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

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

  bool TraverseFunctionDecl(FunctionDecl *F) {
    return within(F,
                  [&] { return RecursiveASTVisitor::TraverseFunctionDecl(F); });
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *F) {
    return within(
        F, [&] { return RecursiveASTVisitor::TraverseCXXMethodDecl(F); });
  }
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *F) {
    return within(
        F, [&] { return RecursiveASTVisitor::TraverseCXXConstructorDecl(F); });
  }
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *F) {
    return within(
        F, [&] { return RecursiveASTVisitor::TraverseCXXDestructorDecl(F); });
  }
  /// A call in a lambda is in no function of the file's own: its caller
  /// is unknown (null), and its parameters are not followed.
  bool TraverseLambdaExpr(LambdaExpr *L) {
    return within(nullptr,
                  [&] { return RecursiveASTVisitor::TraverseLambdaExpr(L); });
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
  template <typename Fn> bool within(const FunctionDecl *F, Fn Traverse) {
    const FunctionDecl *Outer = Current;
    Current = F;
    bool R = Traverse();
    Current = Outer;
    return R;
  }
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

} // namespace

std::string CallerExtents::Count::render(const ASTContext &Ctx) const {
  // A parameter of another integer type than the caller's variable holds
  // its value (keepsValue); converted back, the arithmetic is the caller's.
  std::string S = Text[0];
  for (size_t I = 0; I < Vars.size(); ++I) {
    std::string Name = Vars[I]->getNameAsString();
    if (!Ctx.hasSameUnqualifiedType(Vars[I]->getType(), Types[I]))
      Name = "((" +
             Types[I].getCanonicalType().getUnqualifiedType().getAsString() +
             ")" + Name + ")";
    S += Name + Text[I + 1];
  }
  return S;
}

void CallerExtents::Count::append(const Count &C) {
  Text.back() += C.Text.front();
  Text.insert(Text.end(), C.Text.begin() + 1, C.Text.end());
  Vars.insert(Vars.end(), C.Vars.begin(), C.Vars.end());
  Types.insert(Types.end(), C.Types.begin(), C.Types.end());
}

CallerExtents::CallerExtents(const OffloadSource &Src, bool WholeProgram)
    : Src(Src), Ctx(Src.Ctx), WholeProgram(WholeProgram) {
  CallIndex Index;
  Index.TraverseDecl(Ctx.getTranslationUnitDecl());
  for (auto &[F, Found] : Index.Calls)
    for (const CallIndex::Found &C : Found)
      Calls[F].push_back({C.Call, C.Caller});
  NotFollowed = std::move(Index.NotFollowed);
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
  // Only read: no assignment, increment, reference or address of it.
  return otherUse(F, P, 0, /*Assignments=*/false).empty();
}

bool CallerExtents::countOf(const FunctionDecl *F, const ParmVarDecl *V,
                            CallerCount &Out, std::string &Why) {
  unsigned Index = V->getFunctionScopeIndex();
  Count C;
  if (!paramCount(F, Index, C, Why, 0))
    return false;
  // The count is evaluated in F, where its names are F's parameters: no
  // local of the same name may hide one.
  UseCollector Body = collectUses(F->getBody());
  for (const VarDecl *X : C.Vars)
    if (llvm::any_of(Body.Declared, [&](const VarDecl *D) {
          return D != X && D->getName() == X->getName();
        })) {
      Why = "'" + X->getNameAsString() +
            "', which its extent reads, is hidden by a local of the same name";
      return false;
    }
  Out.Text = C.render(Ctx);
  Out.Vars = C.Vars;
  Out.From = C.From;
  return true;
}

const std::vector<CallerExtents::CallSite> &
CallerExtents::callsOf(const FunctionDecl *F) {
  return Calls[F->getCanonicalDecl()];
}

bool CallerExtents::mayBeCalledElsewhere(const FunctionDecl *F,
                                         std::string &Why) {
  std::string Name = "'" + F->getNameAsString() + "'";
  if (F->getDescribedFunctionTemplate() || F->isTemplateInstantiation()) {
    Why = Name + " is a function template, whose calls are not followed";
    return true;
  }
  if (isa<CXXMethodDecl>(F)) {
    Why = Name + " is a member function, whose calls are not followed";
    return true;
  }
  if (NotFollowed.count(F->getCanonicalDecl())) {
    Why = Name + " is used other than by direct calls (a function pointer "
                 "or a template's call)";
    return true;
  }
  // Another file of the program could call it with other arrays: only the
  // calls of a function with internal linkage are all in view.
  if (F->isExternallyVisible() && !WholeProgram) {
    Why = Name + " may be called from other files (declare it static, or "
                 "pass --whole-program if this file is the whole program)";
    return true;
  }
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
  if (mayBeCalledElsewhere(F, Why))
    return false;
  auto It = Calls.find(F->getCanonicalDecl());
  if (It == Calls.end() || It->second.empty()) {
    Why = "no call of '" + F->getNameAsString() + "' is in this file";
    return false;
  }
  const ParmVarDecl *P = F->getParamDecl(Index);
  std::string First, Lines;
  for (const CallSite &C : It->second) {
    if (!C.Caller || isa<CXXMethodDecl>(C.Caller)) {
      Why = "the call at line " + lineOf(C.Expr) +
            " is in a lambda or a member function, which are not followed";
      return false;
    }
    if (Index >= C.Expr->getNumArgs()) {
      Why = "the call at line " + lineOf(C.Expr) + " passes no such argument";
      return false;
    }
    const Expr *Arg = pointerArgument(C.Expr->getArg(Index));
    const VarDecl *W = referencedVar(Arg);
    if (!W || !isa<DeclRefExpr>(Arg)) {
      Why = "the call at line " + lineOf(C.Expr) + " passes '" +
            sourceText(Ctx, Arg->getSourceRange()) + "', not a variable";
      return false;
    }
    Count Mine;
    if (!pointerCount(W, C, P->getType()->getPointeeType(), Mine, Why, Depth) ||
        !inCallee(C, F, Mine, Why))
      return false;
    std::string Text = Mine.render(Ctx);
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
  return true;
}

bool CallerExtents::inCallee(const CallSite &C, const FunctionDecl *F,
                             Count &Out, std::string &Why) {
  // Each variable of the caller's count is passed to F as a whole argument;
  // the count then reads that parameter.
  for (const VarDecl *&X : Out.Vars) {
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
    if (!Ctx.hasSameUnqualifiedType(CA->getElementType(), Pointee)) {
      Why = "the array " + Name + " has another element type";
      return false;
    }
    Out.Text = {"(" + std::to_string(CA->getSize().getZExtValue()) + ")"};
    Out.From =
        "the array " + Name + " (line " + Src.lineOf(W->getLocation()) + ")";
    return true;
  }
  if (!W->getType()->isPointerType() ||
      !Ctx.hasSameUnqualifiedType(W->getType()->getPointeeType(), Pointee)) {
    Why = Name + " is not a pointer to the parameter's element type";
    return false;
  }
  if (!W->isLocalVarDeclOrParm() || W->isStaticLocal()) {
    // A static local keeps an earlier call's allocation.
    Why = Name + " is a global or static pointer";
    return false;
  }
  const FunctionData &D = dataOf(G);
  if (std::string Use = otherUse(G, W, 0, /*Assignments=*/true); !Use.empty()) {
    Why = Name + " is " + Use + " in '" + G->getNameAsString() + "'";
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
               !stableUntilCall(Out, G, Child, Why)) {
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
    if (Theirs.render(Ctx) != Mine.render(Ctx) || Theirs.Vars != Mine.Vars) {
      Why = "'" + W->getNameAsString() + "' is swapped with '" +
            Other->getNameAsString() + "', of another extent";
      return false;
    }
  }
  return true;
}

bool CallerExtents::allocationCount(const Expr *Alloc, QualType Pointee,
                                    Count &Out, std::string &Why) {
  // The element count as the caller computes it: new[]'s size; calloc's
  // count; malloc's bytes over the element's size, or the product without
  // its sizeof(element) factor.
  if (auto *New = dyn_cast<CXXNewExpr>(Alloc)) {
    if (!New->isArray() || !New->getArraySize() || New->getNumPlacementArgs() ||
        !Ctx.hasSameUnqualifiedType(New->getAllocatedType(), Pointee)) {
      Why = "its allocation is not a new[] of its element type";
      return false;
    }
    return exprCount(*New->getArraySize(), Out, Why, QualType());
  }
  auto *Call = dyn_cast<CallExpr>(Alloc);
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  bool Calloc = F && F->getName() == "calloc" && Call->getNumArgs() == 2;
  if (!F ||
      (!Calloc && (F->getName() != "malloc" || Call->getNumArgs() != 1))) {
    Why = "it is not set by malloc, calloc or new[]";
    return false;
  }
  CharUnits Size = Ctx.getTypeSizeInChars(Pointee);
  std::string Element = std::to_string(Size.getQuantity()) + "UL";
  if (Calloc) {
    const Expr *S = Call->getArg(1);
    Expr::EvalResult R;
    if (S->EvaluateAsInt(R, Ctx) && R.Val.getInt() == Size.getQuantity())
      return exprCount(Call->getArg(0), Out, Why, QualType());
    Count N, Bytes;
    if (!exprCount(Call->getArg(0), N, Why, QualType()) ||
        !exprCount(S, Bytes, Why, QualType()))
      return false;
    Out.append("(");
    Out.append(N);
    Out.append(" * ");
    Out.append(Bytes);
    Out.append(" / " + Element + ")");
    return true;
  }
  if (exprCount(Call->getArg(0), Out, Why, Pointee))
    return true;
  Out = Count();
  Count Bytes;
  if (!exprCount(Call->getArg(0), Bytes, Why, QualType()))
    return false;
  Out.append("(");
  Out.append(Bytes);
  Out.append(" / " + Element + ")");
  return true;
}

namespace {

/// An integer constant as C++ spells a value of its type.
std::string literalOf(const llvm::APSInt &V, QualType T) {
  const auto *B = T.getCanonicalType()->getAs<BuiltinType>();
  std::string Digits = llvm::toString(V, 10);
  switch (B ? B->getKind() : BuiltinType::Void) {
  case BuiltinType::Int:
    return V.isNegative() ? "(" + Digits + ")" : Digits;
  case BuiltinType::UInt:
    return Digits + "u";
  case BuiltinType::Long:
    return V.isNegative() ? "(" + Digits + "L)" : Digits + "L";
  case BuiltinType::ULong:
    return Digits + "UL";
  case BuiltinType::LongLong:
    return V.isNegative() ? "(" + Digits + "LL)" : Digits + "LL";
  case BuiltinType::ULongLong:
    return Digits + "ULL";
  default:
    return "((" + T.getCanonicalType().getUnqualifiedType().getAsString() +
           ")" + Digits + ")";
  }
}

bool isSizeofOf(const ASTContext &Ctx, const Expr *E, QualType T) {
  auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(E->IgnoreParenImpCasts());
  return U && U->getKind() == UETT_SizeOf &&
         Ctx.hasSameUnqualifiedType(U->getTypeOfArgument(), T);
}

} // namespace

bool CallerExtents::exprCount(const Expr *E, Count &Out, std::string &Why,
                              QualType DropSizeofOf) {
  // The size written again from the AST, as the caller computes it: every
  // constant (a literal, a macro, an enumerator, a sizeof) as its value and
  // type, every conversion explicit, the caller's integer variables as
  // places for the callee's parameters. Nothing that could mean something
  // else in the callee (a name, a macro, a type) is copied.
  // The sizeof(element) factor may be dropped only where it divides the
  // whole size: in the product chain at the top (`n * sizeof(T) * m`), not
  // under a sum (`n * sizeof(T) + 16` is not n + 16 elements).
  bool Dropped = DropSizeofOf.isNull();
  std::function<bool(const Expr *, bool)> Gen = [&](const Expr *X,
                                                    bool Factor) -> bool {
    X = X->IgnoreParens();
    if (auto *M = dyn_cast<BinaryOperator>(X);
        M && Factor && !Dropped && M->getOpcode() == BO_Mul) {
      if (isSizeofOf(Ctx, M->getLHS(), DropSizeofOf)) {
        Dropped = true;
        return Gen(M->getRHS(), false);
      }
      if (isSizeofOf(Ctx, M->getRHS(), DropSizeofOf)) {
        Dropped = true;
        return Gen(M->getLHS(), false);
      }
    }
    Expr::EvalResult R;
    if (X->getType()->isIntegerType() && X->isIntegerConstantExpr(Ctx) &&
        X->EvaluateAsInt(R, Ctx)) {
      Out.append(literalOf(R.Val.getInt(), X->getType()));
      return true;
    }
    auto IntegerType = [&](QualType T) {
      const auto *B = T.getCanonicalType()->getAs<BuiltinType>();
      return B && B->isInteger();
    };
    if (auto *C = dyn_cast<CastExpr>(X)) {
      if (C->getCastKind() == CK_LValueToRValue || C->getCastKind() == CK_NoOp)
        return Gen(C->getSubExpr(), Factor);
      if (C->getCastKind() == CK_IntegralCast && IntegerType(C->getType())) {
        Out.append(
            "((" +
            C->getType().getCanonicalType().getUnqualifiedType().getAsString() +
            ")");
        bool OK = Gen(C->getSubExpr(), false);
        Out.append(")");
        return OK;
      }
    }
    if (auto *DR = dyn_cast<DeclRefExpr>(X)) {
      auto *V = dyn_cast<VarDecl>(DR->getDecl());
      if (V && V->isLocalVarDeclOrParm() && !V->getType()->isReferenceType() &&
          IntegerType(V->getType()) &&
          !DR->refersToEnclosingVariableOrCapture()) {
        Out.Vars.push_back(V);
        Out.Types.push_back(V->getType());
        Out.Text.push_back("");
        return true;
      }
      Why = "its size reads '" + DR->getDecl()->getNameAsString() +
            "', which is not an integer variable of the caller";
      return false;
    }
    if (auto *B = dyn_cast<BinaryOperator>(X); B && !B->isAssignmentOp() &&
                                               !B->isCommaOp() &&
                                               IntegerType(B->getType())) {
      bool Chain = Factor && B->getOpcode() == BO_Mul;
      Out.append("(");
      if (!Gen(B->getLHS(), Chain))
        return false;
      Out.append(" " + B->getOpcodeStr().str() + " ");
      if (!Gen(B->getRHS(), Chain))
        return false;
      Out.append(")");
      return true;
    }
    if (auto *U = dyn_cast<UnaryOperator>(X);
        U && (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus ||
              U->getOpcode() == UO_Not)) {
      Out.append("(" + UnaryOperator::getOpcodeStr(U->getOpcode()).str());
      bool OK = Gen(U->getSubExpr(), false);
      Out.append(")");
      return OK;
    }
    if (auto *C = dyn_cast<ConditionalOperator>(X)) {
      Out.append("(");
      bool OK = Gen(C->getCond(), false);
      Out.append(" ? ");
      OK = OK && Gen(C->getTrueExpr(), false);
      Out.append(" : ");
      OK = OK && Gen(C->getFalseExpr(), false);
      Out.append(")");
      return OK;
    }
    Why = "its size is computed with more than arithmetic on the caller's "
          "integer variables";
    return false;
  };
  if (!Gen(E, true))
    return false;
  if (!Dropped) {
    Why = "its size is not a product with sizeof of its element";
    return false;
  }
  return true;
}

std::string CallerExtents::otherUse(const FunctionDecl *G, const VarDecl *X,
                                    unsigned Before, bool Assignments) {
  // Read by value, sizeof, assigned (before \p Before, or anywhere when
  // Assignments and Before is 0), or `&X` handed to a C library call
  // (`sscanf(s, "%d", &n)`, which keeps no pointer) before \p Before.
  // Anything else (a reference bound to it, a lambda's capture, its
  // address kept) may change it where this cannot see.
  std::string Found;
  std::vector<const Stmt *> Up;
  auto LibraryArgument = [&](size_t K) {
    // Up[K] is `&X`; through implicit casts, an argument of a call.
    while (K > 0 && isa<ImplicitCastExpr>(Up[K - 1]))
      --K;
    auto *C = K > 0 ? dyn_cast<CallExpr>(Up[K - 1]) : nullptr;
    const FunctionDecl *F = C ? C->getDirectCallee() : nullptr;
    return F &&
           Src.SM.isInSystemHeader(Src.SM.getExpansionLoc(F->getLocation()));
  };
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Found.empty())
      return;
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == X) {
      size_t K = Up.size();
      while (K > 0 && isa<ParenExpr>(Up[K - 1]))
        --K;
      const Stmt *P = K > 0 ? Up[K - 1] : nullptr;
      unsigned At = Src.offset(DR->getBeginLoc());
      bool InTime = Before == 0 ? Assignments : At < Before;
      auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(P);
      auto *B = dyn_cast_or_null<BinaryOperator>(P);
      auto *U = dyn_cast_or_null<UnaryOperator>(P);
      // Inside a lambda it is a capture (OpenMP's captured regions refer
      // to it the same way, and are code of this function).
      bool Captured = DR->refersToEnclosingVariableOrCapture() &&
                      llvm::any_of(Up, [](const Stmt *A) {
                        return isa<LambdaExpr>(A) || isa<BlockExpr>(A);
                      });
      // An arm of `c ? a : b` (through parentheses and nested arms) is read
      // by value where the whole conditional is: `f(odd ? result : temp)`.
      size_t Arm = K;
      while (Arm > 0 && (isa<ParenExpr>(Up[Arm - 1]) ||
                         (isa<ConditionalOperator>(Up[Arm - 1]) &&
                          cast<ConditionalOperator>(Up[Arm - 1])->getCond() !=
                              (Arm < Up.size() ? Up[Arm] : DR))))
        --Arm;
      auto *ArmRead = Arm < K && Arm > 0
                          ? dyn_cast<ImplicitCastExpr>(Up[Arm - 1])
                          : nullptr;
      bool ReadThroughArm =
          ArmRead && ArmRead->getCastKind() == CK_LValueToRValue;
      bool OK = !Captured &&
                (ReadThroughArm ||
                 (Cast && (Cast->getCastKind() == CK_LValueToRValue ||
                           Cast->getCastKind() == CK_ArrayToPointerDecay)) ||
                 isa_and_nonnull<UnaryExprOrTypeTraitExpr>(P) ||
                 (B && B->isAssignmentOp() &&
                  B->getLHS()->IgnoreParens() == DR && InTime) ||
                 (U && U->isIncrementDecrementOp() && InTime) ||
                 (U && U->getOpcode() == UO_AddrOf && Before && At < Before &&
                  LibraryArgument(K - 1)));
      bool Change =
          (B && B->isAssignmentOp() && B->getLHS()->IgnoreParens() == DR) ||
          (U && U->isIncrementDecrementOp());
      if (!OK)
        Found = (Change ? "changed at line "
                        : "used other than by value at "
                          "line ") +
                lineOf(DR);
      return;
    }
    Up.push_back(S);
    for (const Stmt *C : childrenOf(S)) // A directive: its statement.
      Walk(C);
    Up.pop_back();
  };
  Walk(G->getBody());
  return Found;
}

bool CallerExtents::stableUntilCall(const Count &C, const FunctionDecl *G,
                                    const Stmt *Allocation, std::string &Why) {
  // Each variable of the size holds at the call what it held at the
  // allocation: assigned only before it, and otherwise only read.
  unsigned AllocAt = Src.offset(Allocation->getBeginLoc());
  for (const VarDecl *X :
       std::set<const VarDecl *>(C.Vars.begin(), C.Vars.end()))
    if (std::string Use = otherUse(G, X, AllocAt, /*Assignments=*/true);
        !Use.empty()) {
      Why = "'" + X->getNameAsString() +
            "', which the allocation's size reads, is " + Use + " in '" +
            G->getNameAsString() + "'";
      return false;
    }
  return true;
}

} // namespace offload
} // namespace warpwise
