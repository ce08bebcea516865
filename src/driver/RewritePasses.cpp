//===- RewritePasses.cpp - Rewrite until a pass changes nothing -----------===//
//
// Idempotence: rewriting warpwise's output again must change nothing. A
// pass decides each candidate on the text as it stands, so a decision can
// depend on rewrites made after it (a __device__ helper measured before
// the kernel that calls it was fused, and worth fusing after). The rewrite
// therefore repeats its passes over its own output, parsed in memory,
// until a pass changes nothing: the text written is then one that a
// further run leaves alone, by construction rather than by recognising
// particular cases. Code warpwise wrote is final in every pass (see
// producedRegions), so later passes only decide what earlier ones left
// open. Their applied decisions, errors and warnings are reported at the
// original file's lines; their declines repeat the first pass's and are
// not shown again. A pass whose text does not parse finds the earlier
// pass's changes responsible and drops them (dropBrokenChanges, WW1012);
// the rewrite ends there.
//
//===----------------------------------------------------------------------===//
#include "RewritePasses.h"

#include "FileProcessor.h"
#include "NvccCheck.h"

#include "warpwise/Ptxas.h"
#include "warpwise/SourceScope.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <future>
#include <tuple>

namespace warpwise::driver {

namespace {

/// Where the byte at \p Offset of the text that \p Edits make of a file was
/// in that file: inside an edit's new text, the start of the edit.
unsigned originalOffset(const clang::tooling::Replacements &Edits,
                        unsigned Offset) {
  long Shift = 0; // New offset minus original offset so far.
  for (const clang::tooling::Replacement &R : Edits) {
    long NewBegin = R.getOffset() + Shift;
    if (Offset < NewBegin)
      break;
    if (Offset < NewBegin + (long)R.getReplacementText().size())
      return R.getOffset();
    Shift += (long)R.getReplacementText().size() - (long)R.getLength();
  }
  return (unsigned)(Offset - Shift);
}

/// 1-based line and column of \p Offset in \p Text.
std::pair<unsigned, unsigned> lineColumn(llvm::StringRef Text,
                                         unsigned Offset) {
  Offset = std::min<unsigned>(Offset, Text.size());
  llvm::StringRef Before = Text.take_front(Offset);
  size_t NL = Before.rfind('\n');
  unsigned Col = NL == llvm::StringRef::npos ? Offset + 1 : Offset - NL;
  return {(unsigned)Before.count('\n') + 1, Col};
}

/// The offset of 1-based \p Line, \p Column in \p Text.
unsigned offsetOf(llvm::StringRef Text, unsigned Line, unsigned Column) {
  size_t Pos = 0;
  for (unsigned L = 1; L < Line && Pos != llvm::StringRef::npos; ++L) {
    Pos = Text.find('\n', Pos);
    if (Pos != llvm::StringRef::npos)
      ++Pos;
  }
  if (Pos == llvm::StringRef::npos)
    return Text.size();
  return std::min<size_t>(Pos + (Column ? Column - 1 : 0), Text.size());
}

// Every file the rewrite edits: the main file and project headers.
bool editsAny(const EditSet &E) {
  for (const auto &[Path, R] : E.byFile())
    if (!R.empty())
      return true;
  return false;
}

// Each edited file as the earlier passes leave it; headers are parsed
// in their place from memory.
struct PassFile {
  std::string Display;
  llvm::StringRef Original;
  clang::tooling::Replacements Done;
  std::string Now;
};

/// The files a later pass parses, by normalised absolute path, and the
/// headers among them as the overlays the frontend reads.
struct PassFiles {
  std::map<std::string, PassFile> Files;
  std::map<std::string, std::string> Overlays;

  /// The edited files of \p F with the earlier passes' edits applied; false
  /// when they do not apply (reported when the output is computed).
  bool read(const InputFile &F) {
    Files[F.Absolute] = {F.Given, F.Contents, F.Edits.forFile(F.Absolute), ""};
    for (const auto &[Path, Text] : F.Headers)
      Files[Path] = {SourceScope::displayPath(Path), Text,
                     F.Edits.forFile(Path), ""};
    for (auto &[Path, PF] : Files) {
      auto Text = applyEdits(PF.Original, PF.Done);
      if (!Text) {
        llvm::consumeError(Text.takeError());
        return false;
      }
      PF.Now = std::move(*Text);
      if (Path != F.Absolute)
        Overlays[Path] = PF.Now;
    }
    return true;
  }

  // The file a message or decision names, by its display name.
  const PassFile *named(const std::string &Display) const {
    for (const auto &[Path, PF] : Files)
      if (PF.Display == Display)
        return &PF;
    return nullptr;
  }

  /// \p Line and \p Column of the pass's text of \p In, in its original.
  std::pair<unsigned, unsigned> original(const PassFile *In, unsigned Line,
                                         unsigned Column) const {
    if (!Line || !In)
      return std::make_pair(Line, Column);
    return lineColumn(
        In->Original,
        originalOffset(In->Done, offsetOf(In->Now, Line, Column)));
  }
};

/// The errors and warnings of the later pass that made \p Next (and its
/// applied decisions' remarks) in \p FileLog, at the original files' lines,
/// each with \p Note.
void reportPassDiagnostics(const InputFile &F, const InputFile &Next,
                           const DiagnosticLog &PassLog, const PassFiles &Files,
                           const std::string &Note, DiagnosticLog &FileLog) {
  for (const Diagnostic &D : PassLog.all()) {
    bool Applied = D.Id == "WW4001" || D.Id == "WW4002" || D.Id == "WW4003" ||
                   D.Id == "WW4004" || D.Id == "WW4006";
    // The main file's, and a project header's (by its display name).
    bool Ours =
        D.File == F.Given ||
        (!D.File.empty() &&
         (Files.named(D.File) || llvm::any_of(Next.Headers, [&](const auto &H) {
            return SourceScope::displayPath(H.first) == D.File;
          })));
    // A compile error is warpwise's rewrite not compiling: below.
    if (D.Raw || !Ours || D.Id == diag::CompileErrors ||
        (D.Level != Severity::Error && D.Level != Severity::Warning &&
         !Applied))
      continue;
    Diagnostic Mapped = D;
    std::tie(Mapped.Line, Mapped.Column) =
        Files.original(Files.named(D.File), D.Line, D.Column);
    if (!D.Column)
      Mapped.Column = 0;
    Mapped.Message += Note;
    FileLog.report(Mapped);
  }
}

/// Adds the later pass \p Pass that made \p Next to \p F: its applied
/// decisions (at the original lines, with \p Note), the headers it edited
/// first, and its edits on top of the earlier passes'. True when it changed
/// something.
bool addPass(InputFile &F, InputFile &Next, const PassFiles &Files,
             unsigned Pass, const std::string &Note) {
  for (Decision &D : Next.Decisions)
    if (D.Applied) {
      D.Line = Files
                   .original(Files.named(D.File.empty() ? F.Given : D.File),
                             D.Line, 1)
                   .first;
      D.Reason += Note;
      F.Decisions.push_back(std::move(D));
    }
  bool Changed = editsAny(Next.Edits);
  // Headers this pass edited first: their text is still the original.
  for (const auto &[Path, Text] : Next.Headers)
    F.Headers.emplace(Path, Text);
  EditSet Before = F.Edits;
  bool Described = false;
  for (const auto &[Path, R] : Next.Edits.byFile()) {
    F.Edits.compose(Path, R,
                    Described ? std::vector<std::string>()
                              : Next.Edits.descriptions());
    Described |= !R.empty();
  }
  if (Changed)
    F.Passes.push_back({Pass, std::move(Before), std::move(Next.PassChanges)});
  return Changed;
}

/// Starts nvcc on the text a later pass begins with while that pass parses
/// it: every candidate the pass measures is compared with it, and when the
/// pass changes nothing it is the output, which checkRewriteCompiles
/// compiles. The pass's own request for the same text waits for this
/// compile (CompileFeedback answers each text once). Only where no header
/// is edited: a pass measures its base with the headers on disk. Without
/// its listing: the output's check reads none, and a planner that reads
/// the code has it listed then.
std::future<void> compilePassBase(const Session &Run, const InputFile &F,
                                  const PassFiles &Files) {
  if (!Run.FeedbackPtr || !Run.FeedbackPtr->available() || !Run.Arch ||
      !Files.Overlays.empty())
    return {};
  CompileFeedback *Feedback = Run.FeedbackPtr;
  std::string Text = Files.Files.at(F.Absolute).Now;
  std::string Path = F.Absolute;
  std::string NvArch = PtxasRunner::nvccArchFor(*Run.Arch);
  return std::async(std::launch::async, [=] {
    std::string Error; // The pass's own request reports it.
    Feedback->measure(Text, Path, NvArch, Error, {}, /*NeedCode=*/false);
  });
}

} // namespace

bool settleRewrite(const Session &Run, InputFile &F, DiagnosticLog &FileLog) {
  const Options &Opts = Run.Opts;
  const Frontend &Front = *Run.Front;
  bool Changed = editsAny(F.Edits);
  F.Passes.clear();
  if (Changed)
    F.Passes.push_back({1, EditSet(), std::move(F.PassChanges)});
  for (unsigned Pass = 2; Changed; ++Pass) {
    if (blockingIn(FileLog, F.Given))
      return false;
    PassFiles Files;
    if (!Files.read(F))
      return false; // Reported when the output is computed.
    if (Pass > MaxRewritePasses) {
      FileLog.report(diag::NotSettled, Severity::Warning, F.Given, 0, 0,
                     "the rewrite still changed the file in its pass " +
                         std::to_string(MaxRewritePasses) +
                         "; rewriting the output again may change it "
                         "further");
      return false;
    }
    InputFile Next;
    Next.Given = F.Given;
    Next.Absolute = F.Absolute;
    Next.Contents = Files.Files[F.Absolute].Now;
    std::future<void> BaseCompile = compilePassBase(Run, F, Files);
    Next.Crashed = F.Crashed;
    Next.ExcludedHeaders = F.ExcludedHeaders;
    Next.DecisionIds = F.DecisionIds;
    DiagnosticLog PassLog;
    FileProcessor P(Next, *F.Settings, *Run.Arch, Run.FeedbackPtr,
                    Run.activeFor(F), Opts.BlockSize, Opts.ForceTransforms,
                    Opts.FmadFalse, PassLog, Opts.HeaderFilter);
    P.ReportDirectiveProblems = false; // The first pass said them.
    P.PassNumber = Pass;
    bool Parsed = Front.parse(F.Absolute, F.Given, Next.Contents, P, PassLog,
                              Files.Overlays);
    std::string Note = " (pass " + std::to_string(Pass) +
                       ": decided on the file with the earlier passes' "
                       "rewrites applied, whose lines this message counts)";
    // Any other error of a later pass (overlapping edits, say) abandons
    // that pass: the earlier passes' text is kept, with a warning, rather
    // than losing the whole output to a step that only seeks a fixed
    // point.
    std::string Abandoned;
    for (const Diagnostic &D : PassLog.all())
      if (D.File == F.Given && D.Level == Severity::Error &&
          D.Id != diag::InternalError && D.Id != diag::CompileErrors &&
          Abandoned.empty())
        Abandoned = D.Message;
    if (!Abandoned.empty()) {
      FileLog.report(diag::NotSettled, Severity::Warning, F.Given, 0, 0,
                     "pass " + std::to_string(Pass) +
                         " of the rewrite was abandoned (" + Abandoned +
                         "); the output is that of the earlier passes, and "
                         "rewriting it again may change it");
      return Parsed;
    }
    reportPassDiagnostics(F, Next, PassLog, Files, Note, FileLog);
    F.Crashed = Next.Crashed;
    F.DecisionIds = Next.DecisionIds;
    if (!Parsed) {
      std::optional<std::string> Error = compileErrorIn(PassLog);
      if (Error &&
          dropBrokenChanges(F, clangCheck(Front, F), "clang", *Error, FileLog))
        return true;
      FileLog.report(diag::InternalError, Severity::Error, F.Given, 0, 0,
                     "internal error: warpwise's rewrite of this file does "
                     "not parse (" +
                         Error.value_or("clang could not parse it") +
                         "), and no change could be found responsible; "
                         "please report this with the file");
      return false;
    }
    Changed = addPass(F, Next, Files, Pass, Note);
  }
  return true;
}

} // namespace warpwise::driver
