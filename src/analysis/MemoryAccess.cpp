//===- MemoryAccess.cpp - Which memory a statement touches ----------------===//
#include "MemoryAccess.h"

#include "warpwise/Embedded.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <nlohmann/json.hpp>

namespace warpwise {

using namespace clang;

const VarDecl *accessBase(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  for (;;) {
    if (auto *A = dyn_cast<ArraySubscriptExpr>(E))
      E = A->getBase()->IgnoreParenImpCasts();
    else if (auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref)
      E = U->getSubExpr()->IgnoreParenImpCasts();
    else if (auto *B = dyn_cast<BinaryOperator>(E);
             B && B->isAdditiveOp() && B->getType()->isPointerType())
      E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
              ->IgnoreParenImpCasts();
    else if (auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase()->IgnoreParenImpCasts();
    else
      break;
  }
  if (auto *R = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(R->getDecl());
  return nullptr;
}

/// Whether an access is to the object `this` points to itself (a member
/// function touching its own members), and not to memory one of its pointer
/// members points to (`this->d[i]`), which is memory like any other.
static bool throughThis(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  for (;;) {
    if (auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      if (A->getBase()->IgnoreParenImpCasts()->getType()->isPointerType())
        return false;
      E = A->getBase()->IgnoreParenImpCasts();
    } else if (auto *U = dyn_cast<UnaryOperator>(E);
               U && U->getOpcode() == UO_Deref) {
      if (!isa<CXXThisExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
        return false;
      E = U->getSubExpr()->IgnoreParenImpCasts();
    } else if (auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow() &&
          !isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
        return false;
      E = M->getBase()->IgnoreParenImpCasts();
    } else {
      break;
    }
  }
  return isa<CXXThisExpr>(E);
}

//===----------------------------------------------------------------------===//
// Callee summaries
//===----------------------------------------------------------------------===//

namespace {

struct CalleeRules {
  std::set<std::string> Pure;
  std::vector<std::string> PurePrefixes;
  std::map<std::string, std::vector<unsigned>> WritesThrough, ReadsThrough;

  static const CalleeRules &get() {
    static const CalleeRules R = [] {
      CalleeRules R;
      nlohmann::json J = nlohmann::json::parse(
          findEmbeddedFile("callees.json"), nullptr, false);
      if (J.is_discarded())
        return R;
      auto Names = [&](const char *Key, auto &&Add) {
        if (J.contains(Key))
          for (const nlohmann::json &N : J[Key])
            Add(N);
      };
      Names("pure", [&](const nlohmann::json &N) {
        R.Pure.insert(N.get<std::string>());
      });
      Names("pure_prefixes", [&](const nlohmann::json &N) {
        R.PurePrefixes.push_back(N.get<std::string>());
      });
      auto Positions = [&](const char *Key, auto &Into) {
        if (J.contains(Key))
          for (auto It = J[Key].begin(); It != J[Key].end(); ++It)
            Into[It.key()] = It.value().get<std::vector<unsigned>>();
      };
      Positions("writes_through", R.WritesThrough);
      Positions("reads_through", R.ReadsThrough);
      return R;
    }();
    return R;
  }
  bool known(llvm::StringRef N) const {
    if (Pure.count(N.str()) || WritesThrough.count(N.str()) ||
        ReadsThrough.count(N.str()))
      return true;
    for (const std::string &P : PurePrefixes)
      if (N.starts_with(P))
        return true;
    return false;
  }
};

/// Calls whose order across threads matters.
bool isOrderedName(llvm::StringRef N) {
  return N.starts_with("__syncthreads") || N.starts_with("__syncwarp") ||
         N.contains("_sync") || N.starts_with("atomic") ||
         N.starts_with("__threadfence") || N == "sync" ||
         N == "__activemask" || N.starts_with("__nanosleep") ||
         N.starts_with("clock");
}

bool isPointerLike(QualType T) {
  return T->isPointerType() || T->isReferenceType() || T->isArrayType();
}

} // namespace

bool CallSummary::writes() const {
  if (Unknown || !OrderedName.empty() || WritesObject ||
      !GlobalWrites.empty() || !CapturedDefs.empty())
    return true;
  for (bool W : WritesParam)
    if (W)
      return true;
  return false;
}

namespace {
class AccessCollector : public RecursiveASTVisitor<AccessCollector> {
public:
  AccessCollector(Accesses &A, const SourceManager &SM, const DeclMap *Rename)
      : A(A), SM(SM), Rename(Rename) {}

  bool VisitDeclRefExpr(DeclRefExpr *R) {
    if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
      A.Uses.insert(ren(V));
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    A.Defs.insert(ren(V));
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp())
      write(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->isIncrementDecrementOp())
      write(U->getSubExpr());
    if (U->getOpcode() == UO_Deref)
      read(U);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *S) {
    read(S);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *M) {
    if (M->isArrow() || isa<CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()))
      read(M);
    return true;
  }
  bool VisitCallExpr(CallExpr *C);
  // Inline asm may store anywhere, and order anything.
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    opaque(S, "asm", "inline assembly is not analysed");
    return true;
  }
  bool VisitMSAsmStmt(MSAsmStmt *S) {
    opaque(S, "asm", "inline assembly is not analysed");
    return true;
  }
  // `new` allocates, or with placement stores through its pointer.
  bool VisitCXXNewExpr(CXXNewExpr *N) {
    opaque(N, "operator new", "`new` in device code is not analysed");
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *D) {
    opaque(D, "operator delete", "`delete` in device code is not analysed");
    return true;
  }
  // A constructor is a call: trivial ones copy or zero their object only.
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    const CXXConstructorDecl *Ctor = E->getConstructor();
    if (!Ctor || Ctor->isTrivial())
      return true;
    const CallSummary &S = summarizeFunction(Ctor);
    std::string Name = Ctor->getParent()->getNameAsString();
    if (S.Unknown)
      opaque(E, Name, S.UnknownWhy);
    if (!S.OrderedName.empty())
      opaque(E, Name, "its constructor calls `" + S.OrderedName + "`");
    applyEffects(S, llvm::ArrayRef<const Expr *>(E->getArgs(), E->getNumArgs()),
                 E);
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (!A.Jump &&
        (isa<BreakStmt>(S) || isa<ContinueStmt>(S) || isa<ReturnStmt>(S) ||
         isa<GotoStmt>(S) || isa<CUDAKernelCallExpr>(S)))
      A.Jump = S;
    return true;
  }
  // Lambdas are summarised when called, not when defined.
  bool TraverseLambdaExpr(LambdaExpr *L) {
    for (const LambdaCapture &C : L->captures())
      if (C.capturesVariable())
        if (auto *V = dyn_cast<VarDecl>(C.getCapturedVar()))
          A.Uses.insert(ren(V));
    return true;
  }

private:
  const VarDecl *ren(const VarDecl *V) const {
    if (Rename) {
      auto It = Rename->find(V);
      if (It != Rename->end())
        return It->second;
    }
    return V;
  }
  static bool localArray(const VarDecl *V) {
    return V->hasLocalStorage() && V->getType()->isArrayType();
  }
  void read(const Expr *At) {
    const VarDecl *B = accessBase(At);
    if (B) {
      if (!localArray(B))
        A.MemReads.insert(ren(B));
    } else if (!throughThis(At)) { // its own object: see summarizeFunction
      A.UnknownRead = true;
    }
  }
  void write(const Expr *Target) {
    const Expr *T = Target->IgnoreParenImpCasts();
    if (auto *R = dyn_cast<DeclRefExpr>(T)) {
      if (auto *V = dyn_cast<VarDecl>(R->getDecl())) {
        A.Defs.insert(ren(V));
        // A reference is an alias for the object it was bound to.
        if (!V->hasLocalStorage() || V->getType()->isReferenceType())
          store(V, T);
      }
      return;
    }
    if (auto *M = dyn_cast<MemberExpr>(T); M && !M->isArrow() &&
                                           !isa<CXXThisExpr>(M->getBase()))
    {
      write(M->getBase());
      return;
    }
    if (auto *U = dyn_cast<UnaryOperator>(T); U && U->getOpcode() == UO_Deref)
      if (auto *AO = dyn_cast<UnaryOperator>(
              U->getSubExpr()->IgnoreParenImpCasts());
          AO && AO->getOpcode() == UO_AddrOf) {
        write(AO->getSubExpr()); // *&x
        return;
      }
    const VarDecl *B = accessBase(T);
    if (B && localArray(B)) {
      A.Defs.insert(ren(B));
      return;
    }
    if (!B && throughThis(T)) { // its own object: see summarizeFunction
      if (!A.FirstStoreLine)
        A.FirstStoreLine = SM.getExpansionLineNumber(T->getBeginLoc());
      return;
    }
    if (!B)
      A.UnknownWrite = true;
    store(B, T);
  }
  /// A store through a pointer-valued argument: `&x` writes x, a local
  /// array writes the array, anything else writes the memory it points to.
  void writeThrough(const Expr *Arg) {
    const Expr *E = Arg->IgnoreParenImpCasts();
    if (auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf) {
      write(U->getSubExpr());
      return;
    }
    if (E->getType()->isPointerType() || E->getType()->isArrayType()) {
      const VarDecl *B = accessBase(E);
      if (B && localArray(B)) {
        A.Defs.insert(ren(B));
        return;
      }
      if (!B)
        A.UnknownWrite = true;
      store(B, E);
      return;
    }
    write(E);
  }
  void readThrough(const Expr *Arg) {
    const Expr *E = Arg->IgnoreParenImpCasts();
    if (auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      return; // the variable is read as a DeclRefExpr
    if (E->getType()->isPointerType() || E->getType()->isArrayType()) {
      const VarDecl *B = accessBase(E);
      if (B) {
        if (!localArray(B))
          A.MemReads.insert(ren(B));
      } else {
        A.UnknownRead = true;
      }
    }
  }
  void store(const VarDecl *B, const Expr *At) {
    if (B)
      A.MemWrites.insert(ren(B));
    if (!A.FirstStoreLine)
      A.FirstStoreLine = SM.getExpansionLineNumber(At->getBeginLoc());
  }
  void opaque(const Stmt *At, const std::string &Name,
              const std::string &Why) {
    if (!A.OpaqueCall) {
      A.OpaqueCall = At;
      A.OpaqueName = Name;
      A.OpaqueWhy = Why;
    }
  }
  void ordered(const CallExpr *C, const std::string &Name) {
    if (!A.OrderedCall) {
      A.OrderedCall = C;
      A.OrderedName = Name;
    }
  }
  void apply(const CallSummary &S, const CallExpr *C,
             const FunctionDecl *F);
  /// Maps a summary's effects on its parameters, globals and captures onto
  /// the arguments of a call or constructor at \p At.
  void applyEffects(const CallSummary &S, llvm::ArrayRef<const Expr *> Args,
                    const Expr *At);

  Accesses &A;
  const SourceManager &SM;
  const DeclMap *Rename;
};

void AccessCollector::apply(const CallSummary &S, const CallExpr *C,
                            const FunctionDecl *F) {
  if (S.Unknown)
    opaque(C, calleeName(C), S.UnknownWhy);
  if (!S.OrderedName.empty()) {
    // Name the call as the user wrote it (`cg::sync(block)`), and what in
    // it orders the threads (`__barrier_sync`).
    std::string Written;
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(C->getCallee()->getSourceRange()), SM,
        LangOptions());
    if (R.isValid())
      Written = Lexer::getSourceText(R, SM, LangOptions()).str();
    if (Written.empty() || Written.size() > 60 || Written == S.OrderedName)
      ordered(C, S.OrderedName);
    else
      ordered(C, Written + "`, which calls `" + S.OrderedName);
  }
  // Arguments by parameter position; a member call's object apart.
  const Expr *Object = nullptr;
  unsigned Skip = 0;
  if (auto *MC = dyn_cast<CXXMemberCallExpr>(C))
    Object = MC->getImplicitObjectArgument();
  else if (isa<CXXOperatorCallExpr>(C) && isa<CXXMethodDecl>(F) &&
           !cast<CXXMethodDecl>(F)->isStatic() && C->getNumArgs() > 0) {
    Object = C->getArg(0);
    Skip = 1;
  }
  if (Object) {
    bool Ptr = Object->getType()->isPointerType();
    if (S.ReadsObject && Ptr)
      readThrough(Object);
    if (S.WritesObject)
      Ptr ? writeThrough(Object) : write(Object);
  }
  applyEffects(S,
               llvm::ArrayRef<const Expr *>(C->getArgs(), C->getNumArgs())
                   .drop_front(Skip),
               C);
}

void AccessCollector::applyEffects(const CallSummary &S,
                                   llvm::ArrayRef<const Expr *> Args,
                                   const Expr *At) {
  for (unsigned P = 0; P < Args.size(); ++P) {
    const Expr *Arg = Args[P];
    if (P >= S.WritesParam.size()) {
      // Variadic arguments: what they point to may be read and written.
      if (isPointerLike(Arg->getType())) {
        readThrough(Arg);
        writeThrough(Arg);
      }
      continue;
    }
    if (S.ReadsParam[P])
      readThrough(Arg);
    if (S.WritesParam[P])
      writeThrough(Arg);
  }
  for (const VarDecl *G : S.GlobalReads) {
    A.MemReads.insert(ren(G));
    A.Uses.insert(ren(G));
  }
  for (const VarDecl *G : S.GlobalWrites) {
    A.Defs.insert(ren(G));
    store(G, At);
  }
  for (const VarDecl *V : S.CapturedUses)
    A.Uses.insert(ren(V));
  for (const VarDecl *V : S.CapturedDefs) {
    A.Defs.insert(ren(V));
    if (V->getType()->isReferenceType())
      store(V, At);
  }
  if (S.UnknownRead)
    A.UnknownRead = true;
}

bool AccessCollector::VisitCallExpr(CallExpr *C) {
  if (isa<CUDAKernelCallExpr>(C))
    return true; // A jump (VisitStmt): nothing moves across it.
  const FunctionDecl *Direct = C->getDirectCallee();
  if (Direct && Direct->getIdentifier() &&
      Direct->getName().starts_with("__fetch_builtin"))
    return true; // threadIdx.x and friends.
  // In a template pattern an operator on a dependent operand may turn out
  // to be the builtin one: `s *= (T)2` writes s either way.
  if (auto *Op = dyn_cast<CXXOperatorCallExpr>(C); Op && C->getNumArgs() > 0) {
    OverloadedOperatorKind K = Op->getOperator();
    if (Op->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus)
      write(C->getArg(0));
  }
  std::vector<const FunctionDecl *> Cands = calleeCandidates(C);
  if (Cands.empty()) {
    if (!isa<CXXOperatorCallExpr>(C) || !C->isTypeDependent())
      opaque(C, calleeName(C),
             "`" + calleeName(C) +
                 "` is called indirectly or through a name that depends "
                 "on a template parameter");
    return true;
  }
  for (const FunctionDecl *F : Cands)
    apply(summarizeFunction(F), C, F);
  return true;
}

/// Locations of the declarations in a function, for matching a template
/// instantiation's variables with its pattern's.
std::map<SourceLocation, const VarDecl *> varsByLocation(const FunctionDecl *F) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::map<SourceLocation, const VarDecl *> Found;
    bool VisitVarDecl(VarDecl *V) {
      Found[V->getLocation()] = V;
      return true;
    }
  } Fi;
  for (const ParmVarDecl *P : F->parameters())
    Fi.Found[P->getLocation()] = P;
  if (F->getBody())
    Fi.TraverseStmt(F->getBody());
  return Fi.Found;
}

/// The statement of \p In at the same place as \p Pattern.
const Stmt *sameStatement(const Stmt *Pattern, const Stmt *In) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const Stmt *P;
    const Stmt *Found = nullptr;
    bool VisitStmt(Stmt *S) {
      if (!Found && S->getStmtClass() == P->getStmtClass() &&
          S->getBeginLoc() == P->getBeginLoc() &&
          S->getEndLoc() == P->getEndLoc())
        Found = S;
      return !Found;
    }
  } F;
  F.P = Pattern;
  F.TraverseStmt(const_cast<Stmt *>(In));
  return F.Found;
}

} // namespace

void Accesses::merge(const Accesses &O) {
  Defs.insert(O.Defs.begin(), O.Defs.end());
  Uses.insert(O.Uses.begin(), O.Uses.end());
  MemReads.insert(O.MemReads.begin(), O.MemReads.end());
  MemWrites.insert(O.MemWrites.begin(), O.MemWrites.end());
  UnknownWrite |= O.UnknownWrite;
  UnknownRead |= O.UnknownRead;
  if (!FirstStoreLine)
    FirstStoreLine = O.FirstStoreLine;
  if (!OrderedCall && O.OrderedCall) {
    OrderedCall = O.OrderedCall;
    OrderedName = O.OrderedName;
  }
  if (!OpaqueCall && O.OpaqueCall) {
    OpaqueCall = O.OpaqueCall;
    OpaqueWhy = O.OpaqueWhy;
  }
  if (!Jump)
    Jump = O.Jump;
}

Accesses collectAccesses(const Stmt *S, const SourceManager &SM,
                         const DeclMap *Rename) {
  Accesses A;
  if (S) {
    AccessCollector C(A, SM, Rename);
    C.TraverseStmt(const_cast<Stmt *>(S));
  }
  return A;
}

Accesses collectAccessesAllInstances(const Stmt *S, const FunctionDecl *FD,
                                     const SourceManager &SM) {
  Accesses A = collectAccesses(S, SM);
  const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate();
  if (!FT)
    return A;
  std::map<SourceLocation, const VarDecl *> PatternVars = varsByLocation(FD);
  for (const FunctionDecl *Spec : FT->specializations()) {
    if (!Spec->getBody() ||
        Spec->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
      continue;
    const Stmt *Inst = sameStatement(S, Spec->getBody());
    if (!Inst)
      continue;
    DeclMap Rename;
    for (auto &[Loc, V] : varsByLocation(Spec)) {
      auto It = PatternVars.find(Loc);
      if (It != PatternVars.end())
        Rename[V] = It->second;
    }
    A.merge(collectAccesses(Inst, SM, &Rename));
  }
  return A;
}

std::vector<const FunctionDecl *> calleeCandidates(const CallExpr *C) {
  std::vector<const FunctionDecl *> Out;
  if (isa<CUDAKernelCallExpr>(C))
    return Out;
  if (const FunctionDecl *F = C->getDirectCallee()) {
    Out.push_back(F);
    return Out;
  }
  const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
  const OverloadExpr *OE = dyn_cast<OverloadExpr>(Callee);
  if (!OE)
    return Out;
  for (const NamedDecl *D : OE->decls()) {
    D = D->getUnderlyingDecl();
    if (auto *FT = dyn_cast<FunctionTemplateDecl>(D))
      Out.push_back(FT->getTemplatedDecl());
    else if (auto *F = dyn_cast<FunctionDecl>(D))
      Out.push_back(F);
  }
  return Out;
}

std::string calleeName(const CallExpr *C) {
  if (const FunctionDecl *F = C->getDirectCallee())
    return F->getNameAsString();
  const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
  if (auto *OE = dyn_cast<OverloadExpr>(Callee))
    return OE->getName().getAsString();
  if (auto *D = dyn_cast<DependentScopeDeclRefExpr>(Callee))
    return D->getDeclName().getAsString();
  if (auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    return M->getMember().getAsString();
  if (auto *R = dyn_cast<DeclRefExpr>(Callee))
    return R->getDecl()->getNameAsString();
  if (auto *M = dyn_cast<MemberExpr>(Callee))
    return M->getMemberDecl()->getNameAsString();
  return "an expression";
}

/// Summaries of the translation unit being analysed; declarations of an
/// earlier one are gone, and their addresses may be reused.
static std::map<const FunctionDecl *, CallSummary> &summaryCache() {
  thread_local std::map<const FunctionDecl *, CallSummary> Cache;
  return Cache;
}

void forgetCallSummaries() { summaryCache().clear(); }

namespace {

/// Fills \p S for a callee whose effects are known without reading its
/// body: barriers, collectives, atomics and fences (ordered, through every
/// pointer), library functions that rules/callees.json describes, and
/// defaulted assignment operators. False when \p F's body must tell.
bool summarizeWithoutBody(const FunctionDecl *F, const std::string &Name,
                          CallSummary &S) {
  unsigned NP = F->getNumParams();
  const SourceManager &SM = F->getASTContext().getSourceManager();
  const CalleeRules &Rules = CalleeRules::get();
  bool System = F->getBuiltinID() != 0 ||
                SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation()));
  if (isOrderedName(Name)) {
    S.Unknown = false;
    S.OrderedName = Name;
    // Atomics and collectives read and write what their pointers point to.
    for (unsigned I = 0; I < NP; ++I)
      if (isPointerLike(F->getParamDecl(I)->getType()))
        S.ReadsParam[I] = S.WritesParam[I] = true;
    return true;
  }
  if (System && F->getIdentifier() && Rules.known(Name)) {
    S.Unknown = false;
    auto Mark = [&](const std::map<std::string, std::vector<unsigned>> &M,
                    std::vector<bool> &Flags) {
      auto It = M.find(Name);
      if (It != M.end())
        for (unsigned I : It->second)
          if (I < NP)
            Flags[I] = true;
    };
    Mark(Rules.WritesThrough, S.WritesParam);
    Mark(Rules.ReadsThrough, S.ReadsParam);
    for (unsigned I = 0; I < NP; ++I)
      if (isPointerLike(F->getParamDecl(I)->getType()) && !S.ReadsParam[I] &&
          !S.WritesParam[I])
        S.ReadsParam[I] = S.WritesParam[I] = true; // not described: assume
    return true;
  }
  // Implicit and defaulted assignment operators copy into their object.
  if (auto *M = dyn_cast<CXXMethodDecl>(F);
      M && (M->isCopyAssignmentOperator() || M->isMoveAssignmentOperator()) &&
      (M->isDefaulted() || M->isTrivial() || M->isImplicit())) {
    S.Unknown = false;
    S.ReadsObject = S.WritesObject = true;
    S.ReadsParam.assign(NP, true);
    return true;
  }
  return false;
}

/// The definition whose body tells what \p F does: its own, or for an
/// instantiation without one, its template pattern's. nullptr when this
/// file has neither.
const FunctionDecl *summarizedDefinition(const FunctionDecl *F) {
  const FunctionDecl *Def = nullptr;
  if (!F->hasBody(Def) || !Def->getBody()) {
    Def = nullptr;
    if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
      if (!P->hasBody(Def) || !Def->getBody())
        Def = nullptr;
  }
  return Def;
}

/// Whether \p Body uses `this`: a member function touching its own object.
bool usesThis(Stmt *Body) {
  struct ThisUse : RecursiveASTVisitor<ThisUse> {
    bool Any = false;
    bool VisitCXXThisExpr(CXXThisExpr *) {
      Any = true;
      return false;
    }
  } TU;
  TU.TraverseStmt(Body);
  return TU.Any;
}

/// Sorts the variables the body of \p Def (named \p Name, \p NP parameters)
/// touches, \p A, into what its callers see in \p R: loads and stores
/// through each parameter, globals, a lambda's captures. A store through a
/// local pointer cannot be followed back to the caller: unknown.
void attributeAccesses(const Accesses &A, const FunctionDecl *Def, unsigned NP,
                       const std::string &Name, CallSummary &R) {
  std::map<const VarDecl *, unsigned> ParamIndex;
  for (unsigned I = 0; I < Def->getNumParams() && I < NP; ++I)
    ParamIndex[Def->getParamDecl(I)] = I;
  // A local variable declared outside the body is a lambda's capture.
  auto Captured = [&](const VarDecl *V) {
    const DeclContext *DC = V->getDeclContext();
    return V->hasLocalStorage() && !ParamIndex.count(V) && DC != Def &&
           !Def->Encloses(DC);
  };
  for (const VarDecl *V : A.MemWrites) {
    auto P = ParamIndex.find(V);
    if (P != ParamIndex.end())
      R.WritesParam[P->second] = true;
    else if (!V->hasLocalStorage())
      R.GlobalWrites.insert(V);
    else if (!R.Unknown) {
      R.Unknown = true;
      R.UnknownWhy = "`" + Name + "` stores through the local pointer `" +
                     V->getNameAsString() + "`";
    }
  }
  for (const VarDecl *V : A.MemReads) {
    auto P = ParamIndex.find(V);
    if (P != ParamIndex.end())
      R.ReadsParam[P->second] = true;
    else if (!V->hasLocalStorage())
      R.GlobalReads.insert(V);
    else
      R.UnknownRead = true;
  }
  for (const VarDecl *V : A.Defs) {
    auto P = ParamIndex.find(V);
    if (P != ParamIndex.end() && V->getType()->isReferenceType())
      R.WritesParam[P->second] = true;
    else if (Captured(V))
      R.CapturedDefs.insert(V);
  }
  for (const VarDecl *V : A.Uses) {
    auto P = ParamIndex.find(V);
    if (P != ParamIndex.end() && V->getType()->isReferenceType())
      R.ReadsParam[P->second] = true;
    else if (Captured(V))
      R.CapturedUses.insert(V);
    else if (!V->hasLocalStorage() && !V->getType().isConstQualified())
      R.GlobalReads.insert(V);
  }
}

/// The summary of a callee from its body \p Def. Calls inside it are
/// summarised on the way (collectAccesses), so the caller must have put a
/// placeholder for this callee in the cache first: a recursive call finds
/// that one.
CallSummary summarizeBody(const FunctionDecl *Def, unsigned NP,
                          const std::string &Name, const SourceManager &SM) {
  Accesses A = collectAccesses(Def->getBody(), SM);
  CallSummary R;
  R.ReadsParam.assign(NP, false);
  R.WritesParam.assign(NP, false);
  if (A.OpaqueCall) {
    R.Unknown = true;
    R.UnknownWhy = "`" + Name + "` uses `" + A.OpaqueName + "`: " +
                   (A.OpaqueWhy.empty() ? "its effects are unknown"
                                        : A.OpaqueWhy);
  }
  if (A.UnknownWrite && !R.Unknown) {
    R.Unknown = true;
    R.UnknownWhy =
        "`" + Name + "` stores through a pointer warpwise cannot name";
  }
  R.OrderedName = A.OrderedName;
  R.UnknownRead = A.UnknownRead;
  attributeAccesses(A, Def, NP, Name, R);
  if (usesThis(Def->getBody())) {
    R.ReadsObject = true;
    if (auto *M = dyn_cast<CXXMethodDecl>(Def); M && !M->isConst())
      R.WritesObject = true;
  }
  if (A.Jump && isa<CUDAKernelCallExpr>(A.Jump) && !R.Unknown) {
    R.Unknown = true;
    R.UnknownWhy = "`" + Name + "` launches a kernel";
  }
  return R;
}

} // namespace

const CallSummary &summarizeFunction(const FunctionDecl *F) {
  std::map<const FunctionDecl *, CallSummary> &Cache = summaryCache();
  static const CallSummary UnknownCallee = [] {
    CallSummary S;
    S.Unknown = true;
    S.UnknownWhy = "the callee is not known";
    return S;
  }();
  if (!F)
    return UnknownCallee;
  F = F->getCanonicalDecl();
  auto It = Cache.find(F);
  if (It != Cache.end())
    return It->second;
  CallSummary &S = Cache[F];
  std::string Name = F->getNameAsString();
  unsigned NP = F->getNumParams();
  S.ReadsParam.assign(NP, false);
  S.WritesParam.assign(NP, false);
  // Until the body is summarised, a recursive call knows nothing.
  S.Unknown = true;
  S.UnknownWhy = "`" + Name + "` is recursive";
  if (summarizeWithoutBody(F, Name, S))
    return S;
  const FunctionDecl *Def = summarizedDefinition(F);
  if (!Def) {
    S.UnknownWhy = "`" + Name + "` has no definition in this file";
    return S;
  }
  if (Def->getNumParams() != NP) { // a pattern with a parameter pack
    S.UnknownWhy = "`" + Name + "` takes a parameter pack";
    return S;
  }
  CallSummary R =
      summarizeBody(Def, NP, Name, F->getASTContext().getSourceManager());
  Cache[F] = R;
  return Cache[F];
}

} // namespace warpwise
