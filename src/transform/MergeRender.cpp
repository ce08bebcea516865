//===- MergeRender.cpp - Writing merged sides as source text --------------===//
//
// Matched pairs become one statement whose differing operands are selected
// on the branch condition; unmatched runs stay under guards, with the
// declarations used after them hoisted. All text is taken from the file, so
// the user's spelling (and macros) stays.
//
//===----------------------------------------------------------------------===//
#include "MergeEngine.h"
#include "SourceText.h"

#include "warpwise/AstQueries.h"

#include <algorithm>
#include <functional>

namespace warpwise {
namespace merge {

std::string Merger::text(SourceRange R) const {
  return Lexer::getSourceText(fileRange(R), SM, LO).str();
}

std::string Merger::fresh(const std::string &Base) {
  for (unsigned N = 0;; ++N) {
    std::string Name = N ? Base + "_" + std::to_string(N) : Base;
    if (Taken.count(Name) || Ctx.Idents.find(Name) != Ctx.Idents.end())
      continue;
    Taken.insert(Name);
    return Name;
  }
}

namespace {
struct Edit {
  unsigned Begin, End; ///< Offsets in the file.
  std::string Text;
};
} // namespace

std::string
Merger::render(const Stmt *S, Side Sd,
               const std::map<const Stmt *, std::string> &Replace) const {
  CharSourceRange FR = fileRange(S->getSourceRange());
  if (!FR.isValid()) {
    if (MacroProblem.empty())
      MacroProblem =
          "the expression at line " +
          std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
          " is only partly inside macro `" + macroAt(S->getBeginLoc()) +
          "`, so it cannot be rewritten in place; declined";
    return "";
  }
  unsigned Begin = SM.getFileOffset(FR.getBegin());
  unsigned End = SM.getFileOffset(FR.getEnd());
  std::vector<Edit> Edits;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *N) {
    if (!N)
      return;
    auto It = Replace.find(N);
    if (It != Replace.end() && N != S) {
      CharSourceRange NR = fileRange(N->getSourceRange());
      if (!NR.isValid())
        return; // selectable() admits only file ranges.
      Edits.push_back({SM.getFileOffset(NR.getBegin()),
                       SM.getFileOffset(NR.getEnd()), It->second});
      return;
    }
    // A renamed name written in a macro argument is renamed where the
    // argument is spelled; checkMacros refused names inside macro bodies.
    auto RenameAt = [&](SourceLocation Loc, const std::string &To) {
      SourceLocation F = nameInFile(Loc);
      if (F.isValid()) {
        unsigned B = SM.getFileOffset(F);
        Edits.push_back({B, B + Lexer::MeasureTokenLength(F, SM, LO), To});
      }
    };
    if (auto *Ref = dyn_cast<DeclRefExpr>(N))
      if (auto *V = dyn_cast<VarDecl>(Ref->getDecl())) {
        auto RIt = Rename.find(V);
        if (RIt != Rename.end())
          RenameAt(Ref->getLocation(), RIt->second);
      }
    if (auto *DS = dyn_cast<DeclStmt>(N))
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D)) {
          auto RIt = Rename.find(V);
          if (RIt != Rename.end())
            RenameAt(V->getLocation(), RIt->second);
          if (V->getInit())
            Walk(V->getInit());
        }
    for (const Stmt *Child : N->children())
      Walk(Child);
  };
  auto Top = Replace.find(S);
  if (Top != Replace.end())
    return Top->second;
  Walk(S);
  std::sort(Edits.begin(), Edits.end(),
            [](const Edit &X, const Edit &Y) { return X.Begin < Y.Begin; });
  llvm::StringRef File = SM.getBufferData(SM.getFileID(FR.getBegin()));
  std::string Out;
  unsigned Pos = Begin;
  for (const Edit &E : Edits) {
    if (E.Begin < Pos || E.End > End)
      continue; // Nested inside an earlier replacement.
    Out += File.substr(Pos, E.Begin - Pos).str();
    Out += E.Text;
    Pos = E.End;
  }
  Out += File.substr(Pos, End - Pos).str();
  (void)Sd;
  return Out;
}

std::string Merger::renderMatchedExpr(const Expr *A, const Expr *B,
                                      bool AllowRootSelect) {
  Selects S;
  if (!matchExpr(A, B, S, /*Optimistic=*/false, AllowRootSelect))
    return "";
  std::map<const Stmt *, std::string> Replace;
  for (auto &P : S.Points) {
    std::string TA = render(P.first, SideA, {});
    std::string TB = render(P.second, SideB, {});
    Replace[P.first] = "(" + Cond + " ? " + TA + " : " + TB + ")";
    ++Out.Selects;
    if (floatProduct(P.first) || floatProduct(P.second))
      ++Out.ProductSelects;
  }
  // Innermost first: an argument's merged call is in its caller's text.
  for (auto [CallA, CallB] : S.Calls) {
    std::string Call = renderMergedCall(CallA, CallB, Replace);
    if (Call.empty())
      return "";
    Replace[CallA] = Call;
  }
  return render(A, SideA, Replace);
}

/// "float x" for `float x = 1.0f;`: everything before the initialiser. All
/// positions are file positions: the type, the name or the initialiser may be
/// written with a macro (`float a = MUL(u, u);`), and an offset taken from a
/// location inside a macro expansion is an offset into that expansion, not
/// into the file. Empty when the declarator is not file text of its own
/// (checkMacros refuses those declarations before rendering starts).
std::string Merger::declarator(const VarDecl *V, const VarDecl *First) const {
  CharSourceRange Head =
      fileRange(SourceRange(V->getBeginLoc(), V->getLocation()));
  CharSourceRange Name = fileRange(SourceRange(V->getLocation()));
  CharSourceRange Whole = fileRange(V->getSourceRange());
  if (!Head.isValid() || !Name.isValid() || !Whole.isValid() ||
      SM.getFileID(Head.getBegin()) != SM.getFileID(Name.getBegin()))
    return "";
  unsigned Begin = SM.getFileOffset(Head.getBegin());
  unsigned NameBegin = SM.getFileOffset(Name.getBegin());
  unsigned NameEnd = SM.getFileOffset(Name.getEnd());
  if (NameBegin < Begin || NameEnd < NameBegin)
    return "";
  llvm::StringRef File = SM.getBufferData(SM.getFileID(Head.getBegin()));
  // Array bounds and other declarator parts follow the name, up to '=' or
  // to the declarator's end.
  unsigned End = SM.getFileOffset(Whole.getEnd());
  if (V->getInit()) {
    CharSourceRange Init = fileRange(V->getInit()->getSourceRange());
    if (!Init.isValid())
      return "";
    unsigned InitBegin = SM.getFileOffset(Init.getBegin());
    if (InitBegin < NameEnd)
      return "";
    End = NameEnd;
    size_t Eq = File.substr(NameEnd, InitBegin - NameEnd).rfind('=');
    if (Eq != llvm::StringRef::npos)
      End = NameEnd + Eq;
  }
  if (End < NameEnd)
    return "";
  std::string Text = File.substr(Begin, End - Begin).str();
  unsigned NameAt = NameBegin - Begin;
  if (First && First != V) {
    // `float a = 0, b`: the type specifiers the declarators share, written
    // before the first one's name, then this one's name and bounds.
    CharSourceRange FirstName = fileRange(SourceRange(First->getLocation()));
    if (!FirstName.isValid())
      return "";
    unsigned SpecEnd = SM.getFileOffset(FirstName.getBegin());
    if (SpecEnd < Begin || SpecEnd > NameBegin)
      return "";
    std::string Spec = File.slice(Begin, SpecEnd).rtrim().str() + " ";
    Text = Spec + File.slice(NameBegin, End).str();
    NameAt = Spec.size();
  }
  while (!Text.empty() && (Text.back() == ' ' || Text.back() == '\t'))
    Text.pop_back();
  auto It = Rename.find(V);
  if (It != Rename.end() && NameAt + (NameEnd - NameBegin) <= Text.size())
    Text.replace(NameAt, NameEnd - NameBegin, It->second);
  return Text;
}

bool Merger::renderPair(const Stmt *A, const Stmt *B, unsigned Depth,
                        std::string &Text) {
  std::string In = indent(Depth);
  if (auto *DA = dyn_cast<DeclStmt>(A)) {
    auto *VA = cast<VarDecl>(DA->getSingleDecl());
    auto *VB = cast<VarDecl>(cast<DeclStmt>(B)->getSingleDecl());
    std::string Init = renderMatchedExpr(VA->getInit(), VB->getInit(), true);
    if (Init.empty())
      return false;
    std::string Decl = declarator(VA);
    if (Decl.empty())
      return false;
    Text += In + Decl + " = " + Init + ";\n";
    return true;
  }
  if (auto *EA = dyn_cast<Expr>(A)) {
    std::string E = renderMatchedExpr(EA, cast<Expr>(B), false);
    if (E.empty())
      return false;
    Text += In + E + ";\n";
    return true;
  }
  if (auto *IA = dyn_cast<IfStmt>(A)) {
    auto *IB = cast<IfStmt>(B);
    unsigned SelectsBefore = Out.Selects;
    std::string Cnd = renderMatchedExpr(IA->getCond(), IB->getCond(), true);
    if (Cnd.empty())
      return false;
    // A merged inner branch: its condition once, and (lanes that disagree)
    // both of its sides, which the recursion counts.
    bool Pred = Counter.innerPredicated(IA->getThen()) &&
                Counter.innerPredicated(IA->getElse()) &&
                Counter.innerPredicated(IB->getThen()) &&
                Counter.innerPredicated(IB->getElse());
    Out.AfterShared +=
        Mult * (Counter.exprSlots(IA->getCond()) +
                (Pred ? 0 : C.IssueSlots.Branch + C.DivergedBranch) +
                (Out.Selects - SelectsBefore) * C.IssueSlots.Select);
    Text += In + "if (" + Cnd + ") {\n";
    if (!renderRegion(IA, IA->getThen(), IB, IB->getThen(), Depth + 1, Text))
      return false;
    if (IA->getElse()) {
      Text += In + "} else {\n";
      if (!renderRegion(IA, IA->getElse(), IB, IB->getElse(), Depth + 1, Text))
        return false;
    }
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  if (auto *FA = dyn_cast<ForStmt>(A)) {
    auto *FB = cast<ForStmt>(B);
    unsigned HeaderSelects = Out.Selects;
    std::string Init, Cnd, Inc;
    if (FA->getInit()) {
      if (auto *DA = dyn_cast<DeclStmt>(FA->getInit())) {
        auto *VA = cast<VarDecl>(DA->getSingleDecl());
        auto *VB =
            cast<VarDecl>(cast<DeclStmt>(FB->getInit())->getSingleDecl());
        std::string I = renderMatchedExpr(VA->getInit(), VB->getInit(), true);
        if (I.empty())
          return false;
        std::string Decl = declarator(VA);
        if (Decl.empty())
          return false;
        Init = Decl + " = " + I;
      } else {
        Init = renderMatchedExpr(cast<Expr>(FA->getInit()),
                                 cast<Expr>(FB->getInit()), false);
        if (Init.empty())
          return false;
      }
    }
    if (FA->getCond()) {
      Cnd = renderMatchedExpr(FA->getCond(), FB->getCond(), true);
      if (Cnd.empty())
        return false;
    }
    if (FA->getInc()) {
      Inc = renderMatchedExpr(FA->getInc(), FB->getInc(), false);
      if (Inc.empty())
        return false;
    }
    // The merged loop runs until the last lane's side is done; when its
    // header needed selects, nvcc can no longer unroll it.
    TripCount TA = Counter.trips(FA), TB = Counter.trips(FB);
    for (const TripCount *T : {&TA, &TB})
      if (!T->Assumption.empty())
        Out.Assumptions.push_back(T->Assumption);
    double Trips = std::max(TA.Trips, TB.Trips);
    bool Selected = Out.Selects != HeaderSelects;
    bool WasUnrolled =
        (TA.Constant && EnclosingTrips * TA.Trips <= C.UnrollMaxTrips) ||
        (TB.Constant && EnclosingTrips * TB.Trips <= C.UnrollMaxTrips);
    bool Unrolled = !Selected && TA.Constant && TB.Constant &&
                    EnclosingTrips * Trips <= C.UnrollMaxTrips;
    if (!Unrolled) {
      Out.AfterLoopIterations += Mult * Trips;
      if (WasUnrolled)
        ++Out.LostUnrolling;
    }
    Out.AfterShared +=
        Mult * Trips *
        (Counter.exprSlots(FA->getCond()) + Counter.exprSlots(FA->getInc()) +
         (Out.Selects - HeaderSelects) * C.IssueSlots.Select);
    double SavedMult = Mult, SavedTrips = EnclosingTrips;
    Mult *= Trips;
    EnclosingTrips *= std::max(Trips, 1.0);
    Text += In + "for (" + Init + "; " + Cnd + "; " + Inc + ") {\n";
    bool BodyOK =
        renderRegion(FA, FA->getBody(), FB, FB->getBody(), Depth + 1, Text);
    Mult = SavedMult;
    EnclosingTrips = SavedTrips;
    if (!BodyOK)
      return false;
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  if (auto *WA = dyn_cast<WhileStmt>(A)) {
    auto *WB = cast<WhileStmt>(B);
    std::string Cnd = renderMatchedExpr(WA->getCond(), WB->getCond(), true);
    if (Cnd.empty())
      return false;
    Out.AfterLoopIterations += Mult * C.AssumedTrips;
    Out.AfterShared += Mult * C.AssumedTrips * Counter.exprSlots(WA->getCond());
    double SavedMult = Mult;
    Mult *= C.AssumedTrips;
    Text += In + "while (" + Cnd + ") {\n";
    bool BodyOK =
        renderRegion(WA, WA->getBody(), WB, WB->getBody(), Depth + 1, Text);
    Mult = SavedMult;
    if (!BodyOK)
      return false;
    Text += In + "}\n";
    ++Out.MeldedRegions;
    return true;
  }
  return false;
}

/// Variables declared by \p S (at any depth) that are referenced outside \p S
/// in \p Later.
static void collectDecls(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        Out.insert(V);
  for (const Stmt *C : S->children())
    collectDecls(C, Out);
}
static void collectRefs(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *R = dyn_cast<DeclRefExpr>(S))
    if (auto *V = dyn_cast<VarDecl>(R->getDecl()))
      Out.insert(V);
  if (auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(D))
        if (V->getInit())
          collectRefs(V->getInit(), Out);
  for (const Stmt *C : S->children())
    collectRefs(C, Out);
}

/// Why \p V, declared by \p DS, cannot be declared apart from its
/// initialiser above the guard \p DS is under, or "": one of several
/// declarators that is not a plain name would need the declaration split
/// apart; a deduced type has nothing to deduce from there; and an array
/// bound that names a local variable would name another variable, or none,
/// above the guard.
static std::string hoistProblem(const VarDecl *V, const DeclStmt *DS) {
  QualType T = V->getType();
  if (!DS->isSingleDecl() &&
      (T->isPointerType() || T->isArrayType() || T->isReferenceType() ||
       T->isFunctionType() || T->isMemberPointerType()))
    return " apart from the other variables of its declaration, and its "
           "declarator is not a plain name";
  const TypeSourceInfo *TSI = V->getTypeSourceInfo();
  if (!TSI || TSI->getType()->getContainedDeducedType())
    return ", but its type is deduced (`auto`)";
  std::function<bool(const Stmt *)> NamesLocal = [&](const Stmt *S) {
    if (!S)
      return false;
    if (auto *R = dyn_cast<DeclRefExpr>(S))
      if (auto *D = dyn_cast<VarDecl>(R->getDecl()))
        if (D->isLocalVarDeclOrParm())
          return true;
    for (const Stmt *C : S->children())
      if (NamesLocal(C))
        return true;
    return false;
  };
  for (TypeLoc TL = TSI->getTypeLoc(); !TL.isNull(); TL = TL.getNextTypeLoc())
    if (auto A = TL.getAs<ArrayTypeLoc>())
      if (NamesLocal(A.getSizeExpr()))
        return ", but its array bound names a local variable";
  return "";
}

bool Merger::renderGuarded(const std::vector<const Stmt *> &Run, Side Sd,
                           unsigned Depth, std::string &Text,
                           const std::set<const VarDecl *> &UsedLater) {
  if (Run.empty())
    return true;
  double RunSlots = 0;
  bool Straight = true;
  for (const Stmt *S : Run) {
    RunSlots += Counter.slots(S);
    Straight = Straight && isa<Expr>(S) && isStraightLine(S);
  }
  (Sd == SideA ? Out.AfterGuardedA : Out.AfterGuardedB) += Mult * RunSlots;
  // nvcc predicates a short straight-line run instead of branching.
  if (!Straight || RunSlots > C.PredicateMaxSlots)
    Out.AfterGuards += Mult;
  std::string In = indent(Depth);
  Text += In + "if (" + (Sd == SideA ? Cond : "!" + Cond) + ") {\n";
  std::string In2 = indent(Depth + 1);
  for (const Stmt *S : Run) {
    auto *DS = dyn_cast<DeclStmt>(S);
    bool Hoist = false;
    if (DS)
      for (const Decl *D : DS->decls())
        if (UsedLater.count(cast<VarDecl>(D)))
          Hoist = true;
    if (!Hoist) {
      std::string T =
          reindent(withSemicolon(S, render(S, Sd, {}), SM, LO), S, Depth + 1);
      Notes.place(S, nullptr, In2 + T + "\n", In2, Text);
      continue;
    }
    // Declared here, used after the guard: declare it before the merged
    // code (under a fresh name) and assign it here.
    std::string Assigned;
    const VarDecl *First = cast<VarDecl>(*DS->decl_begin());
    for (const Decl *D : DS->decls()) {
      auto *V = cast<VarDecl>(D);
      QualType T = V->getType();
      std::string Unhoistable = hoistProblem(V, DS);
      if (!Unhoistable.empty()) {
        Out.Refusal =
            "`" + V->getNameAsString() + "` (line " +
            std::to_string(SM.getExpansionLineNumber(V->getLocation())) +
            ") would have to be declared before its guard" + Unhoistable;
        return false;
      }
      if (T.isConstQualified() || T->isReferenceType() ||
          (V->getInit() && (T->isArrayType() || T->isRecordType())) ||
          (V->getInit() && V->getInitStyle() != VarDecl::CInit)) {
        Out.Refusal =
            "`" + V->getNameAsString() + "` (line " +
            std::to_string(SM.getExpansionLineNumber(V->getLocation())) +
            ") would have to be declared before its initialiser, "
            "which its type or initialisation does not allow";
        return false;
      }
      std::string Decl = declarator(V, First);
      if (Decl.empty())
        return false;
      Hoisted.push_back(Decl + ";");
      if (V->getInit())
        Assigned += In2 + Rename[V] + " = " + render(V->getInit(), Sd, {}) +
                    ";\n";
    }
    Notes.place(S, nullptr, Assigned, In2, Text);
  }
  Text += In + "}\n";
  return true;
}

/// The single-variable declaration a matched statement introduces for what
/// follows it: a declaration, or a for loop's counter.
static const DeclStmt *pairedDecl(const Stmt *S) {
  if (auto *DS = dyn_cast_or_null<DeclStmt>(S))
    return DS->isSingleDecl() ? DS : nullptr;
  if (auto *F = dyn_cast_or_null<ForStmt>(S))
    if (auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit()))
      return DS->isSingleDecl() ? DS : nullptr;
  return nullptr;
}

/// Whether \p A and \p B declare one variable each that nothing reads: such
/// a pair stays apart, each in its guarded arm, so that the rewrite warns
/// about the variables the user wrote ("declared but never referenced"),
/// not about a merged one under a new name.
static bool unreferencedPair(const Stmt *A, const Stmt *B) {
  auto *DA = dyn_cast_or_null<DeclStmt>(A), *DB = dyn_cast_or_null<DeclStmt>(B);
  if (!DA || !DB || !DA->isSingleDecl() || !DB->isSingleDecl())
    return false;
  auto *VA = dyn_cast<VarDecl>(DA->getSingleDecl()),
       *VB = dyn_cast<VarDecl>(DB->getSingleDecl());
  return VA && VB && !VA->isReferenced() && !VB->isReferenced();
}

bool Merger::renderSeq(const std::vector<const Stmt *> &A,
                       const std::vector<const Stmt *> &B, unsigned Depth,
                       std::string &Text) {
  std::vector<Step> Steps = align(A, B);
  // Fix the pairs: a pair that does not match once the final variable
  // pairing is known is split into two guarded statements.
  for (bool Changed = true; Changed;) {
    Changed = false;
    // Declarations of matched pairs (and of matched loops' counters) pair
    // their variables.
    for (Step &S : Steps)
      if (S.K == Step::Match)
        if (const DeclStmt *DA = pairedDecl(S.A)) {
          auto *VA = cast<VarDecl>(DA->getSingleDecl());
          auto *VB = cast<VarDecl>(pairedDecl(S.B)->getSingleDecl());
          Partner[VA] = VB;
        }
    for (size_t I = 0; I < Steps.size(); ++I) {
      Step &S = Steps[I];
      if (S.K != Step::Match ||
          (pairScore(S.A, S.B, false) > 0 && !unreferencedPair(S.A, S.B)))
        continue;
      if (const DeclStmt *DA = pairedDecl(S.A))
        Partner.erase(cast<VarDecl>(DA->getSingleDecl()));
      Step B = {Step::OnlyB, nullptr, S.B};
      S = {Step::OnlyA, S.A, nullptr};
      Steps.insert(Steps.begin() + I + 1, B);
      Changed = true;
      break;
    }
  }
  // Names: merged variables share one name; a guarded declaration used after
  // its guard is hoisted under a fresh name.
  for (Step &S : Steps)
    if (S.K == Step::Match)
      if (const DeclStmt *DA = pairedDecl(S.A)) {
        auto *VA = cast<VarDecl>(DA->getSingleDecl());
        auto *VB = cast<VarDecl>(pairedDecl(S.B)->getSingleDecl());
        if (VA->getName() != VB->getName()) {
          std::string N =
              fresh(VA->getNameAsString() + "_" + VB->getNameAsString());
          Rename[VA] = Rename[VB] = N;
        }
      }
  // Guarded runs and what the statements after each run use.
  std::set<const VarDecl *> Hoist;
  for (size_t I = 0; I < Steps.size(); ++I) {
    if (Steps[I].K == Step::Match)
      continue;
    size_t J = I;
    Step::Kind K = Steps[I].K;
    while (J < Steps.size() && Steps[J].K == K)
      ++J;
    std::set<const VarDecl *> Declared, Used;
    for (size_t R = I; R < J; ++R)
      collectDecls(K == Step::OnlyA ? Steps[R].A : Steps[R].B, Declared);
    for (size_t R = J; R < Steps.size(); ++R) {
      collectRefs(Steps[R].A, Used);
      collectRefs(Steps[R].B, Used);
    }
    if (Depth == 1)
      for (const Stmt *Later : After)
        collectRefs(Later, Used);
    for (const VarDecl *V : Declared)
      if (Used.count(V))
        Hoist.insert(V);
    // A declaration is hoisted whole (renderGuarded): each of its
    // variables is then declared before the merged code, under a fresh name.
    for (size_t R = I; R < J; ++R)
      if (auto *DS = dyn_cast_or_null<DeclStmt>(K == Step::OnlyA ? Steps[R].A
                                                                 : Steps[R].B))
        if (llvm::any_of(DS->decls(), [&](const Decl *D) {
              auto *V = dyn_cast<VarDecl>(D);
              return V && Hoist.count(V);
            }))
          for (const Decl *D : DS->decls())
            if (auto *V = dyn_cast<VarDecl>(D))
              Hoist.insert(V);
    for (const VarDecl *V : Declared)
      if (Hoist.count(V) && !Rename.count(V))
        Rename[V] = fresh(V->getNameAsString() +
                          (K == Step::OnlyA ? "_then" : "_else"));
    I = J - 1;
  }
  for (size_t I = 0; I < Steps.size(); ++I) {
    Step &S = Steps[I];
    if (S.K == Step::Match) {
      unsigned SelectsBefore = Out.Selects;
      bool Simple =
          !isa<IfStmt>(S.A) && !isa<ForStmt>(S.A) && !isa<WhileStmt>(S.A);
      std::string Piece;
      if (!renderPair(S.A, S.B, Depth, Piece))
        return false;
      Notes.place(S.A, S.B, Piece, indent(Depth), Text);
      if (Simple)
        Out.AfterShared +=
            Mult * (Counter.slots(S.A) +
                    (Out.Selects - SelectsBefore) * C.IssueSlots.Select);
      ++Out.Matched;
      Out.Saved += pairScore(S.A, S.B, false);
      continue;
    }
    std::vector<const Stmt *> Run;
    Step::Kind K = S.K;
    while (I < Steps.size() && Steps[I].K == K) {
      Run.push_back(K == Step::OnlyA ? Steps[I].A : Steps[I].B);
      ++I;
    }
    --I;
    if (K == Step::OnlyA)
      Out.GuardedA += Run.size();
    else
      Out.GuardedB += Run.size();
    if (!renderGuarded(Run, K == Step::OnlyA ? SideA : SideB, Depth, Text,
                       Hoist))
      return false;
  }
  return true;
}
} // namespace merge
} // namespace warpwise
