//===- IfConvert.cpp - Branch-free form with speculated stores ------------===//
#include "IfConvert.h"
#include "Comments.h"
#include "SideEffects.h"

#include "warpwise/AstQueries.h"
#include "warpwise/ExecutionModel.h"
#include "warpwise/Transform.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/FoldingSet.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace warpwise {

using namespace clang;

namespace {

/// A memory lvalue: an element, a dereference, or a reference variable.
bool memoryLValue(const Expr *E) {
  E = E->IgnoreParens();
  if (isa<ArraySubscriptExpr>(E))
    return true;
  if (auto *U = dyn_cast<UnaryOperator>(E))
    return U->getOpcode() == UO_Deref;
  return false;
}

/// The variables an expression reads (for "not changed in between").
void varsOf(const Stmt *S, std::set<const VarDecl *> &Out) {
  if (!S)
    return;
  if (auto *E = dyn_cast<Expr>(S))
    if (const VarDecl *V = referencedVar(E))
      Out.insert(V);
  for (const Stmt *Child : S->children())
    varsOf(Child, Out);
}

bool divides(const Stmt *S) {
  if (!S)
    return false;
  if (auto *B = dyn_cast<BinaryOperator>(S))
    if (B->getOpcode() == BO_Div || B->getOpcode() == BO_Rem ||
        B->getOpcode() == BO_DivAssign || B->getOpcode() == BO_RemAssign)
      return true;
  for (const Stmt *Child : S->children())
    if (divides(Child))
      return true;
  return false;
}

bool volatileAccess(const Stmt *S) {
  if (!S)
    return false;
  if (auto *E = dyn_cast<Expr>(S))
    if (E->getType().isVolatileQualified())
      return true;
  for (const Stmt *Child : S->children())
    if (volatileAccess(Child))
      return true;
  return false;
}

/// A __device__ function that exchanges the values behind its two reference
/// parameters and does nothing else (`T t = a; a = b; b = t;`).
bool isSwapFunction(const FunctionDecl *F) {
  if (!F || !F->hasBody() || F->getNumParams() != 2)
    return false;
  const ParmVarDecl *P[2] = {F->getParamDecl(0), F->getParamDecl(1)};
  for (const ParmVarDecl *X : P)
    if (!X->getType()->isLValueReferenceType() ||
        X->getType()->getPointeeType().isConstQualified() ||
        X->getType()->getPointeeType().isVolatileQualified() ||
        !X->getType()->getPointeeType()->isScalarType())
      return false;
  QualType T = P[0]->getType()->getPointeeType().getCanonicalType();
  if (T != P[1]->getType()->getPointeeType().getCanonicalType())
    return false;
  auto *Body = dyn_cast<CompoundStmt>(F->getBody());
  if (!Body)
    return false;
  ASTContext &Ctx = F->getASTContext();
  // Symbolic values: 0 and 1 are the parameters' values on entry.
  std::map<const VarDecl *, int> Val = {{P[0], 0}, {P[1], 1}};
  // A conversion keeps the value when it goes through an integer type of
  // the same width (int -> unsigned -> int) or none at all.
  auto Keeps = [&](QualType To) {
    To = To.getCanonicalType().getUnqualifiedType();
    if (To == T.getUnqualifiedType())
      return true;
    return To->isIntegerType() && T->isIntegerType() &&
           !To->isDependentType() && !T->isDependentType() &&
           Ctx.getTypeSize(To) == Ctx.getTypeSize(T);
  };
  auto ValueOf = [&](const Expr *E, int &Out) {
    const Expr *Cur = E;
    while (true) {
      Cur = Cur->IgnoreParens();
      if (auto *C = dyn_cast<ImplicitCastExpr>(Cur)) {
        if (C->getCastKind() != CK_LValueToRValue && !Keeps(C->getType()))
          return false;
        Cur = C->getSubExpr();
        continue;
      }
      break;
    }
    const VarDecl *V = referencedVar(Cur);
    auto It = V ? Val.find(V) : Val.end();
    if (It == Val.end())
      return false;
    Out = It->second;
    return true;
  };
  for (const Stmt *S : Body->body()) {
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      if (!DS->isSingleDecl())
        return false;
      auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
      int X;
      if (!V || !V->getInit() || !Keeps(V->getType()) ||
          !ValueOf(V->getInit(), X))
        return false;
      Val[V] = X;
      continue;
    }
    auto *B = dyn_cast<BinaryOperator>(S);
    int X;
    if (!B || B->getOpcode() != BO_Assign || !referencedVar(B->getLHS()) ||
        !Val.count(referencedVar(B->getLHS())) || !ValueOf(B->getRHS(), X))
      return false;
    Val[referencedVar(B->getLHS())] = X;
  }
  return Val[P[0]] == 1 && Val[P[1]] == 0;
}

class Speculator {
public:
  Speculator(ASTContext &Ctx, const FunctionDecl *FD, const CostTable &C)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()), FD(FD),
        C(C) {}

  SpeculationOutcome run(const IfStmt *If);

private:
  struct Store {
    unsigned Loc = 0;            ///< Index into Locations.
    const Expr *Value = nullptr; ///< Null: the old value of OldOf.
    unsigned OldOf = 0;
  };
  struct Node {
    enum Kind { Empty, Leaf, Branch } K = Empty;
    unsigned Cond = 0;
    std::unique_ptr<Node> Then, Else;
    std::vector<Store> Stores;
  };

  bool fail(const Stmt *S, const std::string &Why) {
    if (Refusal.empty())
      Refusal =
          Why +
          (S ? " (line " +
                   std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
                   ")"
             : "");
    return false;
  }
  std::string text(const Stmt *S) {
    CharSourceRange R = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
    if (!R.isValid()) {
      fail(S, "an expression is only partly inside a macro");
      return "";
    }
    return Lexer::getSourceText(R, SM, LO).str();
  }
  unsigned location(const Expr *L) {
    llvm::FoldingSetNodeID ID;
    L->IgnoreParenImpCasts()->Profile(ID, Ctx, true);
    for (unsigned I = 0; I < LocationIDs.size(); ++I)
      if (LocationIDs[I] == ID)
        return I;
    LocationIDs.push_back(ID);
    Locations.push_back(L);
    return Locations.size() - 1;
  }
  /// The memory locations \p S reads (rvalue uses of memory lvalues).
  void reads(const Stmt *S, std::vector<llvm::FoldingSetNodeID> &Out) {
    if (!S)
      return;
    if (auto *Cast = dyn_cast<ImplicitCastExpr>(S))
      if (Cast->getCastKind() == CK_LValueToRValue &&
          memoryLValue(Cast->getSubExpr())) {
        llvm::FoldingSetNodeID ID;
        Cast->getSubExpr()->IgnoreParenImpCasts()->Profile(ID, Ctx, true);
        Out.push_back(ID);
      }
    for (const Stmt *Child : S->children())
      reads(Child, Out);
  }
  bool storeStmt(const Stmt *S, std::vector<Store> &Out);
  std::unique_ptr<Node> build(const Stmt *S);
  void pathReads(const Node &N, std::vector<llvm::FoldingSetNodeID> Acc,
                 std::vector<std::vector<llvm::FoldingSetNodeID>> &Paths);
  bool readBefore(const IfStmt *If, std::vector<llvm::FoldingSetNodeID> &Out,
                  std::string &Where);
  std::string value(const Node &N, unsigned Loc);
  /// Sorts the user's comments of \p If's sides (built already).
  void keepComments(const IfStmt *If, unsigned Cond);
  /// The comment lines of the user's for condition \p Cond (\p Above:
  /// those of the statement, else those of its sides' own lines).
  std::string conditionComments(unsigned Cond, bool Above,
                                const std::string &In);
  /// CondName and OldName: names no declaration of the function uses.
  void chooseNames(const IfStmt *If);
  /// The variable that already holds location \p L's old value, if any.
  const VarDecl *held(unsigned L) const;
  /// Appends the stores to \p T with the user's comments, closes the block
  /// and puts the comments no store took under the decision's note.
  void placeComments(const IfStmt *If, const std::vector<std::string> &Stores,
                     const std::string &Written, const std::string &In1,
                     const std::string &Base, std::string &T);
  /// The model's issue slots of the branch-free form, into \p Out.Issue.
  void countIssue(SpeculationOutcome &Out);

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  const FunctionDecl *FD;
  const CostTable &C;
  std::string Refusal;
  std::vector<const Expr *> Locations;
  std::vector<llvm::FoldingSetNodeID> LocationIDs;
  std::vector<const Expr *> Conds;
  /// Locations whose value a local variable already holds.
  std::vector<std::pair<llvm::FoldingSetNodeID, const VarDecl *>> HeldIn;
  std::set<const VarDecl *> WrittenInFunction;
  std::vector<unsigned> Order; ///< Locations every storing path writes.
  bool HaveOrder = false;
  std::string CondName, OldName;
  std::map<unsigned, std::string> OldText; ///< How each old value is named.
  /// The user's comments. A statement's go above the store of the location
  /// it stores first (in the code, each location is stored once); an inner
  /// if statement's, and those of its sides' own lines, with its condition
  /// (side 0: the statement's, 1: the then-side's, -1: the else-side's).
  std::map<const Stmt *, unsigned> FirstStore, CondOf;
  std::map<unsigned, std::vector<SourceComment>> AtLocation, InsideStore;
  std::map<unsigned, std::vector<std::pair<int, SourceComment>>> AtCondition;
};

bool Speculator::storeStmt(const Stmt *S, std::vector<Store> &Out) {
  if (auto *B = dyn_cast<BinaryOperator>(S)) {
    if (B->getOpcode() != BO_Assign || !memoryLValue(B->getLHS()))
      return fail(S, "a statement other than a plain store to memory");
    const Expr *V = B->getRHS();
    std::vector<llvm::FoldingSetNodeID> R;
    reads(V, R);
    if (hasEffects(V) || divides(V) || !R.empty() || hasEffects(B->getLHS()) ||
        divides(B->getLHS()))
      return fail(S, "a stored value or address that reads memory, divides "
                     "or has side effects");
    Out.push_back({location(B->getLHS()), V, 0});
    FirstStore[S] = Out.back().Loc;
    return true;
  }
  if (auto *Call = dyn_cast<CallExpr>(S)) {
    if (!isSwapFunction(Call->getDirectCallee()) || Call->getNumArgs() != 2)
      return fail(S, "a call that is not a plain swap of two locations");
    const Expr *A = Call->getArg(0), *B = Call->getArg(1);
    if (!memoryLValue(A) || !memoryLValue(B) || hasEffects(A) ||
        hasEffects(B) || divides(A) || divides(B))
      return fail(S, "a swap of something other than two memory locations");
    unsigned LA = location(A), LB = location(B);
    FirstStore[S] = LA;
    Out.push_back({LA, nullptr, LB});
    Out.push_back({LB, nullptr, LA});
    return true;
  }
  return fail(S, "a statement other than a store or a swap");
}

std::unique_ptr<Speculator::Node> Speculator::build(const Stmt *S) {
  auto N = std::make_unique<Node>();
  if (!S)
    return N;
  if (auto *CS = dyn_cast<CompoundStmt>(S)) {
    if (CS->body_empty())
      return N;
    if (CS->size() == 1 && isa<IfStmt>(CS->body_front()))
      return build(CS->body_front());
    for (const Stmt *Child : CS->body())
      if (!storeStmt(Child, N->Stores))
        return nullptr;
  } else if (auto *I = dyn_cast<IfStmt>(S)) {
    if (I->getInit() || I->getConditionVariable())
      return fail(I, "an `if` that declares a variable"), nullptr;
    if (hasEffects(I->getCond()) || divides(I->getCond()))
      return fail(I, "a condition with side effects or a division"), nullptr;
    N->K = Node::Branch;
    N->Cond = Conds.size();
    Conds.push_back(I->getCond());
    N->Then = build(I->getThen());
    if (!N->Then)
      return nullptr;
    N->Else = build(I->getElse());
    if (!N->Else)
      return nullptr;
    CondOf[I] = N->Cond;
    keepComments(I, N->Cond);
    return N;
  } else if (!storeStmt(S, N->Stores)) {
    return nullptr;
  }
  N->K = Node::Leaf;
  std::vector<unsigned> Locs;
  for (const Store &St : N->Stores) {
    if (std::find(Locs.begin(), Locs.end(), St.Loc) != Locs.end())
      return fail(S, "a path that stores one location twice"), nullptr;
    Locs.push_back(St.Loc);
  }
  if (!HaveOrder) {
    Order = Locs;
    HaveOrder = true;
  } else if (Locs != Order) {
    return fail(S, "paths that store different locations (a location that "
                   "one path stores and another does not could be the same "
                   "memory)"),
           nullptr;
  }
  return N;
}

void Speculator::pathReads(
    const Node &N, std::vector<llvm::FoldingSetNodeID> Acc,
    std::vector<std::vector<llvm::FoldingSetNodeID>> &Paths) {
  if (N.K != Node::Branch) {
    Paths.push_back(Acc);
    return;
  }
  reads(Conds[N.Cond], Acc);
  pathReads(*N.Then, Acc, Paths);
  pathReads(*N.Else, Acc, Paths);
}

bool Speculator::readBefore(const IfStmt *If,
                            std::vector<llvm::FoldingSetNodeID> &Out,
                            std::string &Where) {
  // The parent, found in the function's own body: Clang's parent map does
  // not cover the statements of a template's pattern.
  std::vector<const Stmt *> Path = pathTo(FD->getBody(), If);
  if (Path.size() < 2)
    return false;
  auto *CS = dyn_cast<CompoundStmt>(Path[Path.size() - 2]);
  if (!CS)
    return false;
  std::vector<const Stmt *> Before;
  for (const Stmt *S : CS->body()) {
    if (S == If)
      break;
    Before.push_back(S);
  }
  // Back from the branch to the last barrier, call or store: the reads in
  // between are in the same barrier interval, under the same guard, and
  // still read the same locations when no variable of their addresses
  // changes on the way.
  std::set<const VarDecl *> Changed;
  for (auto It = Before.rbegin(); It != Before.rend(); ++It) {
    const Stmt *S = *It;
    bool Stop = false;
    std::function<void(const Stmt *)> Scan = [&](const Stmt *N) {
      if (!N || Stop)
        return;
      if (isa<CallExpr>(N) &&
          !isPureCallee(cast<CallExpr>(N)->getDirectCallee()))
        Stop = true;
      if (isa<IfStmt>(N) || isa<ForStmt>(N) || isa<WhileStmt>(N) ||
          isa<DoStmt>(N) || isa<SwitchStmt>(N) || isa<AsmStmt>(N))
        Stop = true;
      if (auto *B = dyn_cast<BinaryOperator>(N))
        if (B->isAssignmentOp() && memoryLValue(B->getLHS()))
          Stop = true;
      if (auto *U = dyn_cast<UnaryOperator>(N))
        if (U->isIncrementDecrementOp() && memoryLValue(U->getSubExpr()))
          Stop = true;
      for (const Stmt *Child : N->children())
        Scan(Child);
    };
    Scan(S);
    if (Stop || volatileAccess(S))
      break;
    std::vector<llvm::FoldingSetNodeID> R;
    std::function<void(const Stmt *)> Reads = [&](const Stmt *N) {
      if (!N)
        return;
      if (auto *Cast = dyn_cast<ImplicitCastExpr>(N))
        if (Cast->getCastKind() == CK_LValueToRValue &&
            memoryLValue(Cast->getSubExpr())) {
          std::set<const VarDecl *> Vars;
          varsOf(Cast->getSubExpr(), Vars);
          bool Same = true;
          for (const VarDecl *V : Vars)
            if (Changed.count(V))
              Same = false;
          if (Same) {
            llvm::FoldingSetNodeID ID;
            Cast->getSubExpr()->IgnoreParenImpCasts()->Profile(ID, Ctx, true);
            Out.push_back(ID);
            // `T v = L;` with v never written: v holds L's value.
            if (auto *DS = dyn_cast<DeclStmt>(S))
              if (DS->isSingleDecl())
                if (auto *V = dyn_cast<VarDecl>(DS->getSingleDecl()))
                  if (V->getInit() && V->getInit()->IgnoreParens() == Cast &&
                      !WrittenInFunction.count(V) &&
                      V->getType().getCanonicalType().getUnqualifiedType() ==
                          Cast->getType()
                              .getCanonicalType()
                              .getUnqualifiedType())
                    HeldIn.push_back({ID, V});
            if (Where.empty())
              Where =
                  "line " +
                  std::to_string(SM.getExpansionLineNumber(N->getBeginLoc()));
          }
        }
      for (const Stmt *Child : N->children())
        Reads(Child);
    };
    Reads(S);
    // What this statement assigns changes the addresses read before it.
    if (auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(D))
          Changed.insert(V);
    }
    for (const VarDecl *V : writtenVariables(S))
      Changed.insert(V);
  }
  return true;
}

std::string Speculator::value(const Node &N, unsigned Loc) {
  if (N.K == Node::Empty)
    return OldText[Loc];
  if (N.K == Node::Leaf) {
    for (const Store &St : N.Stores)
      if (St.Loc == Loc)
        return St.Value
                   ? (isa<DeclRefExpr>(St.Value->IgnoreImpCasts()) ||
                              isa<IntegerLiteral>(St.Value->IgnoreImpCasts()) ||
                              isa<FloatingLiteral>(St.Value->IgnoreImpCasts())
                          ? text(St.Value)
                          : "(" + text(St.Value) + ")")
                   : OldText[St.OldOf];
    return OldText[Loc];
  }
  std::string T = value(*N.Then, Loc), E = value(*N.Else, Loc);
  if (T == E)
    return T;
  return "(" + CondName + std::to_string(N.Cond) + " ? " + T + " : " + E + ")";
}

void Speculator::keepComments(const IfStmt *If, unsigned Cond) {
  for (const Stmt *Side : {If->getThen(), If->getElse()}) {
    if (!Side)
      continue;
    SideComments SC = commentsOfSide(SM, LO, If, Side);
    int Mark = Side == If->getThen() ? 1 : -1;
    for (auto *Own : {&SC.Header, &SC.Closing})
      for (SourceComment &C : *Own)
        AtCondition[Cond].push_back({Mark, C});
    for (auto *Of : {&SC.Leading, &SC.Trailing, &SC.Inner})
      for (auto &[S, Cs] : *Of) {
        if (auto It = FirstStore.find(S); It != FirstStore.end()) {
          auto &To = Of == &SC.Inner ? InsideStore : AtLocation;
          To[It->second].insert(To[It->second].end(), Cs.begin(), Cs.end());
        } else if (auto Branch = CondOf.find(S);
                   Branch != CondOf.end() && Of != &SC.Inner) {
          for (SourceComment &C : Cs)
            AtCondition[Branch->second].push_back({0, C});
        }
      }
  }
}

std::string Speculator::conditionComments(unsigned Cond, bool Above,
                                          const std::string &In) {
  std::string Out;
  std::string Name = CondName + std::to_string(Cond);
  for (auto &[Side, C] : AtCondition[Cond])
    if ((Side == 0) == Above)
      Out += Side == 0 ? commentLines(C.Text, In)
                       : labelledComment(Side > 0 ? Name : "!" + Name, C.Text,
                                         In);
  return Out;
}

void Speculator::chooseNames(const IfStmt *If) {
  // Names no declaration of the function uses.
  std::string Body = text(FD->getBody());
  unsigned Line = SM.getExpansionLineNumber(If->getBeginLoc());
  std::string Suffix = std::to_string(Line);
  while (Body.find("ww_c" + Suffix) != std::string::npos ||
         Body.find("ww_old" + Suffix) != std::string::npos)
    Suffix += "x";
  CondName = "ww_c" + Suffix + "_";
  OldName = "ww_old" + Suffix + "_";
}

const VarDecl *Speculator::held(unsigned L) const {
  for (auto &[ID, V] : HeldIn)
    if (ID == LocationIDs[L])
      return V;
  return nullptr;
}

void Speculator::placeComments(const IfStmt *If,
                               const std::vector<std::string> &Stores,
                               const std::string &Written,
                               const std::string &In1,
                               const std::string &Base, std::string &T) {
  // The user's comments: each statement's above the store it became part
  // of, with what of the comments inside it the values do not hold.
  std::set<unsigned> Taken;
  for (unsigned I = 0; I < Order.size(); ++I) {
    unsigned L = Order[I];
    for (const SourceComment &C : AtLocation[L])
      T += commentLines(C.Text, In1);
    for (const SourceComment &C : missingFrom(Written, InsideStore[L], LO))
      T += commentLines(C.Text, In1);
    for (const SourceComment &C : InsideStore[L])
      Taken.insert(C.Begin);
    T += Stores[I];
  }
  T += Base + "}";
  // Anything else (inside a condition's parentheses, or of a location no
  // path ends up storing) goes under the note.
  for (auto &[L, Cs] : AtLocation)
    for (const SourceComment &C : Cs)
      Taken.insert(C.Begin);
  for (auto &[Cond, Cs] : AtCondition)
    for (auto &[Side, C] : Cs)
      Taken.insert(C.Begin);
  unsigned IfBegin, IfEnd;
  if (statementExtent(SM, LO, If, IfBegin, IfEnd)) {
    std::vector<SourceComment> Left;
    llvm::StringRef File =
        SM.getBufferData(SM.getFileID(SM.getExpansionLoc(If->getBeginLoc())));
    for (const SourceComment &C : commentsIn(File, IfBegin, IfEnd, LO))
      if (!Taken.count(C.Begin))
        Left.push_back(C);
    std::string Lines;
    for (const SourceComment &C : missingFrom(T, Left, LO))
      Lines += commentLines(C.Text, In1);
    size_t Note = T.find("// (each location");
    T.insert(T.find('\n', Note) + 1, Lines);
  }
}

void Speculator::countIssue(SpeculationOutcome &Out) {
  auto In = [](const std::vector<llvm::FoldingSetNodeID> &Set,
               const llvm::FoldingSetNodeID &ID) {
    return std::find(Set.begin(), Set.end(), ID) != Set.end();
  };
  // The model: every condition, a load of each location the conditions do
  // not read already, one select per branch it passes and one store each.
  IssueCounter Counter(Ctx, C);
  std::vector<llvm::FoldingSetNodeID> CondReads;
  // nvcc loads a location the conditions read twice only once (nothing is
  // stored in between).
  std::function<void(const Stmt *)> Loads = [&](const Stmt *N) {
    if (!N)
      return;
    if (auto *Cast = dyn_cast<ImplicitCastExpr>(N))
      if (Cast->getCastKind() == CK_LValueToRValue &&
          memoryLValue(Cast->getSubExpr())) {
        llvm::FoldingSetNodeID ID;
        Cast->getSubExpr()->IgnoreParenImpCasts()->Profile(ID, Ctx, true);
        if (In(CondReads, ID))
          Out.Issue -= Counter.exprSlots(Cast);
        else
          CondReads.push_back(ID);
      }
    for (const Stmt *Child : N->children())
      Loads(Child);
  };
  for (const Expr *Cnd : Conds) {
    Out.Issue += Counter.exprSlots(Cnd);
    Loads(Cnd);
  }
  for (unsigned L : Order) {
    double Address = Counter.exprSlots(Locations[L]);
    if (!In(CondReads, LocationIDs[L]) && !held(L))
      Out.Issue += C.IssueSlots.Load + Address;
    Out.Issue += C.IssueSlots.Store + Address +
                 C.IssueSlots.Select * double(Conds.size());
  }
}

SpeculationOutcome Speculator::run(const IfStmt *If) {
  SpeculationOutcome Out;
  if (If->getBeginLoc().isMacroID()) {
    Out.Refusal = "the branch is written with a macro";
    return Out;
  }
  std::unique_ptr<Node> Root = build(If);
  if (!Root || !Refusal.empty()) {
    Out.Refusal =
        Refusal.empty() ? "the branch tree has another shape" : Refusal;
    return Out;
  }
  if (Order.empty()) {
    Out.Refusal = "the branch stores nothing";
    return Out;
  }
  for (const Expr *L : Locations)
    if (volatileAccess(L)) {
      Out.Refusal = "a stored location is volatile";
      return Out;
    }
  // Every location must be read by this thread on every path, or before the
  // branch in the same barrier interval under the same guard.
  std::vector<std::vector<llvm::FoldingSetNodeID>> Paths;
  pathReads(*Root, {}, Paths);
  auto In = [](const std::vector<llvm::FoldingSetNodeID> &Set,
               const llvm::FoldingSetNodeID &ID) {
    return std::find(Set.begin(), Set.end(), ID) != Set.end();
  };
  std::vector<llvm::FoldingSetNodeID> Before;
  std::string BeforeWhere;
  WrittenInFunction = writtenVariables(FD->getBody());
  readBefore(If, Before, BeforeWhere);
  bool AllOnPaths = true, AnyBefore = false;
  auto Proven = [&](const llvm::FoldingSetNodeID &ID, bool Count) {
    bool OnAll = true;
    for (const auto &P : Paths)
      if (!In(P, ID))
        OnAll = false;
    if (OnAll)
      return true;
    if (In(Before, ID)) {
      if (Count)
        AnyBefore = true;
      return true;
    }
    return false;
  };
  for (unsigned I = 0; I < Locations.size(); ++I) {
    bool OnAll = true;
    for (const auto &P : Paths)
      if (!In(P, LocationIDs[I]))
        OnAll = false;
    AllOnPaths = AllOnPaths && OnAll;
    if (!Proven(LocationIDs[I], true)) {
      Out.Refusal = "`" + text(Locations[I]) +
                    "` is stored, but this thread does not read it on every "
                    "path or before the branch in the same barrier interval, "
                    "so a store the original did not make could overwrite "
                    "another thread's write";
      return Out;
    }
  }
  // Conditions are evaluated on every path now: what they read must be
  // readable there.
  for (const Expr *Cnd : Conds) {
    std::vector<llvm::FoldingSetNodeID> R;
    reads(Cnd, R);
    for (const auto &ID : R)
      if (!Proven(ID, false)) {
        Out.Refusal =
            "a condition reads memory that not every path reads "
            "(line " +
            std::to_string(SM.getExpansionLineNumber(Cnd->getBeginLoc())) +
            "), so it cannot be evaluated on every path";
        return Out;
      }
    if (volatileAccess(Cnd)) {
      Out.Refusal = "a condition reads volatile memory";
      return Out;
    }
  }
  if (!Refusal.empty()) {
    Out.Refusal = Refusal;
    return Out;
  }
  chooseNames(If);
  unsigned Col = SM.getExpansionColumnNumber(If->getBeginLoc());
  std::string Base(Col > 0 ? Col - 1 : 0, ' ');
  std::string In1 = Base + "  ";
  std::string Locs;
  for (unsigned L : Order)
    Locs += (Locs.empty() ? "`" : ", `") + text(Locations[L]) + "`";
  Out.Proof = Locs + (Order.size() == 1 ? " is" : " are") +
              " read by the same thread " +
              (AllOnPaths ? std::string("on every path of the branch")
                          : "before the branch (" + BeforeWhere +
                                ") in the same barrier interval under the "
                                "same guard") +
              ", so a racing writer would already make the original racy; no "
              "volatile or atomic access; every storing path stores them in "
              "the same order";
  // The decision's comment goes first (BranchMerge fills it in).
  std::string T = "{\n" + In1 + DecisionMark + "\n" + In1 +
                  "// (each location stored once; a path that stored nothing "
                  "writes back what it read)\n";
  for (unsigned I = 0; I < Conds.size(); ++I)
    T += conditionComments(I, true, In1) + In1 + "const bool " + CondName +
         std::to_string(I) + " = " + text(Conds[I]) + ";\n" +
         conditionComments(I, false, In1);
  for (unsigned L : Order) {
    if (const VarDecl *V = held(L)) {
      OldText[L] = V->getNameAsString();
      continue;
    }
    OldText[L] = OldName + std::to_string(L);
    std::string Type =
        LO.CPlusPlus11
            ? std::string("auto")
            : Locations[L]->getType().getUnqualifiedType().getAsString(
                  Ctx.getPrintingPolicy());
    T += In1 + "const " + Type + " " + OldName + std::to_string(L) + " = " +
         text(Locations[L]) + ";\n";
  }
  std::vector<std::string> Stores;
  std::string Written = T;
  for (unsigned L : Order) {
    Stores.push_back(In1 + text(Locations[L]) + " = " + value(*Root, L) +
                     ";\n");
    Written += Stores.back();
  }
  placeComments(If, Stores, Written, In1, Base, T);
  if (!Refusal.empty()) {
    Out.Refusal = Refusal;
    return Out;
  }
  Out.Text = T;
  Out.OK = true;
  Out.Locations = Order.size();
  Out.Conditions = Conds.size();
  countIssue(Out);
  return Out;
}

} // namespace

SpeculationOutcome speculateStores(ASTContext &Ctx, const FunctionDecl *FD,
                                   const IfStmt *If, const CostTable &Costs) {
  auto *FTD = FD->getDescribedFunctionTemplate();
  if (!FTD) {
    Speculator S(Ctx, FD, Costs);
    return S.run(If);
  }
  // A template's pattern has no lvalue-to-rvalue conversions where types
  // depend on its parameters: prove it on every instantiation (the same
  // text) instead.
  std::optional<SpeculationOutcome> First;
  for (const FunctionDecl *Spec : FTD->specializations()) {
    const IfStmt *Same = nullptr;
    std::function<void(const Stmt *)> Find = [&](const Stmt *S) {
      if (!S || Same)
        return;
      if (auto *I = dyn_cast<IfStmt>(S))
        if (I->getBeginLoc() == If->getBeginLoc())
          Same = I;
      for (const Stmt *Child : S->children())
        Find(Child);
    };
    Find(Spec->getBody());
    if (!Same)
      continue;
    Speculator S(Ctx, Spec, Costs);
    SpeculationOutcome Out = S.run(Same);
    if (!Out.OK)
      return Out;
    if (!First)
      First = Out;
  }
  if (!First) {
    SpeculationOutcome Out;
    Out.Refusal = "the template is never instantiated, so the proof has "
                  "nothing to look at";
    return Out;
  }
  return *First;
}

} // namespace warpwise
