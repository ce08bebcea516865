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

/// What the copy's heading says of the original it follows, which
/// keptOriginal looks for (clang-format may wrap it).
constexpr const char *KeptPhrase =
    "stays as written for launches from other files";

/// The first byte of \p FD's definition: its declaration's start, or an
/// attribute written before it (`__global__`, `__launch_bounds__`).
unsigned definitionBegin(const SourceManager &SM, const FunctionDecl *FD,
                         unsigned Begin) {
  FileID File = SM.getFileID(SM.getExpansionLoc(FD->getLocation()));
  for (const Attr *A : FD->attrs()) {
    if (A->isImplicit() || A->isInherited() || A->getLocation().isInvalid())
      continue;
    SourceLocation L = SM.getExpansionRange(A->getRange().getBegin()).getBegin();
    if (SM.getFileID(L) == File && SM.getFileOffset(L) < Begin)
      Begin = SM.getFileOffset(L);
  }
  return Begin;
}

/// Why \p FD, a kernel with external linkage, cannot be rewritten in a copy
/// beside its definition ("" when it can); fills \p K.
std::string prepareCopy(TransformContext &TC, const FunctionDecl *FD,
                        const std::vector<const CUDAKernelCallExpr *> &Launches,
                        const std::vector<KernelCopy> &Copies, KernelCopy &K) {
  ASTContext &Ctx = TC.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(FD->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (R.isInvalid() || FD->getLocation().isMacroID())
    return "part of its definition is written with macros, so it cannot be "
           "copied";
  K.File = TC.fileOf(FD->getLocation());
  K.Begin = definitionBegin(SM, FD, SM.getFileOffset(R.getBegin()));
  K.End = SM.getFileOffset(R.getEnd());
  K.NameAt = SM.getFileOffset(FD->getLocation());
  K.Name = FD->getNameAsString();
  llvm::StringRef Text = TC.textOf(FD->getLocation());
  K.Original = Text.slice(K.Begin, K.End).str();
  auto LineOf = [&](const Decl *D) {
    return std::to_string(SM.getExpansionLineNumber(D->getLocation()));
  };
  const FunctionDecl *Other = nullptr;
  for (const FunctionDecl *D : FD->redecls())
    if (D != FD && !Other)
      Other = D;
  // What an earlier declaration gives the definition, the copy (the
  // definition's text) would not have.
  for (const Attr *A : FD->attrs())
    if (A->isInherited() && Other)
      return "its declaration at line " + LineOf(Other) + " gives it `" +
             std::string(A->getSpelling()) +
             "`, which its definition does not repeat and a copy of the "
             "definition would lack";
  for (const ParmVarDecl *P : FD->parameters())
    if (P->hasInheritedDefaultArg() && Other)
      return "its declaration at line " + LineOf(Other) +
             " gives `" + P->getNameAsString() +
             "` a default argument, which a copy of the definition would lack";
  for (const CUDAKernelCallExpr *L : Launches) {
    std::string At =
        std::to_string(SM.getExpansionLineNumber(L->getBeginLoc()));
    if (SM.getFileOffset(SM.getExpansionLoc(L->getBeginLoc())) < K.Begin)
      return "its launch at line " + At +
             " comes before its definition, after which the copy it would "
             "run is defined";
    if (!isa<DeclRefExpr>(L->getCallee()->IgnoreImpCasts()))
      return "its launch at line " + At +
             " names it in an expression, not by its name alone";
  }
  // Earlier transformations' edits inside the definition go into the copy
  // too; one across its bounds could not.
  for (const tooling::Replacement &A : TC.Applied) {
    if (A.getFilePath() != K.File)
      continue;
    unsigned B = A.getOffset(), E = B + A.getLength();
    bool Inside = B >= K.Begin && E <= K.End &&
                  !(A.getLength() == 0 && (B == K.Begin || B == K.End));
    if (Inside)
      K.Earlier.push_back(A);
    else if (B < K.End && K.Begin < E)
      return "an earlier rewrite edited its definition across its bounds "
             "(line " +
             std::to_string(SM.getLineNumber(
                 SM.getFileID(SM.getExpansionLoc(FD->getLocation())), B)) +
             "), so it cannot be copied";
  }
  std::string N = K.Name + "_ww_share";
  K.CopyName = N;
  auto Taken = [&](const std::string &Name) {
    return Text.contains(Name) ||
           llvm::any_of(Copies, [&](const KernelCopy &C) {
             return C.CopyName == Name;
           });
  };
  for (unsigned I = 2; Taken(K.CopyName); ++I)
    K.CopyName = N + "_" + std::to_string(I);
  return "";
}

/// This file's launches run \p K's copy.
std::vector<tooling::Replacement>
launchesOfCopy(const SourceManager &SM, const KernelCopy &K,
               const std::vector<const CUDAKernelCallExpr *> &Launches) {
  std::vector<tooling::Replacement> Edits;
  for (const CUDAKernelCallExpr *L : Launches) {
    const auto *Callee = cast<DeclRefExpr>(L->getCallee()->IgnoreImpCasts());
    Edits.emplace_back(
        K.File, SM.getFileOffset(SM.getExpansionLoc(Callee->getLocation())),
        K.Name.size(), K.CopyName);
  }
  return Edits;
}

} // namespace

bool keptOriginal(TransformContext &TC, const FunctionDecl *FD) {
  const SourceManager &SM = TC.Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(FD->getSourceRange()), SM,
      TC.Ctx.getLangOpts());
  if (R.isInvalid())
    return false;
  // The comment lines that follow the definition (the copy's heading),
  // joined.
  llvm::StringRef After =
      TC.textOf(FD->getLocation()).substr(SM.getFileOffset(R.getEnd()));
  std::string Joined;
  for (After = After.ltrim(); After.starts_with("//");
       After = After.split('\n').second.ltrim(" \t\r"))
    Joined += After.split('\n').first.drop_front(2).trim().str() + " ";
  return llvm::StringRef(Joined).starts_with("warpwise WW4004 share.") &&
         llvm::StringRef(Joined).contains(KeptPhrase);
}

void moveIntoCopies(TransformContext &TC, const std::vector<KernelCopy> &Copies,
                    std::vector<Change> &Changes) {
  for (const KernelCopy &K : Copies) {
    tooling::Replacements Inside;
    llvm::Error Failed = llvm::Error::success();
    auto Add = [&](const tooling::Replacement &R) {
      if (Failed)
        return;
      Failed = Inside.add(tooling::Replacement("", R.getOffset() - K.Begin,
                                               R.getLength(),
                                               R.getReplacementText()));
    };
    for (const tooling::Replacement &R : K.Earlier)
      Add(R);
    Add(tooling::Replacement("", K.NameAt, K.Name.size(), K.CopyName));
    for (Change &C : Changes) {
      std::vector<tooling::Replacement> Kept;
      for (const tooling::Replacement &R : C.Edits) {
        unsigned B = R.getOffset(), E = B + R.getLength();
        if (R.getFilePath() == K.File && B >= K.Begin && E <= K.End &&
            !(R.getLength() == 0 && (B == K.Begin || B == K.End)))
          Add(R);
        else
          Kept.push_back(R);
      }
      C.Edits = Kept;
    }
    auto Copy = Failed ? llvm::Expected<std::string>(std::move(Failed))
                       : tooling::applyAllReplacements(K.Original, Inside);
    if (!Copy) {
      // A bug: the kernel's edits are dropped rather than left on the
      // original, whose signature other files rely on.
      TC.Log.report(diag::InternalError, Severity::Error, TC.Display, 0, 0,
                    "internal error: the rewrite of `" + K.Name +
                        "` could not be moved into its copy (" +
                        llvm::toString(Copy.takeError()) +
                        "); its external variable sharing is dropped");
      Changes[K.Change].Edits.clear();
      continue;
    }
    Changes[K.Change].Edits.emplace_back(
        K.File, K.End, 0, "\n\n" + K.Heading + "\nstatic " + *Copy);
  }
}

namespace {

/// One kernel's external sharing, step by step: which values the host can
/// compute, whether every launch can pass them, the edits, and the
/// decision. The steps share the kernel's state, kept here.
class ExternalShare {
public:
  ExternalShare(TransformContext &TC, const char *Transform,
                const FunctionDecl *FD,
                const std::set<const VarDecl *> &WrittenParams,
                std::vector<Decision> &Decisions, std::vector<Change> &Changes,
                std::vector<KernelCopy> &Copies)
      : TC(TC), Ctx(TC.Ctx), SM(Ctx.getSourceManager()), Transform(Transform),
        FD(FD), WrittenParams(WrittenParams), Decisions(Decisions),
        Changes(Changes), Copies(Copies) {}

  std::string run(const std::vector<const VarDecl *> &Order,
                  std::map<const VarDecl *, Candidate> &Cands,
                  std::set<const VarDecl *> &Worth, const ClosureFn &Closure);

private:
  void chooseHostValues(const std::vector<const VarDecl *> &Order,
                        std::map<const VarDecl *, Candidate> &Cands,
                        const std::set<const VarDecl *> &Worth,
                        const ClosureFn &Closure);
  std::string launchRefusal();
  std::string argumentRefusal();
  std::string kernelEdits();
  std::string launchArguments(const CUDAKernelCallExpr *L) const;
  void launchEdits();
  std::string proof() const;
  std::string earlierEditRefusal() const;
  void apply(std::set<const VarDecl *> &Worth);

  /// The reason for the internal decision when the values stay on the
  /// device because of \p Refusal.
  std::string notByHost(const std::string &Refusal) const {
    return Why + std::string(Why.empty() ? "" : "; ") + "launch-uniform " +
           Names + " not computed by the host: " + Refusal;
  }
  void Report() {
    TC.Log.report(
        D.Applied ? "WW4004" : "WW3004", Severity::Remark,
        TC.displayOf(FD->getLocation()), Line,
        SM.getExpansionColumnNumber(
            SM.getExpansionRange(Ext.front()->getBeginLoc()).getBegin()),
        std::string(Transform) + ": " + D.Reason);
    Decisions.push_back(D);
  }
  unsigned Off(SourceLocation L) const {
    return SM.getFileOffset(SM.getExpansionLoc(L));
  }
  unsigned EndOff(SourceLocation L) const {
    return SM.getFileOffset(Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(L), 0, SM, Ctx.getLangOpts()));
  }
  static std::string Name(const VarDecl *V) {
    return "`" + V->getNameAsString() + "`";
  }

  TransformContext &TC;
  ASTContext &Ctx;
  const SourceManager &SM;
  const char *Transform;
  const FunctionDecl *FD;
  const std::set<const VarDecl *> &WrittenParams;
  std::vector<Decision> &Decisions;
  std::vector<Change> &Changes;
  std::vector<KernelCopy> &Copies;

  bool Contracts = false; ///< nvcc contracts products (fmad).
  /// Every value the host could compute, before the internal fill takes
  /// back what it needs: HostSlice lets one read another.
  std::map<const VarDecl *, std::string> Host;
  std::vector<const VarDecl *> Ext; ///< The values the host computes.
  std::map<const VarDecl *, std::string> HostName; ///< Their parameters.
  std::string Why; ///< Why other launch-uniform values stay on the device.
  std::string Names;
  unsigned Line = 0;
  Decision D;
  std::string Where;
  std::vector<const CUDAKernelCallExpr *> Launches;
  KernelCopy Copy;
  bool Copied = false; ///< External linkage: the rewrite goes to a copy.
  std::string InFile;
  llvm::StringRef Text;
  ShareCandidate C;
};

std::string ExternalShare::run(const std::vector<const VarDecl *> &Order,
                               std::map<const VarDecl *, Candidate> &Cands,
                               std::set<const VarDecl *> &Worth,
                               const ClosureFn &Closure) {
  chooseHostValues(Order, Cands, Worth, Closure);
  if (Ext.empty())
    return Why;
  for (const VarDecl *V : Ext)
    Names += std::string(Names.empty() ? "" : ", ") + Name(V);
  Line = SM.getExpansionLineNumber(Ext.front()->getBeginLoc());
  D.Transform = Transform;
  D.Kernel = FD->getNameAsString();
  D.Line = Line;
  D.Form = "external";
  D.File = TC.decisionFileOf(FD->getLocation());
  Where = "`" + D.Kernel + "` (launch-uniform " + Names + ")";
  Steer Steering = TC.steer(Transform, FD, Ext.front()->getBeginLoc());
  if (Steering.disabled()) {
    D.Reason = Where + ": disabled by " + Steering.Source + "; not considered";
    Report();
    return "";
  }
  SteerScope Steered(TC, Steering, Transform);
  std::string Refusal = launchRefusal();
  if (!Refusal.empty())
    return notByHost(Refusal);
  Refusal = kernelEdits();
  if (!Refusal.empty())
    return notByHost(Refusal);
  launchEdits();
  C.Proof = proof();
  std::sort(C.Edits.begin(), C.Edits.end(),
            [](const tooling::Replacement &A, const tooling::Replacement &B) {
              return A.getOffset() < B.getOffset();
            });
  Refusal = earlierEditRefusal();
  if (!Refusal.empty())
    return notByHost(Refusal);
  D = planShare(TC, C, Transform);
  D.File = TC.decisionFileOf(FD->getLocation());
  if (!D.Applied) {
    Report();
    return "";
  }
  apply(Worth);
  return "";
}

/// The launch-uniform scalars among \p Worth that the host computes bit for
/// bit: one fill, no load, nothing per block, and arithmetic the build does
/// not approximate or contract; those the internal fill needs stay with it.
/// Fills Ext, and Why for the others.
void ExternalShare::chooseHostValues(
    const std::vector<const VarDecl *> &Order,
    std::map<const VarDecl *, Candidate> &Cands,
    const std::set<const VarDecl *> &Worth, const ClosureFn &Closure) {
  bool Approximate;
  floatFlags(TC, Approximate, Contracts);
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
}

/// The kernel's parameters change: every launch must be in view. A kernel
/// with external linkage, which other files may declare and launch, is
/// rewritten in a copy with internal linkage that this file's launches
/// run; its definition stays as written. Why not ("" when it can).
std::string ExternalShare::launchRefusal() {
  std::string Refusal;
  const DeclRefExpr *Other = nullptr;
  Copied = FD->isExternallyVisible();
  if (FD->isTemplated() || FD->isTemplateInstantiation() ||
      FD->isFunctionTemplateSpecialization())
    Refusal = "it is a template";
  else if (!D.File.empty())
    Refusal = "it is defined in a header";
  for (const FunctionDecl *R : FD->redecls())
    if (R != FD && Refusal.empty() && !Copied)
      Refusal = "it is declared at line " +
                std::to_string(SM.getExpansionLineNumber(R->getLocation())) +
                " as well, with the parameters the rewrite would change";
  if (Refusal.empty()) {
    launchesOf(Ctx, FD, Launches, Other);
    if (Other)
      Refusal =
          "it is named at line " +
          std::to_string(SM.getExpansionLineNumber(Other->getBeginLoc())) +
          " other than in a `<<<>>>` launch (its address, a launch API, an "
          "attribute or occupancy query), " +
          (Copied ? "which would name the original kernel, not the copy "
                    "that this file's launches would run"
                  : "where the new parameters would not be passed");
    else if (Launches.empty())
      Refusal = "no launch of it is in this file";
  }
  if (Refusal.empty() && Copied)
    Refusal = prepareCopy(TC, FD, Launches, Copies, Copy);
  if (Refusal.empty())
    Refusal = argumentRefusal();
  return Refusal;
}

/// Each launch passes the parameters the host's values read as
/// expressions the host can evaluate again, written in this file outside
/// macros. Why not ("" when it does).
std::string ExternalShare::argumentRefusal() {
  std::set<const ParmVarDecl *> Params;
  for (const VarDecl *V : Ext) {
    HostSlice H(FD, Host, WrittenParams);
    H.check(V->getInit(), Ctx);
    Params.insert(H.Params.begin(), H.Params.end());
  }
  std::string Refusal;
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
  return Refusal;
}

/// The kernel's edits: new parameters, and the initializers read them.
/// Why they cannot be made ("" when they can).
std::string ExternalShare::kernelEdits() {
  InFile = TC.fileOf(FD->getLocation());
  Text = TC.textOf(FD->getLocation());
  for (const VarDecl *V : Ext) {
    std::string N = "ww_host_" + V->getNameAsString(), Unique = N;
    for (unsigned K = 2; Text.contains(Unique); ++K)
      Unique = N + "_" + std::to_string(K);
    HostName[V] = Unique;
  }
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
  if (!FTL)
    return "its parameter list is not written out";
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
  return "";
}

/// What launch \p L appends to its arguments: the host's expression of each
/// value, with the launch's arguments in place of the parameters (converted
/// as the launch converts them) and the values' own host expressions for
/// those they use.
std::string
ExternalShare::launchArguments(const CUDAKernelCallExpr *L) const {
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
  return Args;
}

/// Every launch passes the host's values, and gets the decision's comment.
void ExternalShare::launchEdits() {
  for (const CUDAKernelCallExpr *L : Launches) {
    std::string Args = launchArguments(L);
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
}

/// What the legality checks established, for the decision's remark.
std::string ExternalShare::proof() const {
  return "computed from kernel parameters and constants alone, in "
         "arithmetic the host reproduces bit for bit" +
         std::string(Contracts ? " (no floating-point product to fuse)"
                               : " (--fmad=false)") +
         "; every launch of it is a `<<<>>>` in this file, with arguments "
         "the host can evaluate again" +
         (Copied ? "; `" + D.Kernel +
                       "` has external linkage, so other files may launch "
                       "it: it stays as written, and the rewrite is `" +
                       Copy.CopyName +
                       "`, a copy with internal linkage that this file's "
                       "launches run"
                 : "");
}

/// An earlier rewrite of the kernel or of a launch (a split) owns it: why
/// ("" when none edited what this one would).
std::string ExternalShare::earlierEditRefusal() const {
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
      return "an earlier rewrite edited line " + std::to_string(L) +
             ", which this one would edit too";
    }
  }
  return "";
}

/// The applied rewrite: the decision's comments, the change (and the copy
/// it goes to), what it claims, and the report. What it shares leaves
/// \p Worth.
void ExternalShare::apply(std::set<const VarDecl *> &Worth) {
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
  // Later candidates are measured with the rewrite in place, as this one
  // was; the copy is made once the kernel's decisions are all made.
  TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
  if (Copied) {
    std::vector<tooling::Replacement> Renamed =
        launchesOfCopy(SM, Copy, Launches);
    C.Edits.insert(C.Edits.end(), Renamed.begin(), Renamed.end());
    // The copy's heading; keptOriginal finds the original by it.
    Copy.Heading = "// warpwise " + D.Code + " " + D.Id + ": `" +
                   Copy.CopyName + "`, a copy of `" + D.Kernel +
                   "` with internal linkage, which this file's launches "
                   "run; `" +
                   D.Kernel + "`, above, has external linkage: it " +
                   KeptPhrase;
    Copy.Change = Changes.size();
    Copies.push_back(Copy);
  }
  Changes.push_back({"external variable sharing in `" + D.Kernel + "`" +
                         (Copied ? " (in its copy `" + Copy.CopyName + "`)"
                                 : ""),
                     C.Edits});
  for (const tooling::Replacement &R : C.Edits)
    TC.Claimed.push_back(
        {InFile, R.getOffset(), R.getOffset() + std::max(1u, R.getLength())});
  for (const VarDecl *V : Ext)
    Worth.erase(V);
  Report();
  if (Copied)
    TC.Log.report(diag::LaunchedElsewhere, Severity::Note,
                  TC.displayOf(FD->getLocation()),
                  SM.getExpansionLineNumber(FD->getLocation()), 0,
                  "`" + D.Kernel +
                      "` has external linkage, so other files may launch "
                      "it: its definition stays as written, and this file's "
                      "launches run `" +
                      Copy.CopyName +
                      "`, the copy that external variable sharing rewrote "
                      "(declare it `static` if this file is its only "
                      "launcher)");
}

} // namespace

std::string shareExternally(TransformContext &TC, const char *Transform,
                            const FunctionDecl *FD,
                            const std::vector<const VarDecl *> &Order,
                            std::map<const VarDecl *, Candidate> &Cands,
                            std::set<const VarDecl *> &Worth,
                            const std::set<const VarDecl *> &WrittenParams,
                            const ClosureFn &Closure,
                            std::vector<Decision> &Decisions,
                            std::vector<Change> &Changes,
                            std::vector<KernelCopy> &Copies) {
  return ExternalShare(TC, Transform, FD, WrittenParams, Decisions, Changes,
                       Copies)
      .run(Order, Cands, Worth, Closure);
}

} // namespace share
} // namespace warpwise
