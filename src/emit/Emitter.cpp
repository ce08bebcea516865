//===- Emitter.cpp - Unified diffs, fixes YAML ----------------------------===//
#include "warpwise/Emitter.h"

#include "warpwise/Embedded.h"

#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/ReplacementsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <set>
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <sys/stat.h>

namespace warpwise {

namespace {
struct Line {
  llvm::StringRef Text; ///< Without the newline.
  bool HasNewline;
};

std::vector<Line> splitLines(llvm::StringRef S) {
  std::vector<Line> Lines;
  while (!S.empty()) {
    size_t NL = S.find('\n');
    if (NL == llvm::StringRef::npos) {
      Lines.push_back({S, false});
      break;
    }
    Lines.push_back({S.substr(0, NL), true});
    S = S.substr(NL + 1);
  }
  return Lines;
}

bool sameLine(const Line &A, const Line &B) {
  return A.Text == B.Text && A.HasNewline == B.HasNewline;
}

enum class Op { Keep, Del, Add };
struct Step {
  Op Kind;
  size_t OldIdx, NewIdx;
};
} // namespace

/// Line-level edit script: common prefix and suffix are trimmed, the middle
/// is aligned by a longest-common-subsequence table. Rewrites are local, so
/// the middle is small; past a size bound it is shown as one replacement.
static std::vector<Step> diffLines(const std::vector<Line> &A,
                                   const std::vector<Line> &B) {
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && sameLine(A[Pre], B[Pre]))
    ++Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre &&
         sameLine(A[A.size() - 1 - Suf], B[B.size() - 1 - Suf]))
    ++Suf;
  size_t N = A.size() - Pre - Suf, M = B.size() - Pre - Suf;
  std::vector<Step> Steps;
  for (size_t I = 0; I < Pre; ++I)
    Steps.push_back({Op::Keep, I, I});
  if (N * M <= 16u * 1024 * 1024) {
    std::vector<std::vector<uint32_t>> L(N + 1, std::vector<uint32_t>(M + 1));
    for (size_t I = N; I-- > 0;)
      for (size_t J = M; J-- > 0;)
        L[I][J] = sameLine(A[Pre + I], B[Pre + J])
                      ? L[I + 1][J + 1] + 1
                      : std::max(L[I + 1][J], L[I][J + 1]);
    size_t I = 0, J = 0;
    while (I < N || J < M) {
      if (I < N && J < M && sameLine(A[Pre + I], B[Pre + J])) {
        Steps.push_back({Op::Keep, Pre + I++, Pre + J++});
      } else if (I < N && (J == M || L[I + 1][J] >= L[I][J + 1])) {
        // Deletions first, as diff(1) prints them.
        Steps.push_back({Op::Del, Pre + I++, Pre + J});
      } else {
        Steps.push_back({Op::Add, Pre + I, Pre + J++});
      }
    }
  } else {
    for (size_t I = 0; I < N; ++I)
      Steps.push_back({Op::Del, Pre + I, Pre});
    for (size_t J = 0; J < M; ++J)
      Steps.push_back({Op::Add, Pre + N, Pre + J});
  }
  for (size_t K = 0; K < Suf; ++K)
    Steps.push_back({Op::Keep, Pre + N + K, Pre + M + K});
  return Steps;
}

static void printLine(llvm::raw_ostream &OS, char Prefix, const Line &L) {
  OS << Prefix << L.Text << '\n';
  if (!L.HasNewline)
    OS << "\\ No newline at end of file\n";
}

std::string unifiedDiff(llvm::StringRef OldLabel, llvm::StringRef NewLabel,
                        llvm::StringRef Old, llvm::StringRef New) {
  if (Old == New)
    return "";
  std::vector<Line> A = splitLines(Old), B = splitLines(New);
  std::vector<Step> Steps = diffLines(A, B);
  const size_t Context = 3;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "--- " << OldLabel << "\n+++ " << NewLabel << "\n";
  size_t I = 0;
  while (I < Steps.size()) {
    if (Steps[I].Kind == Op::Keep) {
      ++I;
      continue;
    }
    // A hunk: from Context lines before this change to Context lines after
    // the last change that is within 2*Context of the previous one.
    size_t Begin = I >= Context ? I - Context : 0;
    size_t End = I;
    while (End < Steps.size()) {
      if (Steps[End].Kind != Op::Keep) {
        ++End;
        continue;
      }
      size_t Run = End;
      while (Run < Steps.size() && Steps[Run].Kind == Op::Keep)
        ++Run;
      if (Run == Steps.size() || Run - End > 2 * Context) {
        End = std::min(End + Context, Run);
        break;
      }
      End = Run;
    }
    size_t OldStart = Steps[Begin].OldIdx, NewStart = Steps[Begin].NewIdx;
    size_t OldCount = 0, NewCount = 0;
    for (size_t K = Begin; K < End; ++K) {
      OldCount += Steps[K].Kind != Op::Add;
      NewCount += Steps[K].Kind != Op::Del;
    }
    // A range of zero lines is named by the line before it.
    OS << "@@ -" << (OldCount ? OldStart + 1 : OldStart);
    if (OldCount != 1)
      OS << ',' << OldCount;
    OS << " +" << (NewCount ? NewStart + 1 : NewStart);
    if (NewCount != 1)
      OS << ',' << NewCount;
    OS << " @@\n";
    for (size_t K = Begin; K < End; ++K) {
      const Step &S = Steps[K];
      if (S.Kind == Op::Keep)
        printLine(OS, ' ', A[S.OldIdx]);
      else if (S.Kind == Op::Del)
        printLine(OS, '-', A[S.OldIdx]);
      else
        printLine(OS, '+', B[S.NewIdx]);
    }
    I = End;
  }
  OS.flush();
  return Out;
}

/// The string of a #line directive: backslashes and quotes escaped.
static std::string lineDirectiveName(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (C == '\\' || C == '"')
      Out += '\\';
    Out += C;
  }
  return Out;
}

std::string withLineDirectives(llvm::StringRef Original,
                               llvm::StringRef Rewritten,
                               llvm::StringRef UserPath) {
  std::vector<Line> A = splitLines(Original), B = splitLines(Rewritten);
  std::vector<Step> Steps = diffLines(A, B);
  llvm::StringRef EOL = Original.contains("\r\n") ? "\r\n" : "\n";
  std::string Name = lineDirectiveName(UserPath);
  std::string Out;
  Out.reserve(Rewritten.size() + 64);
  Out += "#line 1 \"" + Name + "\"" + EOL.str();
  // The line the compiler believes the next line is (1-based, in the
  // user's file); an unchanged line that is elsewhere gets a directive.
  // Inserted lines go on from the line before them: they map to the
  // construct they replace.
  size_t Presumed = 1;
  bool Continued = false; // The line before ends in a backslash.
  for (const Step &S : Steps) {
    if (S.Kind == Op::Del)
      continue;
    const Line &L = B[S.NewIdx];
    if (S.Kind == Op::Keep && S.OldIdx + 1 != Presumed && !Continued) {
      Out += "#line " + std::to_string(S.OldIdx + 1) + " \"" + Name + "\"" +
             EOL.str();
      Presumed = S.OldIdx + 1;
    }
    Out += L.Text;
    if (L.HasNewline)
      Out += '\n';
    llvm::StringRef Body = L.Text;
    Body.consume_back("\r");
    Continued = Body.ends_with("\\");
    ++Presumed;
  }
  return Out;
}

std::string exportFixesYaml(const std::vector<FileEdits> &Files) {
  // One TranslationUnitReplacements document holding every file's edits:
  // clang-apply-replacements reads one document per YAML file and groups the
  // replacements by their FilePath, so a second document would be ignored.
  // A header that several inputs rewrote (identically: the driver refuses
  // anything else) is listed once.
  clang::tooling::TranslationUnitReplacements TU;
  if (!Files.empty())
    TU.MainSourceFile = Files.front().Path;
  std::set<std::string> HeadersListed;
  for (const FileEdits &F : Files) {
    if (F.Edits)
      TU.Replacements.insert(TU.Replacements.end(), F.Edits->begin(),
                             F.Edits->end());
    for (const clang::tooling::Replacements *O : F.Others) {
      if (!O || O->empty() ||
          !HeadersListed.insert(O->begin()->getFilePath().str()).second)
        continue;
      TU.Replacements.insert(TU.Replacements.end(), O->begin(), O->end());
    }
  }
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  llvm::yaml::Output YAML(OS);
  YAML << TU;
  OS.flush();
  return Out;
}

std::vector<RuntimeOutput> runtimeHeaderOutputs(
    const std::vector<std::pair<std::string, std::string>> &Outputs) {
  std::vector<RuntimeOutput> Out;
  std::set<std::string> Seen;
  for (const auto &[Path, Text] : Outputs) {
    if (Path.empty() || Path == "-" || !includesRuntimeHeader(Text))
      continue;
    std::string Beside = runtimeHeaderBeside(Path);
    if (!Seen.insert(Beside).second)
      continue;
    RuntimeOutput R{Beside, "", runtimeHeaderText()};
    if (auto Buf = llvm::MemoryBuffer::getFile(Beside, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false))
      R.Original = (*Buf)->getBuffer().str();
    const char *Api = "WARPWISE_RUNTIME_API";
    if (R.Original != R.Text &&
        declaredRuntimeApi(R.Original, Api) <= declaredRuntimeApi(R.Text, Api))
      Out.push_back(std::move(R));
  }
  return Out;
}

} // namespace warpwise
