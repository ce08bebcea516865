//===- DataExtents.cpp - How much of each array the device needs ----------===//
#include "DataExtents.h"
#include "CallerExtents.h"

#include "warpwise/AstQueries.h"

#include "../transform/SourceText.h"

#include "clang/AST/ExprOpenMP.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/TypeLoc.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <functional>

using namespace clang;

namespace warpwise {
namespace offload {

ExtentPlanner::ExtentPlanner(const OffloadSource &Src, FunctionData &Fn)
    : Src(Src), Ctx(Src.Ctx), Fn(Fn) {}

ExtentPlanner::~ExtentPlanner() = default;

void FunctionData::reset(ASTContext &Ctx, const FunctionDecl *Fn) {
  F = Fn;
  Swaps.clear();
  findSwaps(Ctx, Fn->getBody(), Swaps);
  Writes = WrittenVars();
  Writes.TraverseStmt(Fn->getBody());
}

void findSwaps(const ASTContext &Ctx, const Stmt *S,
               std::vector<SwapTriple> &Out) {
  if (!S)
    return;
  if (auto *C = dyn_cast<CompoundStmt>(S)) {
    std::vector<const Stmt *> K(C->body_begin(), C->body_end());
    auto Assign = [](const Stmt *X, const VarDecl *&L, const VarDecl *&R) {
      auto *B = dyn_cast<BinaryOperator>(X);
      if (!B || B->getOpcode() != BO_Assign)
        return false;
      L = referencedVar(B->getLHS());
      R = referencedVar(B->getRHS());
      return L && R;
    };
    for (size_t I = 0; I + 2 < K.size(); ++I) {
      const VarDecl *T = nullptr, *A = nullptr, *A2 = nullptr, *B = nullptr,
                    *B2 = nullptr, *T2 = nullptr;
      if (auto *DS = dyn_cast<DeclStmt>(K[I]); DS && DS->isSingleDecl()) {
        T = dyn_cast<VarDecl>(DS->getSingleDecl());
        A = T && T->getInit() ? referencedVar(T->getInit()) : nullptr;
      } else {
        Assign(K[I], T, A);
      }
      if (!T || !A || !Assign(K[I + 1], A2, B) || !Assign(K[I + 2], B2, T2))
        continue;
      if (A2 != A || B2 != B || T2 != T || A == B || T == A || T == B ||
          !A->getType()->isPointerType() ||
          Ctx.getCanonicalType(A->getType()) !=
              Ctx.getCanonicalType(B->getType()))
        continue;
      Out.push_back({K[I], K[I + 1], K[I + 2], A, B});
      I += 2;
    }
  }
  for (const Stmt *C : childrenOf(S))
    findSwaps(Ctx, C, Out);
}

const Expr *assignmentsOf(const FunctionData &Fn, const Stmt *Body,
                          const VarDecl *V, bool SwapDecls, unsigned &N) {
  const Expr *Alloc = nullptr;
  N = 0;
  std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *B = dyn_cast<BinaryOperator>(S);
        B && B->isAssignmentOp() && referencedVar(B->getLHS()) == V &&
        !Fn.swapOf(B)) {
      ++N;
      Alloc = B->getRHS();
    }
    // `p++` moves the pointer off its allocation: an assignment too.
    if (auto *U = dyn_cast<UnaryOperator>(S);
        U && U->isIncrementDecrementOp() &&
        referencedVar(U->getSubExpr()) == V) {
      ++N;
      Alloc = U;
    }
    if (auto *DS = dyn_cast<DeclStmt>(S); DS && !(SwapDecls && Fn.swapOf(DS)))
      for (const Decl *D : DS->decls())
        if (D == V && V->getInit()) {
          ++N;
          Alloc = V->getInit();
        }
    for (const Stmt *C : childrenOf(S))
      Find(C);
  };
  Find(Body);
  return Alloc;
}

const Stmt *allocationBlock(ASTContext &Ctx, const Expr *Call,
                            const Stmt *&Child) {
  const Stmt *Holder = nullptr;
  Child = nullptr;
  for (const Stmt *S = Call; S;) {
    auto Ps = Ctx.getParents(*S);
    if (Ps.empty())
      break;
    const Stmt *Parent = Ps[0].get<Stmt>();
    if (!Parent) {
      if (const Decl *D = Ps[0].get<Decl>()) {
        auto PD = Ctx.getParents(*D);
        Parent = PD.empty() ? nullptr : PD[0].get<Stmt>();
      }
    }
    if (auto *CS = dyn_cast_or_null<CompoundStmt>(Parent)) {
      Holder = CS;
      Child = S;
      break;
    }
    S = Parent;
  }
  // The malloc is a statement of that block of its own (not under an if).
  if (Child && !isa<DeclStmt>(Child) && !isa<Expr>(Child))
    Holder = nullptr;
  return Holder;
}

namespace {

/// A.Count (and A.CountExpr where the element count is an expression of
/// its own) from `malloc(n * sizeof *p)`, `malloc(bytes)` or
/// `calloc(n, size)`; \p Parts gets the size's expressions.
bool countOfAllocation(const ASTContext &Ctx, const FunctionDecl *F,
                       const CallExpr *Call, MappedArray &A,
                       std::vector<const Expr *> &Parts) {
  auto IsSizeofElem = [&](const Expr *E) {
    auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(strip(E));
    return U && U->getKind() == UETT_SizeOf;
  };
  if (F->getName() == "calloc" && Call->getNumArgs() == 2) {
    const Expr *N = Call->getArg(0), *S = Call->getArg(1);
    if (IsSizeofElem(S)) {
      A.Count = "(" + sourceText(Ctx, N->getSourceRange()) + ")";
      A.CountExpr = N;
    } else {
      A.Count = "((" + sourceText(Ctx, N->getSourceRange()) + ") * (" +
                sourceText(Ctx, S->getSourceRange()) + ") / sizeof(*" + A.Name +
                "))";
    }
    Parts = {N, S};
    return true;
  }
  if (Call->getNumArgs() != 1)
    return false;
  const Expr *E = strip(Call->getArg(0));
  auto *M = dyn_cast<BinaryOperator>(E);
  if (M && M->getOpcode() == BO_Mul && IsSizeofElem(M->getRHS())) {
    A.Count = "(" + sourceText(Ctx, M->getLHS()->getSourceRange()) + ")";
    A.CountExpr = M->getLHS();
  } else if (M && M->getOpcode() == BO_Mul && IsSizeofElem(M->getLHS())) {
    A.Count = "(" + sourceText(Ctx, M->getRHS()->getSourceRange()) + ")";
    A.CountExpr = M->getRHS();
  } else
    A.Count = "((" + sourceText(Ctx, E->getSourceRange()) + ") / sizeof(*" +
              A.Name + "))";
  Parts = {E};
  return true;
}

/// How many elements of the pointer \p V the loop nest at \p P touches,
/// as a map clause's length, when every access says the same: `V[v]` with
/// `v` running over `[0, U)` gives U; `V[v1 * W + v2]` with v1 over
/// `[0, U)` and v2 over `[0, W)` gives `(U) * (W)`. "" otherwise (a
/// bound the loop does not give, or accesses that disagree).
std::string touchedLength(const OffloadSource &Src, const KernelPlan &P,
                          const VarDecl *V) {
  const ASTContext &Ctx = Src.Ctx;
  if (P.Levels.empty())
    return "";
  // The loops of the nest, parallel and inner, by their variables: the
  // bound of each that runs up from 0 by 1 (`< U`).
  std::map<const VarDecl *, std::string> Upper;
  std::vector<const Expr *> Subscripts;
  bool Other = false;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (auto *F = dyn_cast<ForStmt>(S)) {
      LoopLevel L;
      std::string Why;
      if (readCanonicalLoop(Src, F, L, Why) && L.UnitStep && !L.Decreasing &&
          L.Cmp == BO_LT && normalised(Ctx, L.Lb) == "0")
        Upper[L.Var] = normalised(Ctx, L.Ub);
    }
    if (auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      auto *Base = dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts());
      if (Base && Base->getDecl() == V) {
        Subscripts.push_back(AS->getIdx());
        Walk(AS->getIdx());
        return;
      }
    }
    if (auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V)
      Other = true; // Not as `V[...]`: passed on, or its address.
    for (const Stmt *C : childrenOf(S))
      Walk(C);
  };
  Walk(P.Levels.front().For);
  if (Other || Subscripts.empty())
    return "";
  auto VarOf = [](const Expr *E) -> const VarDecl * {
    auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  };
  auto BoundOf = [&](const Expr *E) -> std::string {
    const VarDecl *X = VarOf(E);
    auto It = X ? Upper.find(X) : Upper.end();
    return It == Upper.end() ? "" : It->second;
  };
  auto LengthOf = [&](const Expr *E) -> std::string {
    E = E->IgnoreParenImpCasts();
    if (std::string U = BoundOf(E); !U.empty())
      return U;
    auto *Add = dyn_cast<BinaryOperator>(E);
    if (!Add || Add->getOpcode() != BO_Add)
      return "";
    for (int Side = 0; Side < 2; ++Side) {
      const Expr *Row = Side ? Add->getRHS() : Add->getLHS();
      const Expr *Col = Side ? Add->getLHS() : Add->getRHS();
      auto *Mul = dyn_cast<BinaryOperator>(Row->IgnoreParenImpCasts());
      if (!Mul || Mul->getOpcode() != BO_Mul)
        continue;
      std::string W = BoundOf(Col);
      for (int M = 0; M < 2; ++M) {
        const Expr *I = M ? Mul->getRHS() : Mul->getLHS();
        const Expr *Width = M ? Mul->getLHS() : Mul->getRHS();
        std::string U = BoundOf(I);
        if (!U.empty() && !W.empty() && normalised(Ctx, Width) == W)
          return "(" + U + ") * (" + W + ")";
      }
    }
    return "";
  };
  std::string Length;
  for (const Expr *E : Subscripts) {
    std::string L = LengthOf(E);
    if (L.empty() || (!Length.empty() && L != Length))
      return "";
    Length = L;
  }
  return Length;
}

} // namespace

std::string ExtentPlanner::mallocText(const VarDecl *V) {
  unsigned N = 0;
  const Expr *Alloc =
      assignmentsOf(Fn, Fn.F->getBody(), V, /*SwapDecls=*/true, N);
  auto *Call = Alloc ? dyn_cast<CallExpr>(Alloc->IgnoreParenCasts()) : nullptr;
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (N != 1 || !F || (F->getName() != "malloc" && F->getName() != "calloc"))
    return "";
  std::string T;
  for (const Expr *A : Call->arguments())
    T += normalised(Ctx, A) + ",";
  return T;
}

bool ExtentPlanner::extentFromMalloc(KernelPlan &P, const VarDecl *V,
                                     MappedArray &A) {
  // The one assignment of V in the function, `V = malloc(E)` (or calloc, or
  // V's initialiser), before the directive in a block that contains it.
  unsigned Assignments = 0;
  const Expr *Alloc = assignmentsOf(Fn, P.Function->getBody(), V,
                                    /*SwapDecls=*/false, Assignments);
  // Swapped with another buffer: that one must be its own malloc of the
  // same size, so that the extent holds whichever buffer V points to.
  for (const SwapTriple &T : Fn.Swaps)
    if (T.A == V || T.B == V) {
      const VarDecl *Other = T.A == V ? T.B : T.A;
      std::string Mine = mallocText(V), Theirs = mallocText(Other);
      if (Mine.empty() || Mine != Theirs) {
        P.Refusal = "the extent of '" + V->getNameAsString() +
                    "' is unknown: it is swapped with '" +
                    Other->getNameAsString() +
                    "', which is not a malloc of the same size";
        return false;
      }
    }
  auto Why = [&](std::string W) {
    // The advice gives the length only where the accesses say it; a bound
    // of one loop is not the length of `V[i*n + j]`.
    std::string Name = V->getNameAsString();
    std::string Length = touchedLength(Src, P, V);
    P.Refusal = "the extent of '" + Name + "' is unknown: " + W +
                "; give it with a map clause: '#pragma omp target teams "
                "distribute parallel for map(tofrom: " +
                Name + "[0:" + (Length.empty() ? "COUNT" : Length) + "])'";
    if (Length.empty())
      P.Refusal += ", COUNT being the number of elements '" + Name +
                   "' points to (the loop's accesses do not say it)";
    return false;
  };
  if (!Alloc && Assignments == 0 && isa<ParmVarDecl>(V)) {
    std::string Reason;
    if (extentFromCallers(P, cast<ParmVarDecl>(V), A, Reason))
      return true;
    return Why("it is a pointer parameter, and " + Reason);
  }
  if (!Alloc)
    return Why("no malloc of it is in view");
  if (Assignments != 1)
    return Why("it is assigned more than once in '" +
               P.Function->getNameAsString() + "'");
  if (Src.offset(Alloc->getBeginLoc()) > Src.offset(P.Directive->getBeginLoc()))
    return Why("its malloc comes after the loop");
  // Not reached through a pointer to it either.
  UseCollector Esc = collectUses(P.Function->getBody());
  if (auto It = Esc.Uses.find(V);
      It != Esc.Uses.end() && It->second.AddressTaken)
    return Why("its address is taken");
  auto *Call = dyn_cast<CallExpr>(Alloc->IgnoreParenCasts());
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (!F || (F->getName() != "malloc" && F->getName() != "calloc"))
    return Why("it is not set by malloc or calloc");
  // The malloc must run whenever the loop does: its statement is directly in
  // a block that also holds the directive.
  const Stmt *Child = nullptr;
  const Stmt *Holder = allocationBlock(Ctx, Call, Child);
  if (!Holder ||
      Src.offset(Holder->getBeginLoc()) >
          Src.offset(P.Directive->getBeginLoc()) ||
      Src.offset(Holder->getEndLoc()) < Src.offset(P.Directive->getEndLoc()))
    return Why("its malloc is not in a block that contains the loop");
  std::vector<const Expr *> Parts;
  if (!countOfAllocation(Ctx, F, Call, A, Parts))
    return Why("its allocation call is not malloc(bytes) or calloc(n, size)");
  // The size must mean the same at the loop as at the malloc.
  for (const Expr *E : Parts) {
    UseCollector U = collectUses(E);
    unsigned AllocAt = Src.offset(Call->getBeginLoc());
    for (const VarDecl *X : U.Order) {
      if (X == V)
        continue;
      bool Later = Fn.Writes.AddressTaken.count(X) > 0;
      for (SourceLocation L : Fn.Writes.At[X])
        Later |= Src.offset(L) > AllocAt;
      if (Later)
        A.CountStable = false; // Captured at the malloc; not a bound.
    }
    if (!U.Calls.empty() && llvm::any_of(U.Calls, [](const FunctionDecl *C) {
          return !C->isConstexpr();
        }))
      return Why("its size calls a function");
  }
  A.ExtentFrom = "its malloc at line " + Src.lineOf(Call->getBeginLoc());
  // The count is captured where the malloc runs; the regions use that.
  A.CaptureText = A.Count;
  A.CaptureAt = Src.stmtEnd(Child);
  A.Count = "ww_extent_" + A.Name;
  A.ExtentExprs.clear();
  return true;
}

CallerExtents &ExtentPlanner::callers() {
  if (!Callers)
    Callers = std::make_unique<CallerExtents>(Src, WholeProgram);
  return *Callers;
}

bool ExtentPlanner::extentFromCallers(KernelPlan &P, const ParmVarDecl *V,
                                      MappedArray &A, std::string &Why) {
  if (V->getDeclContext() != P.Function) {
    Why = "it is a parameter of a lambda, whose calls are not followed";
    return false;
  }
  CallerExtents &Calls = callers();
  // The calls first: why they are not followed says more (a template's
  // parameters are not even read by value as written).
  CallerCount C;
  if (!Calls.countOf(P.Function, V, C, Why))
    return false;
  if (std::string Use = Calls.otherUse(P.Function, V, 0, /*Assignments=*/false);
      !Use.empty()) {
    Why = "it is " + Use;
    return false;
  }
  A.Count = C.Text;
  A.CountExpr = nullptr;
  A.ExtentFrom = "its callers say: " + C.From;
  A.ExtentExprs.clear();
  return true;
}

namespace {

/// An array dimension as the program spells it, through macros; where it
/// cannot be (a macro of more than the size), its value in this build.
std::string dimensionText(const ASTContext &Ctx, const Expr *Size) {
  if (!Size)
    return "";
  if (std::string S = spelledExpr(Ctx, Size); !S.empty())
    return S;
  Expr::EvalResult R;
  if (Size->EvaluateAsInt(R, Ctx))
    return std::to_string(R.Val.getInt().getExtValue());
  return sourceText(Ctx, Size->getSourceRange());
}

} // namespace

std::vector<std::string> writtenDims(const VarDecl *V, const ASTContext &Ctx,
                                     bool &Pointer, QualType &Element,
                                     std::string &ElementText) {
  std::vector<std::string> Dims;
  Pointer = false;
  ElementText.clear();
  TypeSourceInfo *TSI = V->getTypeSourceInfo();
  if (!TSI)
    return Dims;
  TypeLoc TL = TSI->getTypeLoc();
  while (true) {
    TL = TL.getUnqualifiedLoc();
    if (auto P = TL.getAs<ParenTypeLoc>()) {
      TL = P.getInnerLoc();
      continue;
    }
    if (auto P = TL.getAs<PointerTypeLoc>(); P && !Pointer && Dims.empty()) {
      Pointer = true;
      TL = P.getPointeeLoc();
      continue;
    }
    if (auto A = TL.getAs<ArrayTypeLoc>()) {
      Expr *Size = A.getSizeExpr();
      Dims.push_back(dimensionText(Ctx, Size));
      TL = A.getElementLoc();
      continue;
    }
    break;
  }
  Element = TL.getType();
  ElementText = spelledType(Ctx, TL);
  return Dims;
}

bool ExtentPlanner::mapArray(KernelPlan &P, const VarDecl *V, MappedArray &A) {
  A.Var = V;
  A.Name = V->getNameAsString();
  QualType T = V->getType();
  QualType Original = T;
  if (auto *PV = dyn_cast<ParmVarDecl>(V))
    Original = PV->getOriginalType();
  auto Refuse = [&](std::string Why) {
    P.Refusal = "'" + A.Name + "' " + Why;
    return false;
  };
  bool WrittenPointer = false;
  std::vector<std::string> Dims =
      writtenDims(V, Ctx, WrittenPointer, A.Element, A.ElementText);
  if (T->isArrayType()) {
    if (!Ctx.getAsConstantArrayType(T))
      return Refuse("is a variable-length array");
    QualType Decayed = Ctx.getDecayedType(T);
    QualType Pointee = Decayed->getPointeeType();
    A.DeviceType = Ctx.getPointerType(Pointee.getUnqualifiedType());
    A.Dim0Value = Ctx.getAsConstantArrayType(T)->getSize().getZExtValue();
    A.Dim0Text = std::to_string(A.Dim0Value);
    if (!Dims.empty() && !Dims[0].empty())
      A.Dim0Text = "(" + Dims[0] + ")";
    // The array's own size, whatever its dimension's macro means where the
    // copies are made.
    A.Count = "(sizeof(" + A.Name + ") / sizeof(*" + A.Name + "))";
    A.ExtentFrom = "its declaration";
    if (!Dims.empty())
      A.InnerDims.assign(Dims.begin() + 1, Dims.end());
  } else if (T->isPointerType()) {
    QualType Pointee = T->getPointeeType();
    if (Pointee->isPointerType())
      return Refuse("is a pointer to pointers: its rows are separate host "
                    "allocations, which are not mapped");
    if (Pointee->isVariableArrayType())
      return Refuse("points to variable-length arrays");
    if (Pointee->isVoidType() || Pointee->isFunctionType())
      return Refuse("is not a pointer to data");
    if (Pointee->isRecordType() &&
        llvm::any_of(
            Pointee->getAsRecordDecl()->fields(),
            [](const FieldDecl *F) { return F->getType()->isPointerType(); }))
      return Refuse("points to structures holding pointers");
    A.DeviceType = Ctx.getPointerType(Pointee.getUnqualifiedType());
    if (auto *CA = Ctx.getAsConstantArrayType(Original)) {
      // A parameter declared as an array: `double a[N][N]`.
      A.Count = std::to_string(CA->getSize().getZExtValue());
      if (!WrittenPointer && !Dims.empty() && !Dims[0].empty())
        A.Count = "(" + Dims[0] + ")";
      A.Dim0Text = A.Count;
      A.Dim0Value = CA->getSize().getZExtValue();
      A.ExtentFrom = "its declaration";
      if (!WrittenPointer && !Dims.empty())
        A.InnerDims.assign(Dims.begin() + 1, Dims.end());
    } else if (Original->isVariableArrayType()) {
      return Refuse("is a variable-length array parameter: nvcc's C++ has "
                    "no such types; give its extent with a map clause");
    } else if (WrittenPointer) {
      A.InnerDims = Dims; // double (*p)[N]
    }
  } else
    return Refuse("is neither an array nor a pointer");
  // The written dims must be the type's: a typedef'd array hides them.
  unsigned Depth = 0;
  for (QualType E = A.DeviceType->getPointeeType();
       Ctx.getAsConstantArrayType(E);
       E = Ctx.getAsConstantArrayType(E)->getElementType())
    ++Depth;
  if (Depth != A.InnerDims.size() ||
      llvm::any_of(A.InnerDims, [](const std::string &D) { return D.empty(); }))
    A.InnerDims.clear(), A.Element = QualType(), A.ElementText.clear();
  return true;
}

bool ExtentPlanner::sectionExtent(KernelPlan &P, const Expr *Section,
                                  const UseCollector &U, MappedArray &A) {
  auto *AS = cast<ArraySectionExpr>(Section);
  Expr::EvalResult Zero;
  if (AS->getLowerBound() && !(AS->getLowerBound()->EvaluateAsInt(Zero, Ctx) &&
                               Zero.Val.getInt() == 0))
    A.Offset =
        "(" + sourceText(Ctx, AS->getLowerBound()->getSourceRange()) + ")";
  if (AS->getLength()) {
    A.Count = "(" + sourceText(Ctx, AS->getLength()->getSourceRange()) + ")";
    A.CountExpr = AS->getLength();
  } else if (A.Count.empty()) {
    P.Refusal = "the map section of '" + A.Name + "' has no length";
    return false;
  }
  A.ExtentFrom = "its map clause";
  A.ExtentExprs.clear();
  for (const Expr *E : {AS->getLowerBound(), AS->getLength()})
    if (E)
      A.ExtentExprs.push_back(E);
  for (const Expr *E : A.ExtentExprs) {
    UseCollector EU = collectUses(E);
    for (const VarDecl *X : EU.Order)
      if (auto It = U.Uses.find(X);
          It != U.Uses.end() && It->second.ScalarWrite) {
        P.Refusal = "the loop changes '" + X->getNameAsString() +
                    "', which the map section of '" + A.Name + "' uses";
        return false;
      }
  }
  return true;
}

bool ExtentPlanner::mapShared(KernelPlan &P, const VarDecl *V,
                              const UseCollector &U, const ClauseSet &C) {
  const UseCollector::Use &Use = U.Uses.at(V);
  MappedArray A;
  if (!mapArray(P, V, A))
    return false;
  A.Read = Use.Read;
  A.Written = Use.ElementWrite;
  A.PassedToCall = Use.PassedToCall;
  if (auto It = C.MapKinds.find(V); It != C.MapKinds.end())
    A.Map = It->second;
  if (auto It = C.MapSection.find(V); It != C.MapSection.end()) {
    if (!sectionExtent(P, It->second, U, A))
      return false;
  } else if (A.Count.empty() && !extentFromMalloc(P, V, A)) {
    return false;
  }
  P.Arrays.push_back(A);
  return true;
}

namespace {

/// Writes of one array \p A over its whole extent: the extents of its
/// dimensions (outermost from A.Count) and the loops that may run over
/// them.
class FullWrites {
public:
  FullWrites(ASTContext &Ctx, const MappedArray &A,
             const std::vector<LoopLevel> &Loops)
      : Ctx(Ctx), A(A), Loops(Loops) {
    Extents = {A.Dim0Text.empty() ? A.Count : A.Dim0Text};
    Values = {A.Dim0Value};
    QualType E = A.DeviceType->getPointeeType();
    size_t K = 0;
    while (auto *CA = Ctx.getAsConstantArrayType(E)) {
      Extents.push_back(K < A.InnerDims.size()
                            ? A.InnerDims[K]
                            : std::to_string(CA->getSize().getZExtValue()));
      Values.push_back(CA->getSize().getZExtValue());
      E = CA->getElementType();
      ++K;
    }
  }

  /// A statement list writes A in full before reading it: a covering store,
  /// or an if/else both of whose sides do, before any other mention of A;
  /// an inner loop of the nest counts by its body.
  bool writes(const std::vector<const Stmt *> &List) const {
    for (const Stmt *S : List) {
      if (coveringStore(S))
        return true;
      if (auto *If = dyn_cast<IfStmt>(S);
          If && If->getElse() && !If->getInit() &&
          !If->getConditionVariable() && !mentions(If->getCond(), A.Var) &&
          writes(statementsOf(If->getThen())) &&
          writes(statementsOf(If->getElse())))
        return true;
      if (auto *For = dyn_cast<ForStmt>(S);
          For &&
          llvm::any_of(Loops,
                       [&](const LoopLevel &L) { return L.For == For; }) &&
          !mentions(For->getInit(), A.Var) &&
          !mentions(For->getCond(), A.Var) && !mentions(For->getInc(), A.Var) &&
          writes(statementsOf(For->getBody())))
        return true;
      if (mentions(S, A.Var))
        return false;
    }
    return false;
  }

private:
  /// `A[i][j] = e` with each subscript the variable of a loop running over
  /// exactly [0, extent) of that dimension, e not reading A.
  bool coveringStore(const Stmt *S) const {
    auto *B = dyn_cast<BinaryOperator>(S);
    if (!B || B->getOpcode() != BO_Assign)
      return false;
    std::vector<const Expr *> Subs;
    if (subscripts(B->getLHS(), Subs) != A.Var ||
        Subs.size() != Extents.size() || mentions(B->getRHS(), A.Var))
      return false;
    std::set<const VarDecl *> UsedLoops;
    for (size_t D = 0; D < Subs.size(); ++D) {
      const VarDecl *V = referencedVar(Subs[D]);
      auto L =
          llvm::find_if(Loops, [&](const LoopLevel &X) { return X.Var == V; });
      if (!V || L == Loops.end() || !UsedLoops.insert(V).second ||
          !L->UnitStep || L->Decreasing || L->Cmp != BO_LT)
        return false;
      Expr::EvalResult Lb;
      if (!L->Lb->EvaluateAsInt(Lb, Ctx) || Lb.Val.getInt() != 0)
        return false;
      if (!boundIsExtent(*L, D))
        return false;
    }
    return UsedLoops.size() == Subs.size();
  }

  /// The bound of \p L is the extent of dimension \p D.
  bool boundIsExtent(const LoopLevel &L, size_t D) const {
    std::string Ub = normalised(Ctx, L.Ub);
    std::string Want = Extents[D];
    Want.erase(std::remove_if(Want.begin(), Want.end(), llvm::isSpace),
               Want.end());
    while (Want.size() > 2 && Want.front() == '(' && Want.back() == ')')
      Want = Want.substr(1, Want.size() - 2);
    // Equal as written (the same macro is the same value in any build),
    // or two integer literals of one value.
    // Both spelled alike and of one value here (a macro redefined in
    // between is not the same extent).
    bool Same = Ub == Want;
    Expr::EvalResult UbV;
    if (Same && Values[D] >= 0 && L.Ub->EvaluateAsInt(UbV, Ctx))
      Same = UbV.Val.getInt().getExtValue() == Values[D];
    auto *UbLit = dyn_cast<IntegerLiteral>(L.Ub->IgnoreParenImpCasts());
    if (!Same && UbLit && !UbLit->getBeginLoc().isMacroID() && !Want.empty() &&
        llvm::all_of(Want, llvm::isDigit))
      Same = std::to_string(UbLit->getValue().getZExtValue()) == Want;
    // The same variable or expression once conversions are set aside
    // (`i < n` against malloc((size_t)n * sizeof *y)): the same
    // variables, unchanged since the malloc.
    if (!Same && D == 0 && A.CountExpr && A.CountStable)
      Same = normalised(Ctx, L.Ub->IgnoreParenCasts()) ==
                 normalised(Ctx, A.CountExpr->IgnoreParenCasts()) &&
             sameVariables(L.Ub, A.CountExpr);
    return Same;
  }

  ASTContext &Ctx;
  const MappedArray &A;
  const std::vector<LoopLevel> &Loops;
  std::vector<std::string> Extents;
  std::vector<long long> Values;
};

} // namespace

void proveFullWrites(const OffloadSource &Src, KernelPlan &P) {
  // Candidate loops: the levels, and one inner loop at the top of the body.
  std::vector<LoopLevel> Loops = P.Levels;
  if (hasOwnJump(P.Body, false, true))
    return; // A continue may skip the store.
  std::vector<const Stmt *> Body = statementsOf(P.Body);
  for (const Stmt *S : Body)
    if (auto *For = dyn_cast<ForStmt>(S)) {
      LoopLevel L;
      std::string Scratch;
      if (readCanonicalLoop(Src, For, L, Scratch) && L.UnitStep &&
          !L.Decreasing && L.Cmp == BO_LT &&
          !hasOwnJump(For->getBody(), true, true))
        Loops.push_back(L);
    }
  for (MappedArray &A : P.Arrays) {
    if (!A.Written || A.Offset != "0")
      continue;
    A.WrittenInFull = FullWrites(Src.Ctx, A, Loops).writes(Body);
  }
}

} // namespace offload
} // namespace warpwise
