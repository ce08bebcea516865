//===- NvccCheck.cpp - The rewrite compiles, or its culprits go -----------===//
//
// The compile checks of a rewrite (clang's parse, nvcc's build for the
// target) and the search for the changes that break it: each pass's text
// is rebuilt from the edits recorded for it and compiled again.
//
//===----------------------------------------------------------------------===//
#include "NvccCheck.h"

#include "warpwise/Edits.h"
#include "warpwise/Ptxas.h"
#include "warpwise/SourceScope.h"

#include "llvm/ADT/STLExtras.h"

#include <set>

namespace warpwise::driver {

namespace {

/// What \p Edits make of \p F's files; std::nullopt when they do not
/// apply (reported when the output is computed).
std::optional<RewriteTexts> textsWith(const InputFile &F,
                                      const EditSet &Edits) {
  RewriteTexts T;
  auto Main = applyEdits(F.Contents, Edits.forFile(F.Absolute));
  if (!Main) {
    llvm::consumeError(Main.takeError());
    return std::nullopt;
  }
  T.Main = std::move(*Main);
  for (const auto &[Path, R] : Edits.byFile()) {
    auto Original = F.Headers.find(Path);
    if (Path == F.Absolute || R.empty())
      continue;
    if (Original == F.Headers.end())
      return std::nullopt;
    auto Text = applyEdits(Original->second, R);
    if (!Text) {
      llvm::consumeError(Text.takeError());
      return std::nullopt;
    }
    T.Headers[Path] = std::move(*Text);
  }
  return T;
}

/// \p Before with those of a pass's \p Changes that \p Keep says on top.
EditSet withChanges(const EditSet &Before,
                    const std::vector<PassChange> &Changes,
                    const std::vector<bool> &Keep) {
  EditSet Pass;
  for (size_t I = 0; I < Changes.size(); ++I)
    if (Keep[I])
      // They were added together to one set once: they cannot overlap.
      llvm::consumeError(Pass.add(Changes[I].Edit));
  EditSet Out = Before;
  bool Described = false;
  for (const auto &[Path, R] : Pass.byFile()) {
    Out.compose(Path, R,
                Described ? std::vector<std::string>() : Pass.descriptions());
    Described |= !R.empty();
  }
  return Out;
}

/// Parses, and does nothing with the AST.
struct ParseOnly : ASTHandler {
  void handleTranslationUnit(clang::ASTContext &,
                             const std::string &) override {}
};

/// The rewrite compiled by nvcc for the target, as the planner measures
/// candidates (cached by content). Only whether it compiles is read, so
/// its code is not listed.
CompileCheck nvccCheck(CompileFeedback &Feedback, const InputFile &F,
                       const ArchLimits &Arch) {
  return [&Feedback, &F,
          &Arch](const RewriteTexts &T) -> std::optional<std::string> {
    std::string Error;
    if (Feedback.measure(T.Main, F.Absolute, PtxasRunner::nvccArchFor(Arch),
                         Error, T.Headers, /*NeedCode=*/false))
      return std::nullopt;
    // nvcc names the copy it compiled, which the measurement names by its
    // path below the copied tree ("lib/k.cuh:17:2: error: ..."): said as
    // the rewritten lib/k.cuh (lines count in the rewrite).
    llvm::StringRef Said = Error;
    llvm::StringRef Name = Said.take_until([](char C) {
      return C == ':' || C == '(';
    });
    auto Rewritten = [&](llvm::StringRef Path) {
      return Path.ends_with(("/" + Name).str());
    };
    bool NamesRewrite = !Name.empty() && !Name.starts_with("/") &&
                        Name.size() < Said.size() &&
                        (Rewritten(F.Absolute) ||
                         llvm::any_of(T.Headers, [&](const auto &H) {
                           return Rewritten(H.first);
                         }));
    if (NamesRewrite)
      Error = "the rewritten " + Error;
    return Error.empty() ? std::string("nvcc failed") : Error;
  };
}

/// A dropped decision no longer counts as applied; its reason says why.
void dropDecision(InputFile &F, const std::string &Id, const std::string &Why) {
  for (Decision &D : F.Decisions)
    if (D.Applied && !Id.empty() && D.Id == Id) {
      D.Applied = false;
      D.Code.clear(); // Declined: WW3001..WW3004 by its transformation.
      D.Reason = Why + "; it had been applied: " + D.Reason;
    }
}

/// WW1012 for the dropped change \p C, which \p Compiler rejected with
/// \p Error.
void reportBrokenChange(const InputFile &F, const PassChange &C,
                        llvm::StringRef Compiler, const std::string &Error,
                        unsigned LaterDropped, DiagnosticLog &Log) {
  // The line, in the main file; the description names a header's.
  unsigned Line = 0;
  for (const Decision &D : F.Decisions)
    if (!C.DecisionId.empty() && D.Id == C.DecisionId && D.File.empty())
      Line = D.Line;
  std::string What = C.DecisionId.empty()
                         ? "a change of the " + C.Transform +
                               " transformation (" + C.Edit.Description + ")"
                         : "the " + C.Transform +
                               " transformation's decision " + C.DecisionId +
                               " (" + C.Edit.Description + ")";
  std::string Later =
      LaterDropped ? "; the " + std::to_string(LaterDropped) +
                         " change(s) of later passes, decided on that code, "
                         "are dropped too"
                   : "";
  Log.report(diag::InternalError, Severity::Error, F.Given, Line, 0,
             "internal error: warpwise's rewrite does not compile with " +
                 Compiler.str() + ": " + What + " produced code that fails (" +
                 Error +
                 "); the output is written without that change and "
                 "with the other changes" +
                 Later + "; please report this with the file");
}

/// "k.cuh, through mid.cuh": the headers \p T rewrites, and those through
/// which \p F's main file includes them, for -v.
std::string rewrittenHeaders(const InputFile &F, const RewriteTexts &T) {
  std::set<std::string> Edited;
  std::string Out;
  for (const auto &[Path, Text] : T.Headers) {
    Edited.insert(Path);
    Out += (Out.empty() ? "" : ", ") + SourceScope::displayPath(Path);
  }
  for (const std::string &Path :
       headersIncludingEdited(F.Includers, F.Absolute, Edited))
    Out += ", through " + SourceScope::displayPath(Path);
  return Out;
}

} // namespace

std::optional<std::string> compileErrorIn(const DiagnosticLog &Log) {
  for (const Diagnostic &D : Log.all())
    if (D.Id == diag::CompileErrors && !D.Raw)
      return llvm::StringRef(D.Message)
          .split("; the file is not analysed")
          .first.str();
  return std::nullopt;
}

CompileCheck clangCheck(const Frontend &Front, const InputFile &F) {
  return [&Front, &F](const RewriteTexts &T) -> std::optional<std::string> {
    ParseOnly Handler;
    DiagnosticLog Scratch;
    if (Front.parse(F.Absolute, F.Given, T.Main, Handler, Scratch, T.Headers))
      return std::nullopt;
    return compileErrorIn(Scratch).value_or("clang could not parse it");
  };
}

bool dropBrokenChanges(InputFile &F, const CompileCheck &Check,
                       llvm::StringRef Compiler, const std::string &Error,
                       DiagnosticLog &Log) {
  for (size_t P = F.Passes.size(); P-- > 0;) {
    std::optional<RewriteTexts> Base = textsWith(F, F.Passes[P].Before);
    if (!Base)
      return false;
    if (Check(*Base))
      continue; // The culprit is in an earlier pass.
    PassRecord Pass = F.Passes[P];
    size_t N = Pass.Changes.size();
    std::vector<bool> Keep(N, true);
    std::vector<std::string> Why(N);
    if (N == 1 && P + 1 == F.Passes.size()) {
      Keep[0] = false; // The only change between a good and a bad text.
      Why[0] = Error;
    } else {
      for (size_t I = 0; I < N; ++I) {
        std::vector<bool> Only(N, false);
        Only[I] = true;
        auto T = textsWith(F, withChanges(Pass.Before, Pass.Changes, Only));
        std::optional<std::string> Fails =
            T ? Check(*T)
              : std::optional<std::string>("its edits do not apply");
        Keep[I] = !Fails;
        Why[I] = Fails.value_or("");
      }
    }
    bool Together = !llvm::is_contained(Keep, false);
    if (!Together && llvm::is_contained(Keep, true)) {
      auto T = textsWith(F, withChanges(Pass.Before, Pass.Changes, Keep));
      Together = !T || Check(*T);
    }
    if (Together)
      for (size_t I = 0; I < N; ++I) {
        if (Keep[I])
          Why[I] = Error + ", with the other changes of pass " +
                   std::to_string(Pass.Number);
        Keep[I] = false;
      }
    unsigned LaterDropped = 0;
    for (size_t Q = P + 1; Q < F.Passes.size(); ++Q)
      for (const PassChange &C : F.Passes[Q].Changes) {
        ++LaterDropped;
        dropDecision(F, C.DecisionId,
                     "dropped: decided on code that held a change that does "
                     "not compile (WW1012)");
      }
    F.Edits = withChanges(Pass.Before, Pass.Changes, Keep);
    std::vector<PassChange> Kept;
    for (size_t I = 0; I < N; ++I) {
      if (Keep[I]) {
        Kept.push_back(Pass.Changes[I]);
        continue;
      }
      reportBrokenChange(F, Pass.Changes[I], Compiler, Why[I], LaterDropped,
                         Log);
      dropDecision(F, Pass.Changes[I].DecisionId,
                   "dropped: its code does not compile with " + Compiler.str() +
                       " (" + Why[I] + "; WW1012)");
      LaterDropped = 0; // Said once.
    }
    F.Passes.resize(P + 1);
    F.Passes[P].Changes = std::move(Kept);
    if (F.Passes[P].Changes.empty())
      F.Passes.pop_back();
    return true;
  }
  return false;
}

void checkRewriteCompiles(InputFile &F, bool Parsed, const Frontend &Front,
                          CompileFeedback *Feedback, const ArchLimits &Arch,
                          bool Verbose, DiagnosticLog &Log) {
  struct Compiler {
    const char *Name;
    CompileCheck Check;
  };
  std::vector<Compiler> Compilers;
  if (!Parsed)
    Compilers.push_back({"clang", clangCheck(Front, F)});
  if (Feedback && Feedback->available())
    Compilers.push_back({"nvcc", nvccCheck(*Feedback, F, Arch)});
  for (const Compiler &C : Compilers) {
    std::optional<RewriteTexts> T;
    if (F.Passes.empty() || !(T = textsWith(F, F.Edits)))
      return;
    std::optional<std::string> Error = C.Check(*T);
    if (Verbose) {
      std::string Headers = rewrittenHeaders(F, *T);
      Log.raw("warpwise: " + F.Given + ": " + C.Name +
              (Error ? " rejects" : " compiles") + " the rewrite" +
              (Headers.empty() ? "" : " (with " + Headers + ")") + "\n");
    }
    if (Error)
      dropBrokenChanges(F, C.Check, C.Name, *Error, Log);
  }
}

} // namespace warpwise::driver
