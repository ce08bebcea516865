//===- MergeCallees.cpp - Merging the sides' different callees ------------===//
//
// Two sides that call two different __device__ functions where the other
// calls its own (`v = chain_a(x)` / `v = chain_b(x)`) share no statement
// as written, yet the callees' bodies may be the same computation with
// other constants. nvcc inlines both, so the divergent warp issues both
// bodies. The sides are matched through the calls instead: the two
// callees' bodies are aligned and merged as two sides are (the same
// Merger, one level down) into a lambda at the head of the merged code
// that takes the branch condition as its first parameter, and the matched
// call becomes one call of it. The callees stay as they are. Being local
// to the merged code, each branch's merged callees are its own: two
// branches, or a pair merged both directly and inside another, never
// define one name twice.
//
// Only where every lane then computes what its own callee did: pure
// callees (they write no memory: no store, atomic or barrier behind the
// call) with the same signature, each body its statements and one final
// return, defined before the caller in the same file and scope, without
// preprocessor lines (the copy would keep only what this parse saw), and
// whose bodies read the same declarations and macros at the branch as
// where they are written (lookupProblem).
//
//===----------------------------------------------------------------------===//
#include "MergeEngine.h"
#include "SideEffects.h"

#include "warpwise/AstQueries.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>
#include <functional>

namespace warpwise {
namespace merge {

namespace {

/// Each token of \p Text as Clang's raw lexer reads it (comments, string
/// literals and continued lines handled), with the identifier that follows
/// a directive's `#` (empty elsewhere).
void rawTokens(llvm::StringRef Text, const LangOptions &LO,
               const std::function<void(const Token &,
                                        llvm::StringRef Directive)> &Visit) {
  std::string Buffer = Text.str(); // The raw lexer reads to a terminator.
  Lexer L(SourceLocation(), LO, Buffer.data(), Buffer.data(),
          Buffer.data() + Buffer.size());
  Token Tok;
  bool AfterHash = false;
  do {
    L.LexFromRawLexer(Tok);
    llvm::StringRef Directive;
    if (AfterHash && Tok.is(tok::raw_identifier))
      Directive = Tok.getRawIdentifier();
    AfterHash = Tok.is(tok::hash) && Tok.isAtStartOfLine();
    Visit(Tok, Directive);
  } while (Tok.isNot(tok::eof));
}

} // namespace

bool hasDirective(llvm::StringRef Text, const LangOptions &LO) {
  bool Found = false;
  rawTokens(Text, LO, [&](const Token &T, llvm::StringRef) {
    Found |= T.is(tok::hash) && T.isAtStartOfLine();
  });
  return Found;
}

std::set<std::string> declaredNames(const FunctionDecl *F,
                                    bool *UsingDirective) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::set<std::string> Names;
    bool Directive = false;
    bool VisitNamedDecl(NamedDecl *D) {
      if (D->getIdentifier())
        Names.insert(D->getName().str());
      return true;
    }
    bool VisitUsingDirectiveDecl(UsingDirectiveDecl *) {
      Directive = true;
      return true;
    }
  } Find;
  for (const ParmVarDecl *P : F->parameters())
    if (P->getIdentifier())
      Find.Names.insert(P->getName().str());
  if (const FunctionTemplateDecl *T = F->getDescribedFunctionTemplate())
    for (const NamedDecl *P : *T->getTemplateParameters())
      if (P->getIdentifier())
        Find.Names.insert(P->getName().str());
  if (F->getBody())
    Find.TraverseStmt(const_cast<Stmt *>(F->getBody()));
  if (UsingDirective)
    *UsingDirective = Find.Directive;
  return Find.Names;
}

namespace {

/// What copying \p F's body elsewhere could change: whether it expands a
/// macro, and whether it reads where it is written (`__LINE__`,
/// `__COUNTER__`, `__func__`).
void bodyFacts(const FunctionDecl *F, const SourceManager &SM,
               const LangOptions &LO, bool &UsesMacros, bool &Positional) {
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (isa<PredefinedExpr>(S))
      Positional = true;
    for (SourceLocation L : {S->getBeginLoc(), S->getEndLoc()}) {
      UsesMacros |= L.isMacroID();
      for (; L.isMacroID(); L = SM.getImmediateMacroCallerLoc(L)) {
        llvm::StringRef Name = Lexer::getImmediateMacroName(L, SM, LO);
        Positional |= Name == "__LINE__" || Name == "__COUNTER__";
      }
    }
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(F->getBody());
}

/// The identifiers written in \p Text (not those in comments or literals).
std::set<std::string> identifiersIn(llvm::StringRef Text,
                                    const LangOptions &LO) {
  std::set<std::string> Out;
  rawTokens(Text, LO, [&](const Token &T, llvm::StringRef) {
    if (T.is(tok::raw_identifier))
      Out.insert(T.getRawIdentifier().str());
  });
  return Out;
}

/// Every named declaration of \p DC, those of nested namespaces and
/// linkage specifications included.
void namedDecls(const DeclContext *DC,
                const std::function<void(const NamedDecl *)> &Visit) {
  for (const Decl *D : DC->decls()) {
    if (auto *N = dyn_cast<NamedDecl>(D))
      Visit(N);
    if (auto *Inner = dyn_cast<DeclContext>(D))
      if (isa<NamespaceDecl>(D) || isa<LinkageSpecDecl>(D))
        namedDecls(Inner, Visit);
  }
}

} // namespace

std::string Merger::lookupProblem(const FunctionDecl *DA,
                                  const FunctionDecl *DB) const {
  for (const FunctionDecl *F : {DA, DB})
    if (text(F->getSourceRange()).empty())
      return "`" + F->getNameAsString() + "` is written with a macro";
  // The names the copies read, as written (types, globals, functions and
  // macros alike), less those each callee declares itself.
  auto Read = [&](const FunctionDecl *F) {
    std::set<std::string> Names = identifiersIn(text(F->getSourceRange()), LO);
    for (const std::string &Own : declaredNames(F))
      Names.erase(Own);
    // The callees' own names: their definitions are what is copied.
    Names.erase(DA->getName().str());
    Names.erase(DB->getName().str());
    return Names;
  };
  std::set<std::string> Names = Read(DA), NamesB = Read(DB);
  bool Macros = false, Positional = false;
  bodyFacts(DA, SM, LO, Macros, Positional);
  bodyFacts(DB, SM, LO, Macros, Positional);
  if (Positional || Names.count("__LINE__") || Names.count("__COUNTER__") ||
      NamesB.count("__LINE__") || NamesB.count("__COUNTER__"))
    return "a callee reads where it is written (`__LINE__`, `__func__`)";
  // B's parameters take A's names in the merged function.
  for (unsigned I = 0; I < DA->getNumParams(); ++I) {
    std::string PA = DA->getParamDecl(I)->getName().str();
    if (PA != DB->getParamDecl(I)->getName() && NamesB.count(PA))
      return "`" + DB->getNameAsString() + "` reads `" + PA +
             "`, the name its parameter would take";
  }
  Names.insert(NamesB.begin(), NamesB.end());
  if (ScopeHasUsingDirective)
    return "a using-directive in the function holding the branch may "
           "change what the callees' names mean there";
  for (const std::string &N : Names)
    if (ScopeNames.count(N))
      return "`" + N +
             "`, which the callees read, is declared again "
             "where the merged code goes";
  // A declaration, #define or #undef of a name the bodies read between
  // their definitions and the branch would change what the copy reads.
  for (const FunctionDecl *F : {DA, DB}) {
    SourceLocation End = F->getEndLoc();
    std::string Clash;
    namedDecls(Ctx.getTranslationUnitDecl(), [&](const NamedDecl *D) {
      bool Between = SM.isBeforeInTranslationUnit(End, D->getLocation()) &&
                     SM.isBeforeInTranslationUnit(D->getLocation(), BranchLoc);
      if (Clash.empty() && Between && isa<UsingDirectiveDecl>(D))
        Clash = "using namespace"; // Any name may now mean another.
      if (Clash.empty() && Between && D->getIdentifier() &&
          Names.count(D->getName().str()))
        Clash = D->getNameAsString();
    });
    if (Clash == "using namespace")
      return "a using-directive between `" + F->getNameAsString() +
             "` and the branch may change what its names mean there";
    if (!Clash.empty())
      return "`" + Clash + "` is declared again between `" +
             F->getNameAsString() + "` and the branch";
    unsigned From = SM.getFileOffset(End), To = SM.getFileOffset(BranchLoc);
    llvm::StringRef Between =
        SM.getBufferData(SM.getFileID(End)).slice(From, To);
    std::set<std::string> Written =
        identifiersIn(text(DA->getBody()->getSourceRange()) + "\n" +
                          text(DB->getBody()->getSourceRange()),
                      LO);
    // `#define NAME` and `#undef NAME`: the name is the token after the
    // directive's own.
    bool Changes = false, NameNext = false;
    rawTokens(Between, LO, [&](const Token &T, llvm::StringRef Directive) {
      if (NameNext && T.is(tok::raw_identifier))
        Changes |= Written.count(T.getRawIdentifier().str()) > 0;
      NameNext = Directive == "define" || Directive == "undef";
      // A header may define anything.
      Changes |= Macros && (Directive == "include" || Directive == "import");
    });
    if (Changes)
      return "a preprocessor line between `" + F->getNameAsString() +
             "` and the branch may change the macros its body uses";
  }
  return "";
}

bool Merger::referencedOutside(const FunctionDecl *F) const {
  struct Finder : RecursiveASTVisitor<Finder> {
    const FunctionDecl *F, *Outer;
    bool Found = false;
    Finder(const FunctionDecl *F, const FunctionDecl *Outer)
        : F(F), Outer(Outer) {}
    bool TraverseFunctionDecl(FunctionDecl *D) {
      // The function holding the branch (its template included): its
      // references go with the branch.
      if (D->getCanonicalDecl() == Outer->getCanonicalDecl() ||
          D->getTemplateInstantiationPattern() == Outer)
        return true;
      return RecursiveASTVisitor::TraverseFunctionDecl(D);
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (R->getDecl()->getCanonicalDecl() == F->getCanonicalDecl())
        Found = true;
      return !Found;
    }
  } Find(F, Outer);
  Find.TraverseAST(Ctx);
  return Find.Found;
}

std::string Merger::calleePairProblem(const FunctionDecl *A,
                                      const FunctionDecl *B) const {
  auto Named = [](const FunctionDecl *F) {
    return "`" + F->getNameAsString() + "`";
  };
  const FunctionDecl *DA = A->getDefinition(), *DB = B->getDefinition();
  if (!DA || !DB || !DA->getBody() || !DB->getBody())
    return "the callees have no body here";
  // The toolkit's functions (sinf and cosf) are not the user's to merge.
  if (SM.isInSystemHeader(SM.getExpansionLoc(DA->getLocation())) ||
      SM.isInSystemHeader(SM.getExpansionLoc(DB->getLocation())))
    return "a callee is the toolkit's";
  if (CalleeDepth >= 2)
    return "calls nest too deep";
  if (Outer->hasAttr<CUDAHostAttr>())
    return Named(Outer) + " is also a host function";
  for (const FunctionDecl *F : {DA, DB}) {
    if (F == Outer || F == FD)
      return Named(F) + " calls itself";
    if (!F->hasAttr<CUDADeviceAttr>() || F->hasAttr<CUDAGlobalAttr>() ||
        F->hasAttr<NoInlineAttr>() || F->isVariadic() ||
        isa<CXXMethodDecl>(F) ||
        F->getTemplatedKind() != FunctionDecl::TK_NonTemplate ||
        !F->getIdentifier())
      return Named(F) + " is not a plain __device__ function";
    if (!isPureCallee(F))
      return Named(F) + " is not pure (it writes memory or exchanges "
                        "values with other lanes)";
    if (!F->isExternallyVisible() && !referencedOutside(F))
      return Named(F) + " has internal linkage and no caller outside " +
             Named(Outer) +
             ", which the merge would leave unreferenced "
             "(nvcc's warning #177)";
    if (!F->getDeclContext()->getRedeclContext()->Equals(
            Outer->getDeclContext()->getRedeclContext()))
      return Named(F) + " is declared in another scope";
    for (const ParmVarDecl *P : F->parameters())
      if (P->hasDefaultArg() || !P->getIdentifier())
        return Named(F) + " has a default or unnamed parameter";
    SourceLocation End = F->getEndLoc();
    if (End.isMacroID() || BranchLoc.isInvalid() ||
        SM.getFileID(End) != SM.getFileID(BranchLoc) ||
        !SM.isBeforeInTranslationUnit(End,
                                      SM.getExpansionLoc(Outer->getBeginLoc())))
      return Named(F) + " is not defined before " + Named(Outer) +
             " in its file";
    if (hasDirective(text(F->getBody()->getSourceRange()), LO))
      return Named(F) + " holds a preprocessor line, and its copy would "
                        "keep only what this parse saw";
  }
  if (DA->getNumParams() != DB->getNumParams() ||
      DA->getReturnType().getCanonicalType() !=
          DB->getReturnType().getCanonicalType())
    return Named(A) + " and " + Named(B) + " differ in their signatures";
  for (unsigned I = 0; I < DA->getNumParams(); ++I)
    if (DA->getParamDecl(I)->getType().getCanonicalType() !=
        DB->getParamDecl(I)->getType().getCanonicalType())
      return Named(A) + " and " + Named(B) + " differ in their signatures";
  return lookupProblem(DA, DB);
}

const Merger::CalleeMerge &Merger::mergeCallees(const FunctionDecl *A,
                                                const FunctionDecl *B) const {
  auto Key = std::make_pair(A->getFirstDecl(), B->getFirstDecl());
  auto It = CalleeMerges.find(Key);
  if (It != CalleeMerges.end())
    return It->second;
  // Entered before merging: a pair that reaches itself again is refused.
  CalleeMerge &M = CalleeMerges[Key];
  M.Refusal = calleePairProblem(A, B);
  if (!M.Refusal.empty()) {
    const FunctionDecl *DA = A->getDefinition(), *DB = B->getDefinition();
    M.Quiet = !DA || !DB || !DA->getBody() || !DB->getBody() ||
              SM.isInSystemHeader(SM.getExpansionLoc(DA->getLocation())) ||
              SM.isInSystemHeader(SM.getExpansionLoc(DB->getLocation()));
    return M;
  }
  const FunctionDecl *DA = A->getDefinition(), *DB = B->getDefinition();
  Merger Sub(Ctx, DA, C, AllowCF, KeepContraction);
  Sub.Outer = Outer;
  Sub.CalleeDepth = CalleeDepth + 1;
  Sub.BranchLoc = BranchLoc;
  // The lambda's body is where its own nested lambdas go.
  Sub.ScopeNames = ScopeNames;
  std::set<std::string> Own = declaredNames(DA);
  Sub.ScopeNames.insert(Own.begin(), Own.end());
  Sub.ScopeHasUsingDirective = ScopeHasUsingDirective;
  std::string Lead = indent(1); // Where this Merger writes its lambdas.
  Sub.BaseIndent = Lead;
  auto Unused = [&](std::string Base) {
    for (unsigned N = 0;; ++N) {
      std::string Name = N ? Base + "_" + std::to_string(N) : Base;
      if (Ctx.Idents.find(Name) == Ctx.Idents.end() && !Taken.count(Name) &&
          !Sub.ScopeNames.count(Name)) {
        Taken.insert(Name);
        return Name;
      }
    }
  };
  std::string Sel = Unused("ww_side");
  Sub.ScopeNames.insert(Sel);
  M.Name =
      Unused("ww_" + DA->getNameAsString() + "_or_" + DB->getNameAsString());
  std::string Body;
  if (!Sub.mergeBodies(DA, DB, Sel, Body)) {
    M.Refusal = Sub.Out.Refusal.empty() ? "their bodies could not be merged"
                                        : Sub.Out.Refusal;
    return M;
  }
  std::string Params;
  for (const ParmVarDecl *P : DA->parameters()) {
    std::string T = text(P->getSourceRange());
    if (T.empty()) {
      M.Refusal = "a parameter of `" + DA->getNameAsString() +
                  "` is written with a macro";
      return M;
    }
    Params += ", " + T;
  }
  // The return type as the program declares it (printed: the source range
  // of a return type leaves its qualifiers out).
  std::string Ret = DA->getReturnType().getAsString(Ctx.getPrintingPolicy());
  for (const CalleeMerge *U : Sub.UsedCallees)
    M.Bodies.insert(M.Bodies.end(), U->Bodies.begin(), U->Bodies.end());
  for (const FunctionDecl *F : {DA, DB}) {
    CharSourceRange R = fileRange(F->getBody()->getSourceRange());
    if (R.isValid())
      M.Bodies.push_back({SM.getFileOffset(R.getBegin()),
                          Lexer::getSourceText(R, SM, LO).str()});
  }
  M.Definition = Lead + "// `" + DA->getNameAsString() + "` and `" +
                 DB->getNameAsString() + "` merged (" + Sel + ": `" +
                 DA->getNameAsString() + "`'s lanes)\n" + Lead + "auto " +
                 M.Name + " = [](bool " + Sel + Params + ") -> " + Ret + " " +
                 Body + ";\n";
  M.Pair =
      "`" + DA->getNameAsString() + "` and `" + DB->getNameAsString() + "`";
  M.Saved = Sub.Out.Saved;
  M.Total = Sub.Out.Total;
  M.Shared = Sub.Out.AfterShared;
  M.GuardedA = Sub.Out.AfterGuardedA;
  M.GuardedB = Sub.Out.AfterGuardedB;
  M.Guards = Sub.Out.AfterGuards;
  M.Selects = Sub.Out.Selects;
  M.ProductSelects = Sub.Out.ProductSelects;
  M.OK = true;
  return M;
}

bool Merger::mergeBodies(const FunctionDecl *A, const FunctionDecl *B,
                         const std::string &Sel, std::string &Body) {
  auto *BodyA = dyn_cast<CompoundStmt>(A->getBody());
  auto *BodyB = dyn_cast<CompoundStmt>(B->getBody());
  if (!BodyA || !BodyB) {
    Out.Refusal = "a callee's body is not a block";
    return false;
  }
  std::vector<const Stmt *> SA(BodyA->body_begin(), BodyA->body_end());
  std::vector<const Stmt *> SB(BodyB->body_begin(), BodyB->body_end());
  bool Void = A->getReturnType()->isVoidType();
  // The final return leaves the body; any other is refused by scanSide.
  auto TakeReturn = [&](std::vector<const Stmt *> &S, const Expr *&R) {
    if (!S.empty())
      if (auto *Ret = dyn_cast<ReturnStmt>(S.back())) {
        R = Ret->getRetValue();
        S.pop_back();
      }
    return Void || R;
  };
  const Expr *RA = nullptr, *RB = nullptr;
  if (!TakeReturn(SA, RA) || !TakeReturn(SB, RB)) {
    Out.Refusal = "`" + A->getNameAsString() + "` or `" + B->getNameAsString() +
                  "` does not end in its one return";
    return false;
  }
  // Side B's parameters are side A's: the merged function has A's.
  for (unsigned I = 0; I < A->getNumParams(); ++I) {
    const ParmVarDecl *PA = A->getParamDecl(I), *PB = B->getParamDecl(I);
    Partner[PA] = PB;
    if (PA->getName() != PB->getName())
      Rename[PB] = PA->getNameAsString();
  }
  std::string Why;
  for (const Stmt *S : SA)
    if (!scanSide(S, SideA, Why) || !checkMacros(S, Why))
      break;
  if (Why.empty())
    for (const Stmt *S : SB)
      if (!scanSide(S, SideB, Why) || !checkMacros(S, Why))
        break;
  if (Why.empty())
    for (auto [R, Sd] : {std::make_pair(RA, SideA), std::make_pair(RB, SideB)})
      if (R && (!scanSide(R, Sd, Why) || !checkMacros(R, Why)))
        break;
  // A local of either body named as a parameter of A would be another
  // variable under A's names.
  for (const std::set<const VarDecl *> &Locals : Local)
    for (const VarDecl *V : Locals)
      for (const ParmVarDecl *P : A->parameters())
        if (Why.empty() && V->getName() == P->getName() && !Rename.empty())
          Why = "a local variable is named as a parameter of `" +
                A->getNameAsString() + "`";
  if (!Why.empty()) {
    Out.Refusal = Why + " (merging `" + A->getNameAsString() + "` and `" +
                  B->getNameAsString() + "`)";
    return false;
  }
  Cond = Sel;
  After[0] = RA; // What the returns read is hoisted out of guards.
  After[1] = RB;
  for (const Stmt *S : SA)
    Out.Total += cost(S);
  for (const Stmt *S : SB)
    Out.Total += cost(S);
  Out.Total += cost(RA) + cost(RB);
  std::string Text;
  if (!renderSeq(SA, SB, 1, Text) || !MacroProblem.empty()) {
    if (Out.Refusal.empty())
      Out.Refusal = MacroProblem.empty() ? "their bodies could not be merged"
                                         : MacroProblem;
    return false;
  }
  std::string Ret;
  if (!Void) {
    Selects S;
    if (!matchExpr(RA, RB, S, /*Optimistic=*/false, true)) {
      Out.Refusal = "the return values of `" + A->getNameAsString() +
                    "` and `" + B->getNameAsString() + "` cannot be matched";
      return false;
    }
    double Saved = cost(RA) + callSavings(S);
    for (auto &P : S.Points)
      Saved -= cost(P.first) + C.Select;
    Out.Saved += std::max(Saved, 0.0);
    unsigned SelectsBefore = Out.Selects;
    Ret = renderMatchedExpr(RA, RB, true);
    if (Ret.empty() || !MacroProblem.empty()) {
      Out.Refusal = MacroProblem.empty() ? "the return values could not be "
                                           "written back"
                                         : MacroProblem;
      return false;
    }
    Out.AfterShared += Counter.exprSlots(RA) +
                       (Out.Selects - SelectsBefore) * C.IssueSlots.Select;
  }
  Body = "{\n";
  for (const CalleeMerge *U : UsedCallees)
    Body += U->Definition;
  for (const std::string &H : Hoisted)
    Body += indent(1) + H + "\n";
  Body += Text;
  if (!Void)
    Body += indent(1) + "return " + Ret + ";\n";
  Body += BaseIndent + "}";
  return true;
}

void Merger::noteUnmergedCalls(const Stmt *Then, const Stmt *Else) {
  std::function<void(const Stmt *, std::vector<const CallExpr *> &)> Calls =
      [&](const Stmt *S, std::vector<const CallExpr *> &Out) {
        if (!S)
          return;
        if (auto *Call = dyn_cast<CallExpr>(S))
          if (Call->getDirectCallee())
            Out.push_back(Call);
        for (const Stmt *Child : S->children())
          Calls(Child, Out);
      };
  std::vector<const Stmt *> A = statementsOf(Then), B = statementsOf(Else);
  std::set<std::string> Said;
  for (size_t I = 0; I < std::min(A.size(), B.size()); ++I) {
    std::vector<const CallExpr *> CA, CB;
    Calls(A[I], CA);
    Calls(B[I], CB);
    if (CA.size() != CB.size())
      continue;
    for (size_t K = 0; K < CA.size(); ++K) {
      auto It = CalleeMerges.find({CA[K]->getDirectCallee()->getFirstDecl(),
                                   CB[K]->getDirectCallee()->getFirstDecl()});
      if (It == CalleeMerges.end() || It->second.OK || It->second.Quiet)
        continue;
      std::string Note = "`" + It->first.first->getNameAsString() + "` and `" +
                         It->first.second->getNameAsString() +
                         "`: " + It->second.Refusal;
      if (Said.insert(Note).second)
        Out.UnmergedCalls.push_back(Note);
    }
  }
}

double Merger::callSavings(const Selects &S) const {
  double Saved = 0;
  for (const auto &[CA, CB] : S.Calls)
    Saved += mergeCallees(CA->getDirectCallee(), CB->getDirectCallee()).Saved;
  return Saved;
}

std::string
Merger::renderMergedCall(const CallExpr *CallA, const CallExpr *CallB,
                         const std::map<const Stmt *, std::string> &Replace) {
  const CalleeMerge &M =
      mergeCallees(CallA->getDirectCallee(), CallB->getDirectCallee());
  std::string Text = M.Name + "(" + Cond;
  for (const Expr *Arg : CallA->arguments()) {
    std::string T = render(Arg, SideA, Replace);
    if (T.empty())
      return "";
    Text += ", " + T;
  }
  Text += ")";
  if (std::find(UsedCallees.begin(), UsedCallees.end(), &M) ==
      UsedCallees.end())
    UsedCallees.push_back(&M);
  // The matched statement counted side A's callee whole (IssueCounter
  // inlines it); the merged body issues its shared part once and each
  // side's guarded part.
  const FunctionDecl *DA = CallA->getDirectCallee()->getDefinition();
  Out.AfterShared += Mult * (M.Shared - Counter.slots(DA->getBody()));
  Out.AfterGuardedA += Mult * M.GuardedA;
  Out.AfterGuardedB += Mult * M.GuardedB;
  Out.AfterGuards += Mult * M.Guards;
  Out.Selects += M.Selects;
  Out.ProductSelects += M.ProductSelects;
  return Text;
}

} // namespace merge
} // namespace warpwise
