//===- TransformContext.cpp - Files, text and measurements for transforms -===//
//
// A kernel may be defined in the main file or in a project header; so may
// any statement a transformation edits. These helpers give a transformation
// the file, text and display name of the place it edits, so that each
// Replacement names its own file, and compile the translation unit with a
// candidate's edits applied wherever they are.
//
//===----------------------------------------------------------------------===//
#include "warpwise/Feedback.h"
#include "warpwise/Ptxas.h"
#include "warpwise/Transform.h"

#include <future>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

namespace warpwise {

using namespace clang;

std::string TransformContext::nextDecisionId(llvm::StringRef Transform,
                                             llvm::StringRef Kernel,
                                             llvm::StringRef Text) const {
  std::string Key = (Transform + "." + Kernel).str();
  unsigned Last = 0;
  if (DecisionIds) {
    auto It = DecisionIds->find(Key);
    if (It != DecisionIds->end())
      Last = It->second;
  }
  // Names a rewrite of this text already holds.
  for (size_t At = Text.find(Key + "."); At != llvm::StringRef::npos;
       At = Text.find(Key + ".", At + 1)) {
    llvm::StringRef Digits =
        Text.drop_front(At + Key.size() + 1).take_while(llvm::isDigit);
    unsigned N = 0;
    if (!Digits.getAsInteger(10, N))
      Last = std::max(Last, N);
  }
  return Key + "." + std::to_string(Last + 1);
}

void TransformContext::takeDecisionId(Decision &D, const char *Code,
                                      llvm::StringRef Text) {
  D.Code = Code;
  D.Id = nextDecisionId(D.Transform, D.Kernel, Text);
  if (DecisionIds)
    (*DecisionIds)[D.Transform + "." + D.Kernel] =
        std::stoul(llvm::StringRef(D.Id).rsplit('.').second.str());
}

std::string TransformContext::decisionComment(const Decision &D,
                                              llvm::StringRef What) const {
  std::string Facts = D.Measured;
  if (Facts.empty())
    Facts = Force ? "forced: profitability was not checked"
                  : "nothing was measured";
  return "// warpwise " + D.Code + " " + D.Id + ": " + What.str() + "; " +
         Facts;
}

bool fillDecisionMark(std::string &Text, llvm::StringRef Comment) {
  size_t At = Text.find(DecisionMark);
  if (At == std::string::npos)
    return false;
  Text.replace(At, llvm::StringRef(DecisionMark).size(), Comment.str());
  return true;
}

Steer TransformContext::steer(llvm::StringRef Transform, const FunctionDecl *FD,
                              SourceLocation Candidate) const {
  if (!Steering || !FD)
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  // A template kernel's declaration starts at its template parameter list.
  SourceLocation Begin = FD->getBeginLoc();
  if (const FunctionTemplateDecl *FT = FD->getDescribedFunctionTemplate())
    Begin = FT->getBeginLoc();
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    if (const FunctionTemplateDecl *FT =
            Pattern->getDescribedFunctionTemplate())
      Begin = FT->getBeginLoc();
  unsigned KernelBegin = SM.getExpansionLineNumber(Begin);
  unsigned KernelName = SM.getExpansionLineNumber(FD->getLocation());
  unsigned Line =
      Candidate.isValid() ? SM.getExpansionLineNumber(Candidate) : 0;
  SourceLocation Where = Candidate.isValid() ? Candidate : FD->getLocation();
  return Steering->lookup(Transform, FD->getNameAsString(), fileOf(Where),
                          textOf(Where), KernelBegin, KernelName, Line);
}

SteerScope::SteerScope(TransformContext &TC, const Steer &S,
                       llvm::StringRef Transform)
    : TC(TC), Force(TC.Force), ForcedBy(TC.ForcedBy), FormBy(TC.FormBy),
      SplitForm(TC.SplitForm), MeldForm(TC.MeldForm) {
  if (!S.forced())
    return;
  TC.Force = true;
  TC.ForcedBy = S.Source;
  if (S.Form.empty())
    return;
  TC.FormBy = S.Source;
  if (Transform == "split")
    TC.SplitForm = S.Form;
  else if (Transform == "meld")
    TC.MeldForm = S.Form;
}

SteerScope::~SteerScope() {
  TC.Force = Force;
  TC.ForcedBy = ForcedBy;
  TC.FormBy = FormBy;
  TC.SplitForm = SplitForm;
  TC.MeldForm = MeldForm;
}

std::string TransformContext::fileOf(SourceLocation Loc) const {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Scope || Loc.isInvalid() ||
      SM.getFileID(SM.getExpansionLoc(Loc)) == SM.getMainFileID())
    return File;
  return Scope->position(Loc).File;
}

llvm::StringRef TransformContext::textOf(SourceLocation Loc) const {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Scope || Loc.isInvalid() ||
      SM.getFileID(SM.getExpansionLoc(Loc)) == SM.getMainFileID())
    return Contents;
  return Scope->position(Loc).Text;
}

std::string TransformContext::displayOf(SourceLocation Loc) const {
  if (!Scope)
    return Display;
  return Scope->display(Loc, Display);
}

std::string TransformContext::decisionFileOf(SourceLocation Loc) const {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Scope || Loc.isInvalid() ||
      SM.getFileID(SM.getExpansionLoc(Loc)) == SM.getMainFileID())
    return "";
  return Scope->display(Loc, Display);
}

bool TransformContext::claimed(const std::string &InFile, unsigned Begin,
                               unsigned End) const {
  for (const ClaimedRange &R : Claimed)
    if (R.overlaps(InFile, Begin, End))
      return true;
  return false;
}

bool TransformContext::textsWith(const std::vector<tooling::Replacement> &Edits,
                                 std::string &Main,
                                 std::map<std::string, std::string> &Headers,
                                 std::string &Error) const {
  std::map<std::string, tooling::Replacements> ByFile;
  // An edit that names no file is one of the main file's.
  for (const tooling::Replacement &R : Edits)
    if (llvm::Error E =
            ByFile[R.getFilePath().empty() ? File : R.getFilePath().str()].add(
                tooling::Replacement(
                    R.getFilePath().empty() ? llvm::StringRef(File)
                                            : R.getFilePath(),
                    R.getOffset(), R.getLength(), R.getReplacementText()))) {
      Error = llvm::toString(std::move(E));
      return false;
    }
  Main = Contents.str();
  Headers.clear();
  for (const auto &[Path, Rs] : ByFile) {
    llvm::StringRef Text = Contents;
    bool Found = Path == File;
    if (!Found && Scope)
      Text = Scope->textOf(Path, Found);
    if (!Found) {
      Error = "an edit names '" + Path + "', which is not in this file's scope";
      return false;
    }
    auto Applied = tooling::applyAllReplacements(Text, Rs);
    if (!Applied) {
      Error = llvm::toString(Applied.takeError());
      return false;
    }
    if (Path == File)
      Main = std::move(*Applied);
    else
      Headers[Path] = std::move(*Applied);
  }
  return true;
}

std::optional<std::map<std::string, KernelStats>>
TransformContext::measure(const std::vector<tooling::Replacement> &Edits,
                          const std::string &NvArch, std::string &Error,
                          bool NeedCode) const {
  if (!Feedback) {
    Error = "no CUDA toolkit";
    return std::nullopt;
  }
  std::vector<tooling::Replacement> With = Applied;
  With.insert(With.end(), Edits.begin(), Edits.end());
  std::string Main;
  std::map<std::string, std::string> Headers;
  if (!textsWith(With, Main, Headers, Error))
    return std::nullopt;
  return Feedback->measure(Main, File, NvArch, Error, Headers, NeedCode);
}

TransformContext::MeasuredPair TransformContext::measureBoth(
    const std::vector<tooling::Replacement> &BeforeEdits,
    const std::vector<tooling::Replacement> &AfterEdits,
    const std::string &NvArch, bool NeedCode) const {
  MeasuredPair P;
  if (!Feedback) {
    P.BeforeError = P.AfterError = "no CUDA toolkit";
    return P;
  }
  // The texts here, in this thread (the source manager is not shared
  // between threads); only the compiles run side by side.
  std::string BeforeMain, AfterMain;
  std::map<std::string, std::string> BeforeHeaders, AfterHeaders;
  bool BeforeOK = textsWith(BeforeEdits, BeforeMain, BeforeHeaders,
                            P.BeforeError);
  bool AfterOK = textsWith(AfterEdits, AfterMain, AfterHeaders, P.AfterError);
  // Both are compiled whatever the other gives: nvcc and nvdisasm run
  // twice as wide, and a failed original (rare) costs one wasted compile.
  std::future<std::optional<std::map<std::string, KernelStats>>> Before;
  if (BeforeOK)
    Before = std::async(std::launch::async, [&] {
      return Feedback->measure(BeforeMain, File, NvArch, P.BeforeError,
                               BeforeHeaders, NeedCode);
    });
  if (AfterOK)
    P.After = Feedback->measure(AfterMain, File, NvArch, P.AfterError,
                                AfterHeaders, NeedCode);
  if (BeforeOK)
    P.Before = Before.get();
  return P;
}

TransformContext::MeasuredPair TransformContext::measureOnEarlier(
    const std::vector<tooling::Replacement> &Edits, const std::string &NvArch,
    bool NeedCode) const {
  std::vector<tooling::Replacement> With = Applied;
  With.insert(With.end(), Edits.begin(), Edits.end());
  return measureBoth(Applied, With, NvArch, NeedCode);
}

std::optional<std::pair<KernelStats, KernelStats>>
TransformContext::measureCandidate(
    const std::vector<tooling::Replacement> &Edits, const std::string &Kernel,
    std::string &Failure, bool NeedCode) const {
  MeasuredPair Measured =
      measureOnEarlier(Edits, PtxasRunner::nvccArchFor(Arch), NeedCode);
  if (!Measured.Before || !Measured.After) {
    Failure = "nvcc failed on the " +
              std::string(Measured.Before ? "candidate" : "original") + " (" +
              (Measured.Before ? Measured.AfterError : Measured.BeforeError) +
              "); not rewritten";
    return std::nullopt;
  }
  auto B = Measured.Before->find(Kernel), A = Measured.After->find(Kernel);
  if (B == Measured.Before->end() || A == Measured.After->end()) {
    Failure = "`" + Kernel + "` is missing from nvcc's output; declined";
    return std::nullopt;
  }
  return std::make_pair(B->second, A->second);
}

} // namespace warpwise
