//===- KernelCollector.cpp - Kernels and launches of a translation unit ---===//
#include "warpwise/Analysis.h"

#include "AnalysisInternal.h"
#include "MemoryAccess.h"

#include "warpwise/SourceScope.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <map>
#include <set>

namespace warpwise {

using namespace clang;

const char *uniformityName(Uniformity U) {
  switch (U) {
  case Uniformity::Uniform:
    return "uniform";
  case Uniformity::BlockUniform:
    return "block-uniform";
  case Uniformity::WarpUniform:
    return "warp-uniform";
  case Uniformity::Divergent:
    return "divergent";
  }
  return "divergent";
}

namespace {

/// True when \p V is written anywhere in \p Body after its initialisation
/// (assigned, incremented, address taken, bound to a non-const reference, or
/// a member of it assigned).
class ModificationFinder : public RecursiveASTVisitor<ModificationFinder> {
public:
  explicit ModificationFinder(const VarDecl *V) : V(V) {}
  bool Found = false;

  bool refersToV(const Expr *E) const {
    E = E->IgnoreParenImpCasts();
    while (auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase()->IgnoreParenImpCasts();
    auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref && Ref->getDecl() == V;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (B->isAssignmentOp() && refersToV(B->getLHS()))
      Found = true;
    return !Found;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if ((U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
        refersToV(U->getSubExpr()))
      Found = true;
    return !Found;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) {
    if (C->isAssignmentOp() && C->getNumArgs() > 0 && refersToV(C->getArg(0)))
      Found = true;
    return !Found;
  }
  bool VisitCallExpr(CallExpr *C) {
    // Passing it by non-const reference may modify it.
    const FunctionDecl *F = C->getDirectCallee();
    for (unsigned I = 0; I < C->getNumArgs(); ++I) {
      if (!refersToV(C->getArg(I)))
        continue;
      if (!F || I >= F->getNumParams()) {
        continue;
      }
      QualType T = F->getParamDecl(I)->getType();
      if (T->isReferenceType() && !T->getPointeeType().isConstQualified())
        Found = true;
    }
    return !Found;
  }

private:
  const VarDecl *V;
};

const FunctionDecl *enclosingFunction(ASTContext &Ctx, const Stmt *S) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    if (auto *F = Parents[0].get<FunctionDecl>())
      return F;
    if (auto *St = Parents[0].get<Stmt>())
      Parents = Ctx.getParents(*St);
    else if (auto *D = Parents[0].get<Decl>())
      Parents = Ctx.getParents(*D);
    else
      break;
  }
  return nullptr;
}

/// A local variable's initialiser when it is never modified afterwards.
const Expr *unmodifiedInit(ASTContext &Ctx, const Expr *E, const Stmt *Use) {
  auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!Ref)
    return nullptr;
  auto *V = dyn_cast<VarDecl>(Ref->getDecl());
  if (!V || !V->hasLocalStorage() || !V->hasInit())
    return nullptr;
  const FunctionDecl *F = enclosingFunction(Ctx, Use);
  if (!F || !F->getBody())
    return nullptr;
  ModificationFinder Finder(V);
  Finder.TraverseStmt(F->getBody());
  return Finder.Found ? nullptr : V->getInit();
}

/// Constant integer value of \p E, following unmodified local variables.
std::optional<long> constantInt(ASTContext &Ctx, const Expr *E,
                                const Stmt *Use, int Depth = 0) {
  if (!E || Depth > 4)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->getType()->isIntegralOrEnumerationType() &&
      E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getSExtValue();
  if (const Expr *Init = unmodifiedInit(Ctx, E, Use))
    return constantInt(Ctx, Init, Use, Depth + 1);
  if (auto *B = dyn_cast<BinaryOperator>(E)) {
    auto L = constantInt(Ctx, B->getLHS(), Use, Depth + 1);
    auto Rt = constantInt(Ctx, B->getRHS(), Use, Depth + 1);
    if (L && Rt) {
      switch (B->getOpcode()) {
      case BO_Add:
        return *L + *Rt;
      case BO_Sub:
        return *L - *Rt;
      case BO_Mul:
        return *L * *Rt;
      case BO_Div:
        return *Rt ? std::optional<long>(*L / *Rt) : std::nullopt;
      case BO_Shl:
        return *L << *Rt;
      default:
        break;
      }
    }
  }
  return std::nullopt;
}

/// The block shape of a launch: an integer, a dim3 built from constants, or
/// an unmodified local variable holding either.
std::optional<std::array<unsigned, 3>> constantDims(ASTContext &Ctx,
                                                    const Expr *E,
                                                    const Stmt *Use,
                                                    int Depth = 0) {
  if (!E || Depth > 4)
    return std::nullopt;
  E = E->IgnoreImplicit();
  if (auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
    E = Temp->getSubExpr()->IgnoreImplicit();
  if (auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  if (auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() == 1 &&
        !Construct->getArg(0)->getType()->isIntegralOrEnumerationType())
      return constantDims(Ctx, Construct->getArg(0), Use, Depth + 1);
    std::array<unsigned, 3> D = {1, 1, 1};
    for (unsigned I = 0; I < Construct->getNumArgs() && I < 3; ++I) {
      const Expr *Arg = Construct->getArg(I);
      if (isa<CXXDefaultArgExpr>(Arg))
        continue;
      auto V = constantInt(Ctx, Arg, Use);
      if (!V || *V <= 0)
        return std::nullopt;
      D[I] = *V;
    }
    return D;
  }
  if (E->getType()->isIntegralOrEnumerationType()) {
    auto V = constantInt(Ctx, E, Use);
    if (!V || *V <= 0)
      return std::nullopt;
    return std::array<unsigned, 3>{(unsigned)*V, 1, 1};
  }
  if (const Expr *Init = unmodifiedInit(Ctx, E, Use))
    return constantDims(Ctx, Init, Use, Depth + 1);
  return std::nullopt;
}

/// A kernel's name as ptxas reports it: mangled as the kernel itself (on the
/// host side the default would name its launch stub, `__device_stub__...`).
std::string kernelMangledName(MangleContext &Mangler, const FunctionDecl *FD) {
  if (!Mangler.shouldMangleDeclName(FD))
    return FD->getNameAsString();
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  Mangler.mangleName(GlobalDecl(FD, KernelReferenceKind::Kernel), OS);
  return OS.str();
}

/// The name of the kernel a launch calls, also when the callee is still a
/// dependent template-id (`k<N><<<...>>>` inside a template).
std::string launchedKernelName(const CUDAKernelCallExpr *Call) {
  if (const FunctionDecl *Callee = Call->getDirectCallee())
    return Callee->getNameAsString();
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (auto *Lookup = dyn_cast<OverloadExpr>(Callee))
    return Lookup->getName().getAsString();
  return "";
}

class LaunchCollector : public RecursiveASTVisitor<LaunchCollector> {
public:
  LaunchCollector(ASTContext &Ctx, FileAnalysis &Out, const SourceScope &Scope)
      : Ctx(Ctx), Out(Out), Scope(Scope) {
    Mangler.reset(Ctx.createMangleContext());
  }

  /// Per instantiation of a template kernel: its launches' block sizes,
  /// or none at all once one launch of it shows no constant size.
  void finish() {
    for (auto &[Mangled, Sizes] : InstanceSizes)
      if (!UnknownInstances.count(Mangled))
        Out.InstanceBlockSizes[Mangled].assign(Sizes.begin(), Sizes.end());
  }

  // A launch written in a function template is recorded once, as written;
  // its instantiations only add the block shapes they launch with.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
    SourceManager &SM = Ctx.getSourceManager();
    SourceLocation Loc = Call->getBeginLoc();
    // Launches in the main file and in the project's headers (a host
    // wrapper beside its kernel, as in cuda-samples HSOpticalFlow): their
    // block sizes are the ones this translation unit uses. A launch in a
    // system header (a library's) is not the project's.
    if (!Scope.contains(Loc))
      return true;
    std::string File;
    FileID FID = SM.getFileID(SM.getExpansionLoc(Loc));
    if (FID != SM.getMainFileID())
      File = Scope.path(FID);
    const FunctionDecl *Caller = enclosingFunction(Ctx, Call);
    const CallExpr *Config = Call->getConfig();
    std::optional<std::array<unsigned, 3>> Dims;
    if (Config && Config->getNumArgs() >= 2)
      Dims = constantDims(Ctx, Config->getArg(1), Call);
    noteInstanceLaunch(Call, Dims);
    if (Caller && Caller->isTemplateInstantiation()) {
      addInstance(File, SM.getExpansionLineNumber(Loc),
                  SM.getExpansionColumnNumber(Loc), Dims);
      return true;
    }
    LaunchInfo L;
    L.File = std::move(File);
    L.InMacro = Loc.isMacroID();
    L.Line = SM.getExpansionLineNumber(Loc);
    L.Column = SM.getExpansionColumnNumber(Loc);
    L.Kernel = launchedKernelName(Call);
    if (Caller)
      L.Caller = Caller->getNameAsString();
    if (Config && Config->getNumArgs() >= 2) {
      L.GridText = text(Config->getArg(0));
      L.BlockText = text(Config->getArg(1));
      if (L.GridText == "?" || L.BlockText == "?") {
        std::vector<std::string> Written = writtenConfig(Call);
        if (Written.size() >= 2) {
          L.GridText = Written[0];
          L.BlockText = Written[1];
        }
      }
      L.BlockDims = Dims;
      if (L.BlockDims)
        L.BlockThreads = (*L.BlockDims)[0] * (*L.BlockDims)[1] *
                         (*L.BlockDims)[2];
      if (Config->getNumArgs() >= 3 &&
          !isa<CXXDefaultArgExpr>(Config->getArg(2))) {
        if (auto V = constantInt(Ctx, Config->getArg(2), Call))
          L.DynamicShared = *V;
      } else {
        L.DynamicShared = 0;
      }
    }
    Out.Launches.push_back(std::move(L));
    return true;
  }

private:
  /// A launch of a specialization of a template kernel (in plain code or in
  /// an instantiation): the size it launches that instantiation with.
  void noteInstanceLaunch(const CUDAKernelCallExpr *Call,
                          const std::optional<std::array<unsigned, 3>> &Dims) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getPrimaryTemplate())
      return;
    std::string Mangled = kernelMangledName(*Mangler, Callee);
    if (!Dims)
      UnknownInstances.insert(Mangled);
    else
      InstanceSizes[Mangled].insert((*Dims)[0] * (*Dims)[1] * (*Dims)[2]);
  }

  void addInstance(const std::string &File, unsigned Line, unsigned Column,
                   const std::optional<std::array<unsigned, 3>> &Dims) {
    for (LaunchInfo &L : Out.Launches) {
      if (L.File != File || L.Line != Line || L.Column != Column)
        continue;
      if (!Dims)
        L.InstanceDimsUnknown = true;
      else if (std::find(L.InstanceBlockDims.begin(), L.InstanceBlockDims.end(),
                         *Dims) == L.InstanceBlockDims.end())
        L.InstanceBlockDims.push_back(*Dims);
      return;
    }
  }

  /// The configuration as written between `<<<` and `>>>`, split at its
  /// top-level commas; empty when the launch is not plain source text.
  std::vector<std::string> writtenConfig(const CUDAKernelCallExpr *Call) const {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation From = Call->getCallee()->getEndLoc();
    if (From.isInvalid() || From.isMacroID())
      return {};
    bool Invalid = false;
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(From), &Invalid);
    if (Invalid)
      return {};
    size_t Open = Buffer.find("<<<", SM.getFileOffset(From));
    if (Open == llvm::StringRef::npos)
      return {};
    std::vector<std::string> Parts(1);
    int Depth = 0;
    for (size_t I = Open + 3; I < Buffer.size(); ++I) {
      if (Depth == 0 && Buffer.substr(I).starts_with(">>>")) {
        for (std::string &P : Parts)
          P = llvm::StringRef(P).trim().str();
        return Parts;
      }
      char C = Buffer[I];
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
      else if (C == ')' || C == ']' || C == '}')
        --Depth;
      if (C == ',' && Depth == 0)
        Parts.emplace_back();
      else
        Parts.back() += C;
    }
    return {};
  }

  std::string text(const Expr *E) const {
    // A launch from device code (-fgpu-rdc) wraps its configuration in
    // implicit calls whose range is the `<<<` token: the written argument
    // is below them.
    for (const Expr *X : {E, E->IgnoreImplicit(), E->IgnoreParenImpCasts()}) {
      CharSourceRange R = CharSourceRange::getTokenRange(X->getSourceRange());
      std::string T =
          Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts())
              .str();
      if (!T.empty() && T.find("<<<") == std::string::npos &&
          T.find(">>>") == std::string::npos)
        return T;
    }
    return "?";
  }
  ASTContext &Ctx;
  FileAnalysis &Out;
  const SourceScope &Scope;
  std::unique_ptr<MangleContext> Mangler;
  std::map<std::string, std::set<unsigned>> InstanceSizes;
  std::set<std::string> UnknownInstances;
};

BlockShape shapeFor(const std::string &Kernel, const FileAnalysis &A) {
  BlockShape S;
  std::vector<const LaunchInfo *> Seen;
  bool AllKnown = true, OneD = true, XMul = true, XYMul = true;
  bool InHeaders = false;
  for (const LaunchInfo &L : A.Launches) {
    if (L.Kernel != Kernel)
      continue;
    Seen.push_back(&L);
    InHeaders |= !L.File.empty();
    std::vector<std::array<unsigned, 3>> Shapes = L.knownBlockDims();
    if (Shapes.empty()) {
      AllKnown = false;
      continue;
    }
    for (auto [X, Y, Z] : Shapes) {
      OneD &= Y == 1 && Z == 1;
      XMul &= X % 32 == 0;
      XYMul &= (X * Y) % 32 == 0;
    }
  }
  if (Seen.empty() || !AllKnown)
    return S;
  S.Known = true;
  S.OneDimensional = OneD;
  S.XMultipleOf32 = XMul;
  S.XYMultipleOf32 = XYMul;
  S.Evidence = Seen.size() == 1
                   ? "the launch at " + launchPlace(*Seen.front())
                   : "all " + std::to_string(Seen.size()) + " launches in " +
                         (InHeaders ? "this file and its headers"
                                    : "this file");
  return S;
}

class KernelVisitor : public RecursiveASTVisitor<KernelVisitor> {
public:
  KernelVisitor(ASTContext &Ctx, FileAnalysis &Out, DivergenceAnalysis &DA,
                const SourceScope &Scope)
      : Ctx(Ctx), Out(Out), DA(DA), Scope(Scope) {
    Mangler.reset(Ctx.createMangleContext());
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody() ||
        FD->isTemplateInstantiation())
      return true;
    const SourceManager &SM = Ctx.getSourceManager();
    if (!Scope.contains(FD->getLocation()))
      return true;
    KernelInfo K;
    K.Name = FD->getNameAsString();
    FileID FID = SM.getFileID(SM.getExpansionLoc(FD->getLocation()));
    if (FID != SM.getMainFileID())
      K.File = Scope.path(FID);
    K.Line = SM.getExpansionLineNumber(FD->getLocation());
    K.IsTemplate = FD->getDescribedFunctionTemplate() != nullptr;
    if (!K.IsTemplate)
      K.MangledName = kernelMangledName(*Mangler, FD);
    analyzeKernelBody(Ctx, FD, shapeFor(K.Name, Out), DA, K);
    Out.Kernels.push_back(std::move(K));
    return true;
  }

private:
  ASTContext &Ctx;
  FileAnalysis &Out;
  DivergenceAnalysis &DA;
  const SourceScope &Scope;
  std::unique_ptr<MangleContext> Mangler;
};

} // namespace

std::string launchPlace(const LaunchInfo &L) {
  std::string Place = "line " + std::to_string(L.Line);
  if (!L.File.empty())
    Place += " of " + SourceScope::displayPath(L.File);
  return Place;
}

std::vector<unsigned> launchBlockSizes(const FileAnalysis &A,
                                       const std::string &Kernel) {
  std::vector<unsigned> Sizes;
  for (const LaunchInfo &L : A.Launches)
    if (L.Kernel == Kernel)
      for (const std::array<unsigned, 3> &D : L.knownBlockDims())
        Sizes.push_back(D[0] * D[1] * D[2]);
  std::sort(Sizes.begin(), Sizes.end());
  Sizes.erase(std::unique(Sizes.begin(), Sizes.end()), Sizes.end());
  return Sizes;
}

std::string kernelSymbolName(ASTContext &Ctx, const FunctionDecl *FD) {
  std::unique_ptr<MangleContext> Mangler(Ctx.createMangleContext());
  return kernelMangledName(*Mangler, FD);
}

std::vector<unsigned> blockSizesFor(const FileAnalysis &A, const KernelInfo &K,
                                    const std::string &Mangled) {
  if (K.BlockSizeForced)
    return K.BlockSizes;
  auto Own = A.InstanceBlockSizes.find(Mangled);
  if (!Mangled.empty() && Own != A.InstanceBlockSizes.end() &&
      !Own->second.empty())
    return Own->second;
  if (!K.BlockSizes.empty())
    return K.BlockSizes;
  return {K.BlockSize ? K.BlockSize : 256};
}

FileAnalysis analyzeTranslationUnit(ASTContext &Ctx, const std::string &File,
                                    const SourceScope *Scope) {
  // Without a scope, the main file only (an empty filter says so).
  SourceScope MainOnly(Ctx.getSourceManager(), "");
  const SourceScope &In = Scope ? *Scope : MainOnly;
  forgetCallSummaries();
  FileAnalysis Out;
  Out.File = File;
  LaunchCollector Launches(Ctx, Out, In);
  Launches.TraverseDecl(Ctx.getTranslationUnitDecl());
  Launches.finish();
  DivergenceAnalysis DA(Ctx);
  KernelVisitor Kernels(Ctx, Out, DA, In);
  Kernels.TraverseDecl(Ctx.getTranslationUnitDecl());
  Out.DeviceFunctions = collectDeviceFunctions(Ctx, DA, In);
  return Out;
}

} // namespace warpwise
