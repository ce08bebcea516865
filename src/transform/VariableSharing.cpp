//===- VariableSharing.cpp - Block-uniform values in shared memory --------===//
//
// Internal variable sharing. Candidates are local scalars and constant-size
// arrays declared at the top level of a kernel's body whose every write is a
// *fill statement*: a top-level statement that computes only from kernel
// parameters the kernel never assigns, blockIdx/blockDim/gridDim, constants,
// `__constant__` data, loads through the kernel's pointer parameters at
// block-uniform addresses, pure functions and other candidates, and that stores
// nothing but candidates and its own locals. The divergence analysis must agree
// that each candidate is at most block-uniform.
//
// Legality of the rewrite:
//  - every thread of the block reaches the barrier: the fill runs before the
//    first top-level statement that may return (or exit) for some threads of
//    a block and not others. A fill that loads memory is not moved above such
//    a return, since a block whose threads all return would load what the
//    original never loads (an address past an array's end, say);
//  - a fill that loads memory is moved above no exit and no statement with
//    effects;
//  - no candidate is read before its fill is complete, none escapes (its
//    address taken, an array passed to a function), and nothing else in the
//    kernel writes it after the fill;
//  - the shared copies, with the kernel's static and dynamic shared memory,
//    fit the architecture's per-block limit.
// The names keep their meaning through references to the shared copies, so
// the code after the fill is not edited. The analyses are in
// ShareAnalysis.h; launch-uniform values the host computes (external
// sharing) in ExternalSharing.cpp, tried first.
//
//===----------------------------------------------------------------------===//
#include "VariableSharing.h"

#include "../plan/SharePlanner.h"
#include "ExternalSharing.h"
#include "ShareAnalysis.h"
#include "SourceText.h"

#include "warpwise/AstQueries.h"
#include "warpwise/Feedback.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace warpwise {

using namespace clang;
using namespace share;

namespace {

/// The offset just past \p S, its `;` included.
unsigned endOf(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Last = SM.getExpansionRange(S->getEndLoc()).getEnd();
  SourceLocation After =
      Lexer::getLocForEndOfToken(Last, 0, SM, Ctx.getLangOpts());
  unsigned End = SM.getFileOffset(After);
  if (!isa<DeclStmt>(S) && !isa<CompoundStmt>(S)) {
    SourceLocation Semi = Lexer::findLocationAfterToken(
        Last, tok::semi, SM, Ctx.getLangOpts(), false);
    if (Semi.isValid())
      End = SM.getFileOffset(Semi);
  }
  return End;
}

/// The statement's text with its `;`.
std::string stmtText(ASTContext &Ctx, llvm::StringRef Text, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Begin =
      SM.getFileOffset(SM.getExpansionRange(S->getBeginLoc()).getBegin());
  return Text.slice(Begin, endOf(Ctx, S)).str();
}

/// The type of \p V written for a declaration of \p Name (`float (&w)[32]`
/// with \p Ref, `float ww_shared_w[32]` without).
std::string declare(ASTContext &Ctx, QualType T, const std::string &Name,
                    bool Ref) {
  std::string Dims;
  while (const auto *A = dyn_cast<ConstantArrayType>(T.getTypePtr())) {
    Dims += "[" + std::to_string(A->getSize().getZExtValue()) + "]";
    T = A->getElementType();
  }
  std::string Elem =
      T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  if (!Ref)
    return Elem + " " + Name + Dims;
  if (Dims.empty())
    return "const " + Elem + " &" + Name;
  return Elem + " (&" + Name + ")" + Dims;
}

unsigned long bytesOf(ASTContext &Ctx, QualType T) {
  return Ctx.getTypeSizeInChars(T).getQuantity();
}

/// [start of \p S's line, start of the next line) when \p S has its lines to
/// itself; std::nullopt otherwise.
std::optional<std::pair<unsigned, unsigned>>
wholeLines(ASTContext &Ctx, llvm::StringRef Text, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = SM.getExpansionRange(S->getBeginLoc()).getBegin();
  unsigned Begin = SM.getFileOffset(B), End = endOf(Ctx, S);
  unsigned LineStart = Begin;
  while (LineStart > 0 && Text[LineStart - 1] != '\n') {
    char C = Text[LineStart - 1];
    if (C != ' ' && C != '\t')
      return std::nullopt;
    --LineStart;
  }
  unsigned LineEnd = End;
  while (LineEnd < Text.size() && Text[LineEnd] != '\n') {
    char C = Text[LineEnd];
    if (C != ' ' && C != '\t' && C != '\r')
      return std::nullopt;
    ++LineEnd;
  }
  if (LineEnd < Text.size())
    ++LineEnd;
  return std::make_pair(LineStart, LineEnd);
}


/// One kernel's internal sharing, step by step: the candidates, the fills
/// that make them, which of them are block-uniform, which are worth
/// sharing, where the fill may run, and the rewrite. The steps share the
/// kernel's state, kept here; each step's comment says why it is needed.
class KernelSharing {
public:
  KernelSharing(TransformContext &TC, const char *Transform,
                const FunctionDecl *FD, const CompoundStmt *Body,
                std::vector<Decision> &Decisions, std::vector<Change> &Changes,
                std::vector<KernelCopy> &Copies)
      : TC(TC), Ctx(TC.Ctx), SM(Ctx.getSourceManager()), Transform(Transform),
        FD(FD), Body(Body), Top(Body->body_begin(), Body->body_end()),
        Decisions(Decisions), Changes(Changes), Copies(Copies) {
    for (const KernelInfo &K : TC.Analysis.Kernels)
      if (K.Name == FD->getNameAsString() &&
          K.Line == SM.getExpansionLineNumber(FD->getLocation()))
        Own = &K;
  }

  /// Decides (and reports) the kernel's sharing: external first, then
  /// internal.
  void run();

private:
  bool findCandidates();
  void findFills();
  void rejectUntilStable();
  bool findWorthwhile();
  void startDecision();
  std::set<const VarDecl *> closure(const std::set<const VarDecl *> &Seed);
  void chooseFills();
  void checkPlacement();
  void choosePublished();
  void checkKernel();
  void checkBudget();
  void checkLines();
  bool spreadFill(std::map<unsigned, SpreadLoop> &Loops);
  std::string sharedBlock(bool &Spread);
  std::string proof(bool Spread) const;
  void apply();

  unsigned Line(unsigned I) const {
    return SM.getExpansionLineNumber(Top[I]->getBeginLoc());
  }
  static std::string Name(const VarDecl *V) {
    return "`" + V->getNameAsString() + "`";
  }
  /// Reports the decision with \p Code at \p At and records it.
  void Report(unsigned At, const char *Code) {
    TC.Log.report(Code, Severity::Remark, TC.displayOf(FD->getLocation()), At,
                  Column, std::string(Transform) + ": " + D.Reason);
    Decisions.push_back(D);
  }

  TransformContext &TC;
  ASTContext &Ctx;
  const SourceManager &SM;
  const char *Transform;
  const FunctionDecl *FD;
  const CompoundStmt *Body;
  std::vector<const Stmt *> Top; ///< The body's top-level statements.
  const KernelInfo *Own = nullptr; ///< The analysis' view of the kernel.
  std::vector<Decision> &Decisions;
  std::vector<Change> &Changes;
  std::vector<KernelCopy> &Copies;

  // The candidates (steps 1-4).
  std::map<const VarDecl *, Candidate> Cands;
  std::vector<const VarDecl *> Order; ///< The candidates in source order.
  std::set<const VarDecl *> WrittenParams;
  std::set<const VarDecl *> All; ///< Every candidate, rejected or not.
  std::vector<Uses> StmtUses;    ///< How each top-level statement uses them.
  std::set<const VarDecl *> Worth, WorthRejected;

  // The decision (from step 4 on).
  Decision D;
  unsigned Column = 1;
  std::string Kernel; ///< "`name`".
  std::string Left;   ///< The values that stay private, and why.
  std::set<const VarDecl *> Shared;
  std::set<unsigned> Fills;
  bool Loads = false;
  unsigned First = 0; ///< The first fill statement.

  // Legality (step 5).
  unsigned At = 0; ///< The statement the fill goes before.
  unsigned ExitLine = 0;
  std::string Refusal;
  unsigned long NewShared = 0;
  std::vector<const VarDecl *> Published;
  std::vector<const CUDAKernelCallExpr *> Seen;
  const DeclRefExpr *Elsewhere = nullptr;
  std::string InFile;
  llvm::StringRef Text;
  std::map<unsigned, std::pair<unsigned, unsigned>> Lines;
  std::optional<std::pair<unsigned, unsigned>> AtLines;
  std::string Names, Where;
};

void KernelSharing::run() {
  if (!findCandidates())
    return;
  findFills();
  rejectUntilStable();
  if (!findWorthwhile())
    return;
  startDecision();

  // External sharing first: launch-uniform scalars the host computes.
  std::string OnDevice = shareExternally(
      TC, Transform, FD, Order, Cands, Worth, WrittenParams,
      [this](const std::set<const VarDecl *> &Seed) { return closure(Seed); },
      Decisions, Changes, Copies);
  if (!OnDevice.empty())
    Left = OnDevice + (Left.empty() ? "" : "; " + Left);
  if (Worth.empty() && WorthRejected.empty())
    return;
  chooseFills();
  Steer Steering = TC.steer(Transform, FD, Top[First]->getBeginLoc());
  if (Steering.disabled()) {
    D.Reason = Kernel + ": disabled by " + Steering.Source + "; not considered";
    Report(D.Line, "WW3004");
    return;
  }
  SteerScope Steered(TC, Steering, Transform);
  if (Worth.empty()) {
    D.Reason = Kernel + ": no block-uniform value is shared; " + Left;
    Report(D.Line, "WW3004");
    return;
  }
  // Each check below refuses only when no earlier one did: the decision
  // gives the first reason.
  checkPlacement();
  choosePublished();
  checkKernel();
  checkBudget();
  checkLines();
  for (const VarDecl *V : Published)
    Names += std::string(Names.empty() ? "" : ", ") + Name(V);
  Where = Kernel + " (" + Names + ", filled at line" +
          (Fills.size() > 1 ? "s " : " ") + std::to_string(Line(First)) +
          (Fills.size() > 1 ? "-" + std::to_string(Line(*Fills.rbegin())) : "") +
          ")";
  if (!Refusal.empty()) {
    D.Reason =
        Where + ": not shared: " + Refusal + (Left.empty() ? "" : "; " + Left);
    Report(D.Line, "WW3004");
    return;
  }
  apply();
}

/// 1. Candidates: top-level locals of eligible type. A scalar whose
/// initializer is a thread's own value (the thread's index, what it loaded)
/// was never a shared value: it is dropped here, not mentioned. False when
/// none is left.
bool KernelSharing::findCandidates() {
  for (unsigned I = 0; I < Top.size(); ++I)
    if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
      for (const Decl *Dl : DS->decls())
        if (auto *V = dyn_cast<VarDecl>(Dl))
          // An array declared with others would need its own alias.
          if (!(V->getType()->isArrayType() && !DS->isSingleDecl()) &&
              // A constant (an array bound, a template argument) stays.
              !V->isUsableInConstantExpressions(Ctx) && V->hasLocalStorage() &&
              !V->isStaticLocal() && eligibleType(V->getType()) &&
              (V->getType()->isArrayType() ? !V->hasInit() : V->hasInit())) {
            Cands[V] = {V, I, {}, "", false};
            Order.push_back(V);
          }
  // Parameters the kernel writes, or may write: assigned (a member or an
  // element of one too), bound to a reference, their address taken.
  {
    std::set<const VarDecl *> Params(FD->param_begin(), FD->param_end());
    Uses ParamUses;
    UseScanner(Ctx, Params, ParamUses).stmt(Body, false);
    WrittenParams = ParamUses.Writes;
    WrittenParams.insert(ParamUses.Escapes.begin(), ParamUses.Escapes.end());
  }
  for (bool Dropped = true; Dropped;) {
    Dropped = false;
    std::set<const VarDecl *> Now(Order.begin(), Order.end());
    for (const VarDecl *V : Order) {
      if (V->getType()->isArrayType())
        continue;
      SliceCheck Check(FD, Now, WrittenParams);
      if (!Check.expr(V->getInit())) {
        Cands.erase(V);
        Order.erase(std::find(Order.begin(), Order.end(), V));
        Dropped = true;
        break;
      }
    }
  }
  if (Cands.empty())
    return false;
  All = std::set<const VarDecl *>(Order.begin(), Order.end());
  return true;
}

/// 2. How each top-level statement uses the candidates, and so each
/// candidate's fill: its declaration and every statement that writes it
/// (or might, through its address).
void KernelSharing::findFills() {
  StmtUses.resize(Top.size());
  for (unsigned I = 0; I < Top.size(); ++I) {
    UseScanner Scan(Ctx, All, StmtUses[I]);
    Scan.stmt(Top[I], false);
  }
  for (auto &[V, C] : Cands) {
    C.Fills.push_back(C.DeclIndex);
    for (unsigned I = 0; I < Top.size(); ++I)
      if (I != C.DeclIndex &&
          (StmtUses[I].Writes.count(V) || StmtUses[I].Escapes.count(V)))
        C.Fills.push_back(I);
    std::sort(C.Fills.begin(), C.Fills.end());
  }
}

/// 3. Reject, to a fixpoint, what is not a block-uniform fill: a rejected
/// candidate stays private, so one filled from it, or together with it,
/// can no longer be shared either.
void KernelSharing::rejectUntilStable() {
  for (bool Changed = true; Changed;) {
    Changed = false;
    std::set<const VarDecl *> Live;
    for (auto &[V, C] : Cands)
      if (C.Rejected.empty())
        Live.insert(V);
    auto Reject = [&](Candidate &C, std::string Why) {
      if (!C.Rejected.empty())
        return;
      C.Rejected = std::move(Why);
      Changed = true;
    };
    for (const VarDecl *V : Order) {
      Candidate &C = Cands[V];
      if (!C.Rejected.empty())
        continue;
      if (Own)
        for (const VariableInfo &VI : Own->Variables)
          if (VI.Line == SM.getExpansionLineNumber(V->getLocation()) &&
              VI.Column == SM.getExpansionColumnNumber(V->getLocation()) &&
              VI.Level > Uniformity::BlockUniform)
            Reject(C, "it is " + std::string(uniformityName(VI.Level)) +
                          (VI.Reason.empty() ? "" : ": " + VI.Reason) +
                          " (divergence analysis)");
      if (!C.Rejected.empty())
        continue;
      C.Loads = false;
      for (unsigned I : C.Fills) {
        if (StmtUses[I].Escapes.count(V)) {
          Reject(C, "its address is taken or it is passed by reference at "
                    "line " +
                        std::to_string(Line(I)));
          break;
        }
        if (Top[I]->getBeginLoc().isMacroID() ||
            Top[I]->getEndLoc().isMacroID()) {
          Reject(C, "its fill at line " + std::to_string(Line(I)) +
                        " is in a macro expansion");
          break;
        }
        SliceCheck Check(FD, Live, WrittenParams);
        if (!Check.stmt(Top[I])) {
          bool Divergent = Check.Why == "`threadIdx`";
          Reject(C, std::string(Divergent ? "it is assigned a thread's own "
                                            "value"
                                          : "its fill") +
                        " at line " + std::to_string(Line(I)) +
                        (Divergent ? "" : " has " + Check.Why) +
                        (Divergent ? " (divergent definition)" : ""));
          break;
        }
        C.Loads = C.Loads || Check.Loads;
        for (const VarDecl *W : StmtUses[I].Writes)
          if (W != V && !Cands[W].Rejected.empty())
            Reject(C, "it is filled together with " + Name(W) +
                          ", which stays private (line " +
                          std::to_string(Line(I)) + ")");
        if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
          for (const Decl *Dl : DS->decls())
            if (auto *W = dyn_cast<VarDecl>(Dl); W && W != V)
              if (!Cands.count(W) || !Cands[W].Rejected.empty())
                Reject(C, "it is declared together with " + Name(W) +
                              ", which stays private");
      }
      if (!C.Rejected.empty())
        continue;
      unsigned LastFill = C.Fills.back();
      std::set<unsigned> FillSet(C.Fills.begin(), C.Fills.end());
      for (unsigned I = 0; I < LastFill; ++I)
        if (!FillSet.count(I) && StmtUses[I].Reads.count(V)) {
          Reject(C, "it is read at line " + std::to_string(Line(I)) +
                        " before its fill is complete (line " +
                        std::to_string(Line(LastFill)) + ")");
          break;
        }
    }
  }
}

/// 4. The values worth sharing: tables indexed at run time and values read
/// in a loop, after the fill. Those rejected but worth it are named in the
/// decision, so that the user sees why they stay private. False when there
/// is neither.
bool KernelSharing::findWorthwhile() {
  std::set<unsigned> LiveFills;
  for (auto &[V, C] : Cands)
    if (C.Rejected.empty())
      LiveFills.insert(C.Fills.begin(), C.Fills.end());
  for (const VarDecl *V : Order) {
    const Candidate &C = Cands[V];
    std::set<unsigned> OwnFills(C.Fills.begin(), C.Fills.end());
    bool Pays = false;
    for (unsigned I = 0; I < Top.size(); ++I) {
      if (OwnFills.count(I) || LiveFills.count(I))
        continue;
      if (StmtUses[I].RunTimeIndexed.count(V) || StmtUses[I].InLoop.count(V))
        Pays = true;
    }
    // A copy of a parameter or a constant computes nothing (and is what
    // external sharing leaves behind).
    if (!V->getType()->isArrayType() && C.Fills.size() == 1 && V->getInit()) {
      const Expr *Init = V->getInit()->IgnoreParenImpCasts();
      if (isa<DeclRefExpr>(Init) || isa<IntegerLiteral>(Init) ||
          isa<FloatingLiteral>(Init) || isa<CXXBoolLiteralExpr>(Init))
        Pays = false;
    }
    if (Pays && C.Rejected.empty())
      Worth.insert(V);
    // A table is mentioned when it starts as one: its first fill is
    // block-uniform (a per-thread workspace is not).
    if (Pays && !C.Rejected.empty() && V->getType()->isArrayType() &&
        C.Fills.size() > 1) {
      SliceCheck Check(FD, All, WrittenParams);
      if (Check.stmt(Top[C.Fills[1]]) || !Check.ThreadValue)
        WorthRejected.insert(V);
    } else if (Pays && !C.Rejected.empty()) {
      WorthRejected.insert(V);
    }
  }
  return !Worth.empty() || !WorthRejected.empty();
}

/// The kernel has something to say: its decision, and the values left
/// private with their reasons.
void KernelSharing::startDecision() {
  D.Transform = Transform;
  D.Kernel = FD->getNameAsString();
  D.File = TC.decisionFileOf(FD->getLocation());
  TC.CurrentKernel = D.Kernel;
  if (TC.DebugCrash)
    crashForTesting();
  for (const VarDecl *V : Order)
    if (WorthRejected.count(V))
      Left += std::string(Left.empty() ? "" : "; ") + Name(V) +
              " stays private: " + Cands[V].Rejected;
  Kernel = "`" + D.Kernel + "`";
}

/// The closure: what the worthwhile values' fills read or write. Their
/// fills run together, so all of it is shared or none.
std::set<const VarDecl *>
KernelSharing::closure(const std::set<const VarDecl *> &Seed) {
  std::set<const VarDecl *> Out = Seed;
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const VarDecl *V : std::set<const VarDecl *>(Out))
      for (unsigned I : Cands[V].Fills) {
        SliceCheck Check(FD, All, WrittenParams);
        Check.stmt(Top[I]);
        std::set<const VarDecl *> Touched = Check.ReadCands;
        Touched.insert(StmtUses[I].Writes.begin(), StmtUses[I].Writes.end());
        if (auto *DS = dyn_cast<DeclStmt>(Top[I]))
          for (const Decl *Dl : DS->decls())
            if (auto *W = dyn_cast<VarDecl>(Dl))
              Touched.insert(W);
        for (const VarDecl *W : Touched)
          if (Cands.count(W) && Cands[W].Rejected.empty() &&
              Out.insert(W).second)
            Grew = true;
      }
  }
  return Out;
}

/// What is shared (the worthwhile values and their closure), the
/// statements that fill it, and where the decision is reported: the first
/// fill.
void KernelSharing::chooseFills() {
  Shared = closure(Worth);
  for (const VarDecl *V : Shared) {
    Fills.insert(Cands[V].Fills.begin(), Cands[V].Fills.end());
    Loads = Loads || Cands[V].Loads;
  }
  First = Fills.empty() ? 0 : *Fills.begin();
  D.Line = Fills.empty() ? SM.getExpansionLineNumber(FD->getLocation())
                         : Line(First);
  Column = Fills.empty()
               ? SM.getExpansionColumnNumber(FD->getLocation())
               : SM.getExpansionColumnNumber(
                     SM.getExpansionRange(Top[First]->getBeginLoc()).getBegin());
}

/// 5. Where the fill runs: before the first statement that may return for
/// some threads of a block, so that every thread reaches the barrier. A
/// fill that loads memory moves above no exit and no effect: it would load
/// where the original does not, or see memory the original changed first.
void KernelSharing::checkPlacement() {
  At = First;
  for (unsigned I = 0; I < First; ++I)
    if (divergentExit(Top[I], Top[I], Own, SM, ExitLine, FD, WrittenParams)) {
      At = I;
      break;
    }
  if (At < First && Loads)
    Refusal = "its fill loads memory, and the return at line " +
              std::to_string(ExitLine) +
              " comes first: moved above it, the fill would load in blocks "
              "whose threads all return, what the original never loads "
              "(early return before the fill)";
  // A loading fill is not moved above any exit between its statements
  // either, uniform or not.
  for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty() && Loads; ++I) {
    unsigned L = 0;
    if (!Fills.count(I) && mayExit(Top[I], L, SM))
      Refusal = "its fill loads memory, and the statement at line " +
                std::to_string(L) +
                ", which it would move above, may return: moved above it, "
                "the fill would load in blocks whose threads all return "
                "(early return before the fill)";
  }
  if (Refusal.empty() && Loads)
    for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty(); ++I)
      if (!Fills.count(I) && hasEffects(Top[I]))
        Refusal = "its fill loads memory, and the statement at line " +
                  std::to_string(Line(I)) +
                  ", which it would move above, has side effects";
  // A name the fill moves above must not be one a statement there already
  // uses for something else (a global the local shadows).
  for (unsigned I = At; I < *Fills.rbegin() && Refusal.empty(); ++I) {
    if (Fills.count(I))
      continue;
    for (const DeclRefExpr *Ref : statementsIn<DeclRefExpr>(Top[I]))
      for (const VarDecl *V : Shared)
        if (Ref->getDecl() != V &&
            Ref->getDecl()->getDeclName() == V->getDeclName())
          Refusal = Name(V) + " would shadow the other " + Name(V) +
                    " used at line " + std::to_string(Line(I));
  }
}

/// The values the code after the fill names get a shared copy (tables
/// always): what it names in expressions and in types (decltype), where a
/// shared value would change type, which is refused.
void KernelSharing::choosePublished() {
  for (const VarDecl *V : Order) {
    if (!Shared.count(V))
      continue;
    bool Named = false;
    for (unsigned I = 0; I < Top.size(); ++I) {
      if (Fills.count(I))
        continue;
      unsigned InTree = 0, Anywhere = 0;
      std::function<void(const Stmt *)> Count = [&](const Stmt *S) {
        if (!S)
          return;
        if (auto *R = dyn_cast<DeclRefExpr>(S); R && R->getDecl() == V)
          ++InTree;
        for (const Stmt *Child : S->children())
          Count(Child);
      };
      Count(Top[I]);
      for (const DeclRefExpr *R : statementsIn<DeclRefExpr>(Top[I]))
        if (R->getDecl() == V)
          ++Anywhere;
      if (Anywhere > InTree && Refusal.empty())
        Refusal = Name(V) + " is named in a type (decltype) at line " +
                  std::to_string(Line(I));
      Named = Named || Anywhere > 0;
    }
    if (Named || V->getType()->isArrayType()) {
      Published.push_back(V);
      NewShared += bytesOf(Ctx, V->getType());
    }
  }
}

/// What in the kernel the moved fill could not survive: a `goto` (which
/// may skip the fill or the barrier), and a type or constant the kernel
/// declares (the fill may move above its declaration).
void KernelSharing::checkKernel() {
  if (Refusal.empty())
    for (const Stmt *S : statementsIn<Stmt>(Body))
      if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S) || isa<LabelStmt>(S))
        Refusal = "the kernel has `goto`, which may skip the fill or the "
                  "barrier or reach them more than once";
  // The fill may name no type the kernel declares (it may move above it).
  if (Refusal.empty())
    for (unsigned I : Fills) {
      struct LocalTypes : RecursiveASTVisitor<LocalTypes> {
        const FunctionDecl *FD;
        bool Found = false;
        bool inKernel(const Decl *D) const {
          for (const DeclContext *C = D->getDeclContext(); C;
               C = C->getParent())
            if (C == FD)
              return true;
          return false;
        }
        bool VisitTypedefTypeLoc(TypedefTypeLoc T) {
          Found = Found || inKernel(T.getTypePtr()->getDecl());
          return true;
        }
        bool VisitTagTypeLoc(TagTypeLoc T) {
          Found = Found || inKernel(T.getDecl());
          return true;
        }
        bool VisitDeclRefExpr(DeclRefExpr *R) {
          if (isa<EnumConstantDecl>(R->getDecl()))
            Found = Found || inKernel(R->getDecl());
          return true;
        }
      } Finder;
      Finder.FD = FD;
      Finder.TraverseStmt(const_cast<Stmt *>(Top[I]));
      if (Finder.Found)
        Refusal = "the fill at line " + std::to_string(Line(I)) +
                  " names a type or constant declared in the kernel";
    }
}

/// The shared copies, with the kernel's static shared memory and its
/// launches' dynamic shared memory, must fit the block's limit; unknown
/// dynamic shared memory is refused, since whether they fit is unknown.
void KernelSharing::checkBudget() {
  launchesOf(Ctx, FD, Seen, Elsewhere);
  unsigned long Static = Own ? Own->StaticShared : 0;
  // The launches' dynamic shared memory counts against the same budget.
  bool DynamicArray = false;
  for (const DeclStmt *DS : statementsIn<DeclStmt>(Body))
    for (const Decl *Dl : DS->decls())
      if (auto *V = dyn_cast<VarDecl>(Dl))
        if (V->hasAttr<CUDASharedAttr>() &&
            V->getType()->isIncompleteArrayType())
          DynamicArray = true;
  unsigned long Dynamic = 0;
  bool DynamicUnknown = DynamicArray && Seen.empty();
  for (const LaunchInfo &L : TC.Analysis.Launches)
    if (L.Kernel == D.Kernel) {
      if (L.DynamicShared)
        Dynamic = std::max(Dynamic, *L.DynamicShared);
      else
        DynamicUnknown = DynamicArray;
    }
  if (Refusal.empty() && DynamicUnknown)
    Refusal = "the kernel's dynamic shared memory is not known (a launch "
              "sizes it at run time, or none is in this file), so whether "
              "the shared copies fit is not known (shared budget)";
  if (Refusal.empty() && TC.Arch.SharedPerBlock &&
      Static + Dynamic + NewShared > TC.Arch.SharedPerBlock)
    Refusal = "the shared copies need " + std::to_string(NewShared) +
              " bytes per block, and with the kernel's " +
              std::to_string(Static) + " bytes" +
              (Dynamic ? " and its launches' " + std::to_string(Dynamic) +
                             " dynamic bytes"
                       : std::string()) +
              " that exceeds the " + std::to_string(TC.Arch.SharedPerBlock) +
              " bytes of shared memory a block may have on " +
              TC.Arch.smName() + " (shared budget)";
}

/// Every statement the rewrite touches has its lines to itself (the edits
/// replace whole lines), and none of them was edited by an earlier rewrite.
void KernelSharing::checkLines() {
  InFile = TC.fileOf(Body->getBeginLoc());
  Text = TC.textOf(Body->getBeginLoc());
  for (unsigned I : Fills) {
    auto L = wholeLines(Ctx, Text, Top[I]);
    if (!L && Refusal.empty())
      Refusal = "the statement at line " + std::to_string(Line(I)) +
                " shares its line with other code";
    if (L)
      Lines[I] = *L;
  }
  AtLines = wholeLines(Ctx, Text, Top[At]);
  if (!AtLines && Refusal.empty())
    Refusal = "the statement at line " + std::to_string(Line(At)) +
              " shares its line with other code";
  if (Refusal.empty())
    for (auto &[I, L] : Lines)
      if (TC.claimed(InFile, L.first, L.second) ||
          llvm::any_of(TC.Applied, [&](const tooling::Replacement &A) {
            return A.getFilePath() == InFile && A.getOffset() < L.second &&
                   L.first < A.getOffset() + std::max(1u, A.getLength());
          }))
        Refusal = "an earlier rewrite edited the statement at line " +
                  std::to_string(Line(I));
}

/// Whether the block's threads fill together: each filling loop of a table
/// hands its iterations out to the threads (\p Loops), and no scalar is
/// accumulated. Otherwise one thread fills.
bool KernelSharing::spreadFill(std::map<unsigned, SpreadLoop> &Loops) {
  std::set<const VarDecl *> Tables;
  for (const VarDecl *V : Shared)
    if (V->getType()->isArrayType())
      Tables.insert(V);
  bool Spread = true;
  for (unsigned I : Fills) {
    if (isa<DeclStmt>(Top[I]))
      continue;
    auto *For = dyn_cast<ForStmt>(Top[I]);
    std::optional<SpreadLoop> L = For ? spreadable(For, Tables) : std::nullopt;
    if (!L) {
      Spread = false;
      break;
    }
    Loops[I] = *L;
  }
  // One loop per table: two would hand an element to different threads
  // with no barrier between them.
  {
    std::map<const VarDecl *, unsigned> Writers;
    for (auto &[I, L] : Loops)
      for (const VarDecl *W : StmtUses[I].Writes)
        if (Tables.count(W) && ++Writers[W] > 1)
          Spread = false;
  }
  if (!Spread)
    Loops.clear();
  for (const VarDecl *V : Shared)
    if (!V->getType()->isArrayType() && Cands[V].Fills.size() > 1)
      Spread = false; // A scalar accumulated: one thread computes it.
  return Spread;
}

/// 6. The block that replaces the fill: the shared copies, the fill (by the
/// block's threads together, or by one), the barrier, and the names bound
/// to the shared copies, so that the code after it is not edited. It
/// starts with the decision's mark. \p Spread: whether the threads fill
/// together.
std::string KernelSharing::sharedBlock(bool &Spread) {
  std::map<unsigned, SpreadLoop> Loops;
  Spread = spreadFill(Loops);
  // The 1-D form only where every launch is in view: a kernel other
  // files can launch, or launched through its address, may run with any
  // block shape.
  bool OneDim = false;
  if (!Elsewhere && !FD->isExternallyVisible())
    for (const LaunchInfo &L : TC.Analysis.Launches)
      if (L.Kernel == D.Kernel) {
        std::vector<std::array<unsigned, 3>> Dims = L.knownBlockDims();
        OneDim = !Dims.empty();
        for (auto &Dm : Dims)
          OneDim = OneDim && Dm[1] == 1 && Dm[2] == 1;
        if (!OneDim)
          break;
      }
  std::string Tid = OneDim ? "threadIdx.x"
                           : "(threadIdx.z * blockDim.y + threadIdx.y) * "
                             "blockDim.x + threadIdx.x";
  std::string Threads =
      OneDim ? "blockDim.x" : "blockDim.x * blockDim.y * blockDim.z";
  std::string Leader =
      OneDim ? "threadIdx.x == 0"
             : "threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0";
  std::map<const VarDecl *, std::string> SharedName;
  for (const VarDecl *V : Published) {
    std::string N = "ww_shared_" + V->getNameAsString();
    std::string Unique = N;
    for (unsigned K = 2; Text.contains(Unique); ++K)
      Unique = N + "_" + std::to_string(K);
    SharedName[V] = Unique;
  }
  SourceLocation AtLoc =
      SM.getExpansionRange(Top[At]->getBeginLoc()).getBegin();
  std::string In(SM.getExpansionColumnNumber(AtLoc) - 1, ' ');
  std::string In2 = In + "  ", In3 = In + "    ";
  std::string Block = In + DecisionMark + "\n";
  for (const VarDecl *V : Published)
    Block += In + "__shared__ " +
             declare(Ctx, V->getType(), SharedName[V], false) + ";\n";
  std::string FillText;
  std::string Inner = Spread ? In2 : In3;
  for (unsigned I : Fills) {
    std::string S;
    if (auto *DS = dyn_cast<DeclStmt>(Top[I])) {
      const VarDecl *V = dyn_cast<VarDecl>(DS->getSingleDecl());
      if (DS->isSingleDecl() && V && V->getType()->isArrayType())
        S = declare(Ctx, V->getType(), V->getNameAsString(), true) + " = " +
            SharedName[V] + ";";
    }
    if (S.empty() && Loops.count(I)) {
      auto *For = cast<ForStmt>(Top[I]);
      const SpreadLoop &L = Loops[I];
      std::string K = L.Index->getNameAsString();
      std::string Start = sourceText(Ctx, L.Start->getSourceRange());
      S = "for (" + L.Index->getType().getAsString(Ctx.getPrintingPolicy()) +
          " " + K + " = " + (Start == "0" ? "" : "(" + Start + ") + ") + Tid +
          "; " + sourceText(Ctx, For->getCond()->getSourceRange()) + "; " + K +
          " += " + Threads + ")\n" + Inner + "  " +
          stmtText(Ctx, Text, For->getBody());
    }
    if (S.empty())
      S = stmtText(Ctx, Text, Top[I]);
    FillText += Inner + S + "\n";
  }
  std::string Publish;
  for (const VarDecl *V : Published)
    if (!V->getType()->isArrayType())
      Publish += In3 + SharedName[V] + " = " + V->getNameAsString() + ";\n";
  if (Spread) {
    Block += In + "{\n" + FillText;
    if (!Publish.empty())
      Block += In2 + "if (" + Leader + ") {\n" + Publish + In2 + "}\n";
    Block += In + "}\n";
  } else {
    Block += In + "if (" + Leader + ") {\n" + FillText + Publish + In + "}\n";
  }
  Block += In + "__syncthreads();\n";
  for (const VarDecl *V : Published)
    Block += In + declare(Ctx, V->getType(), V->getNameAsString(), true) +
             " = " + SharedName[V] + ";\n";
  return Block;
}

/// What the legality checks established, for the decision's remark.
std::string KernelSharing::proof(bool Spread) const {
  return std::string("block-uniform (divergence analysis), computed from "
                     "kernel parameters, blockIdx/blockDim/gridDim and "
                     "constants") +
         (Loads ? " and uniform loads" : "") + ", written nowhere else" +
         (At < First ? "; the fill moves above the return at line " +
                           std::to_string(ExitLine) +
                           " (it neither loads nor stores memory)"
                     : "") +
         "; " +
         (Spread ? "filled by the block's threads together"
                 : "filled by one thread") +
         ", published by one barrier that every thread reaches; " +
         std::to_string(NewShared) + " bytes of shared memory per block";
}

/// The edits (the block goes before the statement at At; the fill
/// statements leave), the planner's verdict, and, when applied, the
/// decision's comment and the change.
void KernelSharing::apply() {
  bool Spread = false;
  std::string Block = sharedBlock(Spread);
  ShareCandidate C;
  C.FD = FD;
  C.Line = D.Line;
  C.Where = Where;
  C.NewShared = NewShared;
  C.Left = Left;
  C.Proof = proof(Spread);
  unsigned AtStart = AtLines->first;
  bool Merged = false;
  for (auto &[I, L] : Lines) {
    if (L.first == AtStart) {
      C.Edits.emplace_back(InFile, L.first, L.second - L.first, Block);
      Merged = true;
    } else {
      C.Edits.emplace_back(InFile, L.first, L.second - L.first, "");
    }
  }
  if (!Merged)
    C.Edits.emplace_back(InFile, AtStart, 0, Block);
  std::sort(C.Edits.begin(), C.Edits.end(),
            [](const tooling::Replacement &A, const tooling::Replacement &B) {
              return A.getOffset() < B.getOffset();
            });
  D = planShare(TC, C, Transform);
  D.File = TC.decisionFileOf(FD->getLocation());
  if (D.Applied) {
    TC.takeDecisionId(D, "WW4004", Text);
    std::string What = "the block-uniform " + Names +
                       (Published.size() > 1 ? " are" : " is") +
                       " computed once per block into shared memory "
                       "(internal variable sharing)";
    for (tooling::Replacement &R : C.Edits) {
      std::string T = R.getReplacementText().str();
      if (fillDecisionMark(T, TC.decisionComment(D, What)))
        R = tooling::Replacement(R.getFilePath(), R.getOffset(),
                                 R.getLength(), T);
    }
    Changes.push_back({"variable sharing in `" + D.Kernel + "`", C.Edits});
    TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
    TC.Claimed.push_back({InFile, AtStart, Lines.rbegin()->second.second});
  }
  Report(D.Line, D.Applied ? "WW4004" : "WW3004");
}

} // namespace

void VariableSharing::run(TransformContext &TC,
                          std::vector<Decision> &Decisions,
                          std::vector<Change> &Changes) {
  // A later kernel is measured with this run's applied edits too; the
  // driver adds them to TC.Applied once the run is over.
  std::vector<tooling::Replacement> AppliedBefore = TC.Applied;
  struct Restore {
    TransformContext &TC;
    std::vector<tooling::Replacement> &Saved;
    ~Restore() { TC.Applied = Saved; }
  } Restorer{TC, AppliedBefore};
  // Kernels with external linkage rewritten in a copy: the edits inside
  // their definitions move into the copies once every decision is made.
  std::vector<KernelCopy> Copies;
  for (const FunctionDecl *FD :
       deviceCodeDefinitions(TC.Ctx, false, TC.Scope)) {
    auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!Body || !FD->hasAttr<CUDAGlobalAttr>())
      continue;
    // The original an earlier rewrite kept for other files, beside the copy
    // it rewrote, stays as written.
    if (keptOriginal(TC, FD))
      continue;
    KernelSharing(TC, name(), FD, Body, Decisions, Changes, Copies).run();
  }
  moveIntoCopies(TC, Copies, Changes);
}

} // namespace warpwise
