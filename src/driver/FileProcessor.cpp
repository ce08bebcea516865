//===- FileProcessor.cpp - Parse, analyse, plan, transform one file -------===//
//
// The AST handler of one pass of the rewrite: the analysis of the
// translation unit, its kernels' occupancy, and the transformations' plans
// and edits, each transformation under a CrashRecoveryContext so that a
// crash costs its changes to this file, not the run.
//
//===----------------------------------------------------------------------===//
#include "FileProcessor.h"

#include "warpwise/SourceScope.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/CrashRecoveryContext.h"

#include <algorithm>
#include <cstdlib>

namespace warpwise::driver {

namespace {

/// The byte ranges of the branches warpwise already fused or melded: each
/// is a block that opens with warpwise's `// warpwise WW4001 fuse.<kernel>.<n>:
/// ...` (or meld) comment. Every pass claims them before the
/// transformations run, as the pass that wrote them did, so that code
/// warpwise produced is final: fission does not split the loops inside a
/// melded region, and a branch inside it is not merged again.
std::vector<ClaimedRange> producedRegions(clang::ASTContext &Ctx,
                                          const SourceScope &Scope) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::SourceManager &SM;
    const SourceScope &Scope;
    std::vector<ClaimedRange> Found;
    Finder(const clang::SourceManager &SM, const SourceScope &Scope)
        : SM(SM), Scope(Scope) {}
    bool VisitCompoundStmt(clang::CompoundStmt *CS) {
      clang::SourceLocation L = CS->getLBracLoc(), R = CS->getRBracLoc();
      if (L.isInvalid() || R.isInvalid() || L.isMacroID() || R.isMacroID() ||
          !Scope.contains(L) || SM.getFileID(L) != SM.getFileID(R))
        return true;
      unsigned B = SM.getFileOffset(L), E = SM.getFileOffset(R) + 1;
      llvm::StringRef Text = SM.getBufferData(SM.getFileID(L)).slice(B, E);
      // The marker is the block's first line after the brace.
      llvm::StringRef First = Text.drop_front(1).ltrim().split('\n').first;
      // This version's comment (clang-format may have wrapped it), or the
      // one earlier versions wrote.
      bool Ours = First.starts_with("// warpwise WW4001 fuse.") ||
                  First.starts_with("// warpwise WW4001 meld.");
      bool Earlier = (First.starts_with("// warpwise: fused the two sides") ||
                      First.starts_with("// warpwise: melded the two sides")) &&
                     First.ends_with("[WW4001]");
      if (Ours || Earlier)
        Found.push_back({Scope.path(SM.getFileID(L)), B, E});
      return true;
    }
  } F(Ctx.getSourceManager(), Scope);
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  return F.Found;
}

/// The project files that include each project header of the translation
/// unit (headers and the main file; system headers are left out), by
/// normalised absolute path: the include chain from the main file to a
/// header the rewrite edits.
IncludeGraph projectIncluders(const clang::SourceManager &SM) {
  auto pathOf = [&](const clang::SrcMgr::FileInfo &FI) -> std::string {
    clang::OptionalFileEntryRef Entry = FI.getContentCache().OrigEntry;
    if (!Entry || clang::SrcMgr::isSystem(FI.getFileCharacteristic()))
      return "";
    return SourceScope::normalise(Entry->getName());
  };
  IncludeGraph Graph;
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const clang::SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
    if (!E.isFile() || E.getFile().getIncludeLoc().isInvalid())
      continue;
    std::string Header = pathOf(E.getFile());
    clang::FileID By = SM.getFileID(E.getFile().getIncludeLoc());
    bool Invalid = false;
    const clang::SrcMgr::SLocEntry &ByEntry = SM.getSLocEntry(By, &Invalid);
    if (Header.empty() || Invalid || !ByEntry.isFile())
      continue;
    std::string Includer = pathOf(ByEntry.getFile());
    if (!Includer.empty() && Includer != Header)
      Graph[Header].insert(Includer);
  }
  return Graph;
}

/// WARPWISE_DEBUG_BREAK=<transformation>[:nvcc][@<pass>], a testing hook:
/// the first change that transformation makes in the rewrite's first pass
/// (or the one named) gets a line that does not compile (`#error`; with
/// `:nvcc`, one that only nvcc sees, under `#ifdef __NVCC__`), so that the
/// path of WW1012 for a rewrite that does not compile can be tested
/// whatever the transformations get right.
void breakForTesting(const std::string &Transform, unsigned Pass,
                     std::vector<Change> &Changes) {
  const char *Hook = std::getenv("WARPWISE_DEBUG_BREAK");
  if (!Hook || Changes.empty() || Changes.front().Edits.empty())
    return;
  auto [What, InPass] = llvm::StringRef(Hook).split('@');
  auto [Name, Mode] = What.split(':');
  unsigned Wanted = 1;
  if (Name != Transform ||
      (!InPass.empty() && InPass.getAsInteger(10, Wanted)) || Wanted != Pass)
    return;
  std::string Broken =
      Mode == "nvcc"
          ? "\n#ifdef __NVCC__\n#error WARPWISE_DEBUG_BREAK\n#endif\n"
          : "\n#error WARPWISE_DEBUG_BREAK\n";
  clang::tooling::Replacement &R = Changes.front().Edits.front();
  R = clang::tooling::Replacement(R.getFilePath(), R.getOffset(), R.getLength(),
                                  R.getReplacementText().str() + Broken);
}

/// Block size for occupancy: the launches in the file, --block-size, or 256.
void chooseBlockSize(KernelInfo &K, const FileAnalysis &A,
                     std::optional<unsigned> Forced, DiagnosticLog &Log,
                     const std::string &File) {
  if (Forced) {
    K.BlockSize = *Forced;
    K.BlockSizes = {*Forced};
    K.BlockSizeForced = true;
    K.BlockSizeSource = "--block-size";
    return;
  }
  std::vector<unsigned> Seen = launchBlockSizes(A, K.Name);
  std::string FirstPlace;
  for (const LaunchInfo &L : A.Launches)
    if (L.Kernel == K.Name && !L.knownBlockDims().empty()) {
      FirstPlace = launchPlace(L);
      break;
    }
  if (Seen.empty()) {
    K.BlockSize = 256;
    K.BlockSizes = {256};
    K.BlockSizeSource = "default; no launch with a constant block size";
    Log.report(diag::NoLaunchBlockSize, Severity::Remark,
               K.File.empty() ? File : SourceScope::displayPath(K.File), K.Line,
               0,
               "no launch of '" + K.Name +
                   "' in this file has a constant block size; occupancy "
                   "assumes 256 threads (use --block-size)");
    return;
  }
  // With several, the largest is the most register-constrained.
  K.BlockSize = Seen.back();
  K.BlockSizes = Seen;
  K.BlockSizeSource = "launch at " + FirstPlace;
  if (Seen.size() > 1)
    K.BlockSizeSource =
        "largest of " + std::to_string(Seen.size()) + " launch block sizes";
}

} // namespace

void computeKernelOccupancy(FileAnalysis &A, const ArchLimits &Arch,
                            std::optional<unsigned> Forced, DiagnosticLog &Log,
                            const std::string &File) {
  for (KernelInfo &K : A.Kernels) {
    chooseBlockSize(K, A, Forced, Log, File);
    unsigned Regs = K.Ptxas ? K.Ptxas->Registers : K.Registers.MaxLive;
    unsigned long Shared = K.Ptxas ? K.Ptxas->SharedBytes : K.StaticShared;
    for (const LaunchInfo &L : A.Launches)
      if (L.Kernel == K.Name && L.DynamicShared)
        Shared =
            std::max(Shared, (K.Ptxas ? K.Ptxas->SharedBytes : K.StaticShared) +
                                 *L.DynamicShared);
    K.OccupancyRegisterSource = K.Ptxas ? "ptxas" : "estimated";
    K.Occupancy = computeOccupancy(Arch, {Regs, K.BlockSize, Shared});
  }
}

/// Limits \p Ctx's traversals (every visitor that starts at the translation
/// unit, and the parent map) to the top-level declarations outside system
/// headers. The CUDA and C++ headers are most of a translation unit, and no
/// analysis or transformation looks at their declarations: a user's
/// template instantiated from them is still reached through its own
/// template, and code that reads a header declaration follows it from the
/// user's code (a callee's body, a type), not from the unit.
static void traverseUserCodeOnly(clang::ASTContext &Ctx) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  std::vector<clang::Decl *> Kept;
  for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    clang::SourceLocation Loc = D->getLocation();
    if (Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      continue;
    Kept.push_back(D);
  }
  Ctx.setTraversalScope(Kept);
}

void FileProcessor::handleTranslationUnit(clang::ASTContext &Ctx,
                                          const std::string &File) {
  traverseUserCodeOnly(Ctx);
  // The main file and the project headers --header-filter accepts.
  SourceScope Scope(Ctx.getSourceManager(), HeaderFilter);
  Scope.exclude(F.ExcludedHeaders);
  F.Analysis = analyzeTranslationUnit(Ctx, File, &Scope);
  F.FilesRead = projectFilesRead(Ctx.getSourceManager());
  F.Includers = projectIncluders(Ctx.getSourceManager());
  // nvcc's measurements mirror the headers that include an edited one.
  if (Feedback) {
    Feedback->setIncluders(File, F.Includers);
    Feedback->setHeadersRead(File, F.FilesRead);
  }
  // Transformations decide with the block sizes occupancy is computed at.
  computeKernelOccupancy(F.Analysis, Arch, BlockSize, Log, F.Given);
  std::vector<ClaimedRange> Claimed = producedRegions(Ctx, Scope);
  TransformContext TC{Ctx,
                      File,
                      F.Given,
                      F.Contents,
                      F.Analysis,
                      Arch,
                      Costs,
                      Feedback,
                      Log,
                      Claimed,
                      Force,
                      SplitForm,
                      /*CurrentKernel=*/"",
                      /*CurrentLine=*/0,
                      /*DebugCrash=*/false,
                      FmadFalse};
  TC.Scope = &Scope;
  TC.MeldForm = MeldForm;
  TC.MeasuredDispatch = llvm::is_contained(Transforms, "dispatch");
  SteeringRules Steering(Kernels, ConfigPath, availableTransforms(),
                         Transforms);
  TC.Steering = &Steering;
  TC.DecisionIds = &F.DecisionIds;
  const char *CrashHook = std::getenv("WARPWISE_DEBUG_CRASH");
  for (const std::string &Name : Transforms) {
    if (F.Crashed.count(Name))
      continue;
    std::unique_ptr<Transform> T = createTransform(Name);
    std::vector<Change> Changes;
    // A crash in one transformation (a bug warpwise has on code nobody
    // here wrote) costs that transformation's changes to this file, not
    // the run: its decisions and claims are rolled back and the next
    // transformation starts from the state before it.
    size_t DecisionsBefore = F.Decisions.size();
    size_t ClaimedBefore = Claimed.size();
    TC.CurrentKernel.clear();
    TC.CurrentLine = 0;
    TC.DebugCrash = CrashHook && Name == CrashHook;
    llvm::CrashRecoveryContext CRC;
    bool Survived = CRC.RunSafely([&] {
      T->run(TC, F.Decisions, Changes);
      if (TC.DebugCrash) {
        TC.CurrentKernel.clear(); // Its candidates are all done.
        crashForTesting();
      }
    });
    if (!Survived) {
      F.Decisions.resize(DecisionsBefore);
      Claimed.resize(ClaimedBefore);
      F.Crashed.insert(Name);
      std::string Where = TC.CurrentKernel.empty()
                              ? std::string(" (the candidate is unknown)")
                              : " while working on `" + TC.CurrentKernel +
                                    "` at line " +
                                    std::to_string(TC.CurrentLine);
      Log.report(
          diag::InternalError, Severity::Error, F.Given, TC.CurrentLine, 0,
          "internal error: the " + Name + " transformation crashed" + Where +
              "; its changes to this file are dropped and the other "
              "transformations' are kept; please report this with "
              "the file");
      continue;
    }
    breakForTesting(Name, PassNumber, Changes);
    for (const Change &C : Changes) {
      if (llvm::Error E = F.Edits.add(C)) {
        Log.report(diag::OverlappingEdits, Severity::Error, F.Given, 0, 0,
                   llvm::toString(std::move(E)));
        continue;
      }
      TC.Applied.insert(TC.Applied.end(), C.Edits.begin(), C.Edits.end());
      F.PassChanges.push_back(
          {C, Name, decisionOf(C, F.Decisions, DecisionsBefore)});
    }
  }
  // Malformed or unmatched directives, said by the first pass only.
  if (ReportDirectiveProblems)
    for (const auto &[Path, Problems] : Steering.problems()) {
      std::string Shown =
          Path == File ? F.Given : SourceScope::displayPath(Path);
      for (const DirectiveProblem &P : Problems)
        Log.report(diag::BadDirective, Severity::Warning, Shown, P.Line,
                   P.Column, P.Message);
    }
  // The headers edited, with the text the edits' offsets count in (a
  // later pass parses them rewritten; the first to edit one keeps it).
  for (const auto &[Path, Edits] : F.Edits.byFile()) {
    bool Found = false;
    llvm::StringRef Text = Scope.textOf(Path, Found);
    if (Path != File && Found && !Edits.empty())
      F.Headers.emplace(Path, Text.str());
  }
}

/// The applied decision among Decisions[From..] whose comment \p C
/// writes: every transformation names its decision in the code it adds.
std::string FileProcessor::decisionOf(const Change &C,
                                      const std::vector<Decision> &Decisions,
                                      size_t From) {
  for (size_t I = From; I < Decisions.size(); ++I) {
    const Decision &D = Decisions[I];
    if (!D.Applied || D.Id.empty())
      continue;
    for (const clang::tooling::Replacement &R : C.Edits)
      if (R.getReplacementText().contains(" " + D.Id + ":"))
        return D.Id;
  }
  return "";
}

} // namespace warpwise::driver
