//===- ExternalSharing.cpp - Launch-uniform values from the host ----------===//
//
// External variable sharing (seed 001): a scalar every thread computes from
// kernel parameters and constants alone is computed by the host at each
// launch and passed as a new parameter, where the host's arithmetic gives the
// device's bits. See docs/transformations.md, "share".
//
//===----------------------------------------------------------------------===//
#include "ExternalSharing.h"

#include "../plan/SharePlanner.h"
#include "SourceText.h"

#include "warpwise/Feedback.h"

#include "clang/Lex/Lexer.h"

namespace warpwise {
namespace share {

namespace {

/// Whether the program is built so that the device's floating-point
/// arithmetic differs from IEEE round-to-nearest (fast math, flushed
/// denormals, approximate division), and whether nvcc contracts (fmad).
void floatFlags(TransformContext &TC, bool &Approximate, bool &Contracts) {
  Approximate = false;
  Contracts = !TC.FmadFalse;
  if (!TC.Feedback)
    return;
  for (const std::string &F : TC.Feedback->flagsFor(TC.File)) {
    llvm::StringRef Flag = llvm::StringRef(F).ltrim('-');
    if (Flag == "use_fast_math" || Flag == "ftz=true" ||
        Flag == "prec-div=false" || Flag == "prec-sqrt=false")
      Approximate = true;
    if (Flag == "use_fast_math" || Flag == "fmad=true")
      Contracts = true;
    if (Flag == "fmad=false")
      Contracts = false;
  }
}

} // namespace

/// External sharing (seed 001): the launch-uniform scalars among \p Worth
/// (computed from kernel parameters and constants alone) are computed by
/// the host at each launch and passed as new parameters. Reports its own
/// decision; takes what it shares out of \p Worth. Returns why launch-uniform
/// values stay on the device, for the internal decision ("" when none do or
/// none exist).
std::string shareExternally(TransformContext &TC, const char *Transform,
                            const FunctionDecl *FD,
                            const std::vector<const VarDecl *> &Order,
                            std::map<const VarDecl *, Candidate> &Cands,
                            std::set<const VarDecl *> &Worth,
                            const std::set<const VarDecl *> &WrittenParams,
                            const ClosureFn &Closure,
                            std::vector<Decision> &Decisions,
                            std::vector<Change> &Changes) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Name = [](const VarDecl *V) { return "`" + V->getNameAsString() + "`"; };
  bool Approximate, Contracts;
  floatFlags(TC, Approximate, Contracts);
  std::map<const VarDecl *, std::string> Host;
  std::vector<const VarDecl *> Ext;
  std::string Why;
  for (const VarDecl *V : Order) {
    const Candidate &C = Cands[V];
    if (!Worth.count(V) || V->getType()->isArrayType() || C.Fills.size() != 1 ||
        C.Loads || !V->getInit() ||
        isa<InitListExpr>(V->getInit()->IgnoreImplicit()) ||
        V->getInit()->getBeginLoc().isMacroID() ||
        V->getInit()->getEndLoc().isMacroID())
      continue;
    // blockIdx, blockDim or gridDim: block-uniform, not the host's.
    bool PerBlock = false;
    for (const Expr *E : statementsIn<Expr>(V->getInit())) {
      bool IsBuiltin;
      if (isBlockBuiltin(E, IsBuiltin))
        PerBlock = true;
    }
    if (PerBlock)
      continue;
    HostSlice H(FD, Host, WrittenParams);
    std::string No;
    if (!H.check(V->getInit(), Ctx))
      No = "it has " + H.Why;
    else if (H.Float && Approximate)
      No = "the build approximates floating-point arithmetic (fast math, "
           "flushed denormals or approximate division), which the host does "
           "not";
    else if (H.Product && Contracts)
      No = "it has a floating-point product, which nvcc may fuse with an "
           "addition into a fused multiply-add (--fmad=true, the default) "
           "that the host's arithmetic does not reproduce bit for bit";
    if (!No.empty()) {
      Why += std::string(Why.empty() ? "" : "; ") + Name(V) +
             " is not computed by the host: " + No;
      continue;
    }
    Host[V] = "";
    Ext.push_back(V);
  }
  // What the internal fill needs stays with it.
  std::set<const VarDecl *> Rest;
  for (const VarDecl *V : Worth)
    if (!Host.count(V))
      Rest.insert(V);
  std::set<const VarDecl *> Inner = Closure(Rest);
  std::vector<const VarDecl *> Kept;
  for (const VarDecl *V : Ext)
    if (!Inner.count(V))
      Kept.push_back(V);
  Ext = Kept;
  if (Ext.empty())
    return Why;

  std::string Names;
  for (const VarDecl *V : Ext)
    Names += std::string(Names.empty() ? "" : ", ") + Name(V);
  unsigned Line = SM.getExpansionLineNumber(Ext.front()->getBeginLoc());
  Decision D;
  D.Transform = Transform;
  D.Kernel = FD->getNameAsString();
  D.Line = Line;
  D.Form = "external";
  D.File = TC.decisionFileOf(FD->getLocation());
  std::string Where = "`" + D.Kernel + "` (launch-uniform " + Names + ")";
  auto Report = [&]() {
    TC.Log.report(
        D.Applied ? "WW4004" : "WW3004", Severity::Remark,
        TC.displayOf(FD->getLocation()), Line,
        SM.getExpansionColumnNumber(
            SM.getExpansionRange(Ext.front()->getBeginLoc()).getBegin()),
        std::string(Transform) + ": " + D.Reason);
    Decisions.push_back(D);
  };
  Steer Steering = TC.steer(Transform, FD, Ext.front()->getBeginLoc());
  if (Steering.disabled()) {
    D.Reason = Where + ": disabled by " + Steering.Source + "; not considered";
    Report();
    return "";
  }
  SteerScope Steered(TC, Steering, Transform);

  // The kernel's parameters change: every launch must be in view.
  std::string Refusal;
  std::vector<const CUDAKernelCallExpr *> Launches;
  const DeclRefExpr *Other = nullptr;
  if (FD->isExternC())
    Refusal = "it is `extern \"C\"`: a caller elsewhere would pass the old "
              "parameters unnoticed";
  else if (FD->isTemplated() || FD->isTemplateInstantiation())
    Refusal = "it is a template";
  else if (!D.File.empty())
    Refusal = "it is defined in a header";
  for (const FunctionDecl *R : FD->redecls())
    if (R != FD && Refusal.empty())
      Refusal = "it is declared at line " +
                std::to_string(SM.getExpansionLineNumber(R->getLocation())) +
                " as well, where other files may launch it with the old "
                "parameters";
  if (Refusal.empty()) {
    launchesOf(Ctx, FD, Launches, Other);
    if (Other)
      Refusal =
          "it is named at line " +
          std::to_string(SM.getExpansionLineNumber(Other->getBeginLoc())) +
          " other than in a `<<<>>>` launch (its address, a launch "
          "API), where the new parameters would not be passed";
    else if (Launches.empty())
      Refusal = "no launch of it is in this file";
  }
  std::set<const ParmVarDecl *> Params;
  for (const VarDecl *V : Ext) {
    HostSlice H(FD, Host, WrittenParams);
    H.check(V->getInit(), Ctx);
    Params.insert(H.Params.begin(), H.Params.end());
  }
  for (const CUDAKernelCallExpr *L : Launches) {
    if (!Refusal.empty())
      break;
    unsigned LLine = SM.getExpansionLineNumber(L->getBeginLoc());
    if (L->getBeginLoc().isMacroID() || L->getRParenLoc().isMacroID() ||
        !SM.isInMainFile(SM.getExpansionLoc(L->getBeginLoc())))
      Refusal = "its launch at line " + std::to_string(LLine) +
                " is in a macro or another file";
    for (const ParmVarDecl *P : Params) {
      unsigned I = P->getFunctionScopeIndex();
      const Expr *Arg = I < L->getNumArgs() ? L->getArg(I) : nullptr;
      if (Refusal.empty() &&
          (!Arg || isa<CXXDefaultArgExpr>(Arg) ||
           Arg->getBeginLoc().isMacroID() || Arg->getEndLoc().isMacroID() ||
           hasEffects(Arg) || !statementsIn<CallExpr>(Arg).empty()))
        Refusal = "the launch at line " + std::to_string(LLine) + " passes `" +
                  P->getNameAsString() +
                  "` an expression the host cannot evaluate again without "
                  "effect (a call, an assignment, a default argument or a "
                  "macro)";
    }
  }
  if (!Refusal.empty()) {
    return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
           Names + " not computed by the host: " + Refusal;
  }

  // The edits: new parameters, the initializers read them, every launch
  // passes the host's values.
  const std::string InFile = TC.fileOf(FD->getLocation());
  llvm::StringRef Text = TC.textOf(FD->getLocation());
  auto Off = [&](SourceLocation L) {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  };
  auto EndOff = [&](SourceLocation L) {
    return SM.getFileOffset(Lexer::getLocForEndOfToken(SM.getExpansionLoc(L), 0,
                                                       SM, Ctx.getLangOpts()));
  };
  std::map<const VarDecl *, std::string> HostName;
  for (const VarDecl *V : Ext) {
    std::string N = "ww_host_" + V->getNameAsString(), Unique = N;
    for (unsigned K = 2; Text.contains(Unique); ++K)
      Unique = N + "_" + std::to_string(K);
    HostName[V] = Unique;
  }
  ShareCandidate C;
  C.FD = FD;
  C.Line = Line;
  C.External = true;
  C.Where = Where;
  C.Left = Why;
  std::string NewParams;
  for (const VarDecl *V : Ext)
    NewParams +=
        ", " +
        V->getType().getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
        " " + HostName[V];
  FunctionTypeLoc FTL = FD->getFunctionTypeLoc();
  if (!FTL) {
    return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
           Names +
           " not computed by the host: its parameter list is not "
           "written out";
  }
  if (FD->getNumParams() == 0)
    NewParams = NewParams.substr(2);
  C.Edits.emplace_back(InFile, Off(FTL.getRParenLoc()), 0, NewParams);
  // The decision's comment above the first value's declaration.
  SourceLocation DeclLoc =
      SM.getExpansionRange(Ext.front()->getBeginLoc()).getBegin();
  unsigned DeclCol = SM.getExpansionColumnNumber(DeclLoc);
  unsigned DeclOff = SM.getFileOffset(DeclLoc);
  std::string In(DeclCol - 1, ' ');
  bool OwnLine = DeclOff >= DeclCol - 1 &&
                 Text.slice(DeclOff - (DeclCol - 1), DeclOff).trim().empty();
  if (OwnLine)
    C.Edits.emplace_back(InFile, DeclOff - (DeclCol - 1), 0,
                         In + DecisionMark + "\n");
  for (const VarDecl *V : Ext) {
    unsigned B = Off(V->getInit()->getBeginLoc()),
             E = EndOff(V->getInit()->getEndLoc());
    C.Edits.emplace_back(InFile, B, E - B, HostName[V]);
  }
  // Each launch: the host's expression of each value, with the launch's
  // arguments in place of the parameters (converted as the launch converts
  // them) and the values' own host expressions for those they use.
  for (const CUDAKernelCallExpr *L : Launches) {
    std::map<const VarDecl *, std::string> Exprs;
    std::string Args;
    unsigned LaunchIndent =
        SM.getExpansionColumnNumber(SM.getExpansionLoc(L->getBeginLoc())) - 1;
    for (const VarDecl *V : Ext) {
      const Expr *Init = V->getInit();
      unsigned IB = Off(Init->getBeginLoc());
      std::string T = Text.slice(IB, EndOff(Init->getEndLoc())).str();
      std::vector<std::pair<unsigned, const DeclRefExpr *>> Refs;
      for (const DeclRefExpr *R : statementsIn<DeclRefExpr>(Init))
        Refs.push_back({Off(R->getBeginLoc()) - IB, R});
      std::sort(Refs.rbegin(), Refs.rend());
      for (auto &[At, R] : Refs) {
        unsigned Len = EndOff(R->getEndLoc()) - Off(R->getBeginLoc());
        std::string With;
        if (auto *P = dyn_cast<ParmVarDecl>(R->getDecl())) {
          const Expr *Arg = L->getArg(P->getFunctionScopeIndex());
          const Expr *Bare = Arg->IgnoreImpCasts();
          std::string ArgText = sourceText(Ctx, Arg->getSourceRange());
          bool Simple = isa<DeclRefExpr>(Bare->IgnoreParens()) ||
                        isa<IntegerLiteral>(Bare) || isa<FloatingLiteral>(Bare);
          // The launch converts the argument to the parameter's type; so
          // does the host's expression.
          if (Ctx.hasSameUnqualifiedType(Bare->getType(), P->getType()))
            With = Simple ? ArgText : "(" + ArgText + ")";
          else
            With = "((" +
                   P->getType().getUnqualifiedType().getAsString(
                       Ctx.getPrintingPolicy()) +
                   ")(" + ArgText + "))";
        } else if (auto *W = dyn_cast<VarDecl>(R->getDecl());
                   W && Exprs.count(W)) {
          With = "(" + Exprs[W] + ")";
        } else {
          continue;
        }
        T.replace(At, Len, With);
      }
      Exprs[V] = T;
      Args += ",\n" + std::string(LaunchIndent + 4, ' ') + T;
    }
    if (L->getNumArgs() == 0)
      Args = Args.substr(1);
    // The whole argument list is replaced, so that the formatter lays it
    // out anew rather than appending to a line.
    unsigned ArgsEnd = Off(L->getRParenLoc());
    unsigned ArgsBegin =
        L->getNumArgs() ? Off(L->getArg(0)->getBeginLoc()) : ArgsEnd;
    C.Edits.emplace_back(InFile, ArgsBegin, ArgsEnd - ArgsBegin,
                         Text.slice(ArgsBegin, ArgsEnd).str() + Args);
    // Its comment, on the line before when the launch starts its line.
    SourceLocation LB = SM.getExpansionLoc(L->getBeginLoc());
    unsigned Col = SM.getExpansionColumnNumber(LB), LOff = SM.getFileOffset(LB);
    if (LOff >= Col - 1 && Text.slice(LOff - (Col - 1), LOff).trim().empty())
      C.Edits.emplace_back(InFile, LOff - (Col - 1), 0,
                           std::string(Col - 1, ' ') + DecisionMark + "\n");
  }
  C.Proof = "computed from kernel parameters and constants alone, in "
            "arithmetic the host reproduces bit for bit" +
            std::string(Contracts ? " (no floating-point product to fuse)"
                                  : " (--fmad=false)") +
            "; every launch of it is a `<<<>>>` in this file, with arguments "
            "the host can evaluate again";
  std::sort(C.Edits.begin(), C.Edits.end(),
            [](const tooling::Replacement &A, const tooling::Replacement &B) {
              return A.getOffset() < B.getOffset();
            });
  // An earlier rewrite of the kernel or of a launch (a split) owns it.
  for (const tooling::Replacement &R : C.Edits) {
    unsigned B = R.getOffset(), E = B + std::max(1u, R.getLength());
    bool Edited = TC.claimed(InFile, B, E);
    for (const tooling::Replacement &A : TC.Applied)
      if (A.getFilePath() == R.getFilePath() && A.getOffset() < E &&
          B < A.getOffset() + std::max(1u, A.getLength()))
        Edited = true;
    if (Edited) {
      unsigned L = SM.getLineNumber(
          SM.getFileID(SM.getExpansionLoc(FD->getLocation())), B);
      return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
             Names +
             " not computed by the host: an earlier rewrite edited "
             "line " +
             std::to_string(L) + ", which this one would edit too";
    }
  }
  D = planShare(TC, C, Transform);
  D.File = TC.decisionFileOf(FD->getLocation());
  if (!D.Applied) {
    Report();
    return "";
  }
  TC.takeDecisionId(D, "WW4004", Text);
  bool Kernel = true;
  for (tooling::Replacement &R : C.Edits) {
    std::string T = R.getReplacementText().str();
    std::string What =
        Kernel ? "the launch-uniform " + Names +
                     (Ext.size() > 1 ? " are" : " is") +
                     " computed by the host at each launch and passed as " +
                     (Ext.size() > 1 ? "parameters" : "a parameter") +
                     " (external variable sharing)"
               : "passes the launch-uniform " + Names + " of `" + D.Kernel +
                     "`, computed here";
    // The launches' comments name the decision; the kernel's says what
    // was measured.
    std::string Comment =
        Kernel ? TC.decisionComment(D, What)
               : "// warpwise " + D.Code + " " + D.Id + ": " + What;
    if (fillDecisionMark(T, Comment)) {
      R = tooling::Replacement(R.getFilePath(), R.getOffset(), R.getLength(),
                               T);
      Kernel = false;
    }
  }
  Changes.push_back(
      {"external variable sharing in `" + D.Kernel + "`", C.Edits});
  TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
  for (const tooling::Replacement &R : C.Edits)
    TC.Claimed.push_back(
        {InFile, R.getOffset(), R.getOffset() + std::max(1u, R.getLength())});
  for (const VarDecl *V : Ext)
    Worth.erase(V);
  Report();
  return "";
}

} // namespace share
} // namespace warpwise
