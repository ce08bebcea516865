//===- Diagnostics.cpp - Printing and serialising diagnostics -------------===//
#include "warpwise/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>

namespace warpwise {

const char *severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Remark:
    return "remark";
  case Severity::Note:
    return "note";
  }
  return "error";
}

std::string oneLine(const std::string &Message) {
  if (Message.find_first_of("\r\n") == std::string::npos)
    return Message;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Message).split(Lines, '\n');
  std::string Out;
  for (llvm::StringRef L : Lines) {
    L = L.trim();
    if (L.empty())
      continue;
    // A line that already ends a clause needs no second separator.
    if (!Out.empty())
      Out += llvm::StringRef(Out).ends_with(";") || llvm::StringRef(Out).ends_with(":") ? " " : "; ";
    Out += L.str();
  }
  return Out;
}

std::string respellPaths(const std::string &Text, const std::string &Absolute,
                         const std::string &Given) {
  if (Text.empty())
    return Text;
  auto Boundary = [](char C) {
    return C == '\n' || C == ' ' || C == '\'' || C == '"' || C == '(' ||
           C == '`';
  };
  std::string Out;
  llvm::SmallString<256> Cwd;
  bool HaveCwd = !llvm::sys::fs::current_path(Cwd) && Cwd.size() > 1;
  std::string Prefix = HaveCwd ? (Cwd + "/").str() : std::string();
  for (size_t I = 0; I < Text.size();) {
    bool AtStart = I == 0 || Boundary(Text[I - 1]);
    if (AtStart && Text[I] == '/') {
      // The main file as given, where clang names it by the path it got.
      if (!Absolute.empty() &&
          Text.compare(I, Absolute.size(), Absolute) == 0 &&
          (I + Absolute.size() == Text.size() ||
           Text[I + Absolute.size()] == ':')) {
        Out += Given;
        I += Absolute.size();
        continue;
      }
      // A header below the current directory, relative to it.
      if (!Prefix.empty() && Text.compare(I, Prefix.size(), Prefix) == 0 &&
          I + Prefix.size() < Text.size() &&
          !Boundary(Text[I + Prefix.size()]) &&
          Text[I + Prefix.size()] != ':') {
        I += Prefix.size();
        continue;
      }
    }
    Out += Text[I++];
  }
  return Out;
}

void DiagnosticLog::silence(const std::vector<std::string> &Ids) {
  for (const std::string &Id : Ids)
    Silenced.insert(llvm::StringRef(Id).trim().upper());
}

void DiagnosticLog::silenceFor(const std::string &File,
                               const std::vector<std::string> &Ids) {
  for (const std::string &Id : Ids)
    SilencedFor[File].insert(llvm::StringRef(Id).trim().upper());
}

bool DiagnosticLog::silenced(const Diagnostic &D) const {
  if (D.Raw || D.Level == Severity::Error)
    return false;
  if (D.Silenced || Silenced.count(D.Id))
    return true;
  auto It = SilencedFor.find(D.File);
  return It != SilencedFor.end() && It->second.count(D.Id);
}

void DiagnosticLog::report(Diagnostic D) {
  if (!D.Raw)
    D.Message = oneLine(D.Message);
  D.Silenced = silenced(D);
  Diags.push_back(std::move(D));
  const Diagnostic &Last = Diags.back();
  bool Hidden =
      Last.Silenced ||
      (EchoQuiet && !Last.Raw &&
       (Last.Level == Severity::Remark || Last.Level == Severity::Note));
  if (!Echo || Hidden)
    return;
  if (EchoShortRemarks && !Last.Raw && Last.Level == Severity::Remark) {
    Diagnostic Short = Last;
    Short.Message = shortRemark(Last.Message);
    print(*Echo, Short, EchoColors);
    return;
  }
  print(*Echo, Last, EchoColors);
}

namespace {

/// \p Message's clauses: its parts between top-level "; " (outside
/// parentheses, brackets, braces and backquoted code). A message whose
/// brackets or backquotes do not balance is split at every "; ".
std::vector<llvm::StringRef> clauses(llvm::StringRef Message) {
  std::vector<llvm::StringRef> Out;
  int Depth = 0;
  bool InCode = false;
  size_t Start = 0;
  for (size_t I = 0; I < Message.size(); ++I) {
    char C = Message[I];
    if (C == '`')
      InCode = !InCode;
    else if (InCode)
      continue;
    else if (C == '(' || C == '[' || C == '{')
      ++Depth;
    else if ((C == ')' || C == ']' || C == '}') && Depth > 0)
      --Depth;
    else if (C == ';' && Depth == 0 && I + 1 < Message.size() &&
             Message[I + 1] == ' ') {
      Out.push_back(Message.slice(Start, I));
      Start = I + 2;
    }
  }
  Out.push_back(Message.substr(Start));
  if (Depth == 0 && !InCode)
    return Out;
  llvm::SmallVector<llvm::StringRef> Naive;
  Message.split(Naive, "; ");
  return std::vector<llvm::StringRef>(Naive.begin(), Naive.end());
}

/// \p Clause without its top-level " (...)" parts; as it is when its
/// parentheses do not balance.
std::string withoutParentheses(llvm::StringRef Clause) {
  std::string Out;
  int Depth = 0;
  bool InCode = false;
  for (size_t I = 0; I < Clause.size(); ++I) {
    char C = Clause[I];
    if (C == '`' && Depth == 0)
      InCode = !InCode;
    if (!InCode && C == '(' && Depth == 0 && !Out.empty() && Out.back() == ' ')
      Out.pop_back();
    if (!InCode && C == '(')
      ++Depth;
    if (Depth == 0)
      Out += C;
    if (!InCode && C == ')' && Depth > 0)
      --Depth;
  }
  return Depth == 0 && !InCode ? Out : Clause.str();
}

/// \p Text cut at a word boundary (never inside a UTF-8 character) to about
/// \p Max bytes, "..." added.
std::string cut(llvm::StringRef Text, size_t Max) {
  if (Text.size() <= Max)
    return Text.str();
  size_t At = Text.rfind(' ', Max);
  if (At == llvm::StringRef::npos || At < Max / 2)
    At = Max;
  while (At > 0 && (static_cast<unsigned char>(Text[At]) & 0xC0) == 0x80)
    --At;
  return Text.take_front(At).rtrim(" ,;:").str() + " ...";
}

/// Whether \p Clause states what was decided ("applied", "declined: ...",
/// "not split", ...), the words the transformations' remarks end on.
bool isVerdict(llvm::StringRef Clause) {
  static const char *const Words[] = {
      "applied",        "declined",   "not split", "not refilled",
      "not packed",     "not shared", "not fused", "not melded",
      "not considered", "refused",    "kept as",   "left as"};
  Clause = Clause.ltrim();
  return llvm::any_of(Words,
                      [&](const char *W) { return Clause.starts_with(W); });
}

} // namespace

std::string DiagnosticLog::shortRemark(llvm::StringRef Message) {
  if (Message.size() <= MaxShortRemark)
    return Message.str();
  std::vector<llvm::StringRef> Parts = clauses(Message);
  // One clause: its start, which names the subject and what was decided.
  if (Parts.size() == 1)
    return cut(Message, MaxShortRemark);
  // The subject: "fuse: if-else at line 28 is divergent (...)" without the
  // parenthesised why; "realloc: the guard `g` at line 32: each pair ..."
  // up to the colon after the subject.
  std::string Head = Parts.front().str();
  if (Head.size() > 70)
    Head = withoutParentheses(Head);
  size_t Prefix = Head.find(": ");
  size_t Subject = Prefix == std::string::npos
                       ? std::string::npos
                       : llvm::StringRef(Head).find(": ", Prefix + 2);
  bool HeadCut = Head.size() > 100 && Subject != std::string::npos;
  if (HeadCut)
    Head.resize(Subject);
  Head = cut(Head, 100);
  // The outcome: the last clause that states a verdict (else the last),
  // with the reason before it when the verdict is a bare word.
  size_t Verdict = Parts.size() - 1;
  for (size_t I = Parts.size() - 1; I > 0; --I)
    if (isVerdict(Parts[I])) {
      Verdict = I;
      break;
    }
  // A bare verdict ("declined", "not split") takes its reason along: the
  // last clause before it that starts with "but", else the first after the
  // subject (where the deciding measure is said).
  bool Bare =
      llvm::StringRef(withoutParentheses(Parts[Verdict])).trim().count(' ') < 2;
  size_t Reason = 0;
  if (Bare && Verdict > 1 && Parts[Verdict].ltrim().starts_with("applied"))
    Reason = Verdict - 1; // What it gained, said last.
  else if (Bare && Verdict > 1) {
    Reason = 1;
    for (size_t I = Verdict - 1; I > 0; --I)
      if (Parts[I].ltrim().starts_with("but ")) {
        Reason = I;
        break;
      }
  }
  // "subject: why; declined", "subject: why; the rewrite runs alone": the
  // outcome follows the subject's clause, which holds the reason.
  if (Verdict == 1) {
    Head = Parts.front().size() > 160 ? withoutParentheses(Parts.front())
                                      : Parts.front().str();
    Head = cut(Head, 160);
    HeadCut = false;
  }
  std::string Tail = cut(Parts[Verdict], 140);
  if (Reason)
    Tail = cut(withoutParentheses(Parts[Reason]), 140) +
           (Reason + 1 < Verdict ? "; ...; " : "; ") + Tail;
  // Something left out between the subject and the outcome is marked once.
  size_t Next = Reason ? Reason : Verdict;
  bool Omitted =
      Next > 1 || (HeadCut && !llvm::StringRef(Head).ends_with(" ..."));
  std::string Short = Head + (Omitted ? "; ...; " : "; ") + Tail +
                      (Verdict + 1 < Parts.size() ? "; ..." : "");
  return Short.size() < Message.size() ? Short : Message.str();
}

void DiagnosticLog::report(const char *Id, Severity Level, std::string File,
                           unsigned Line, unsigned Column,
                           std::string Message) {
  report(Diagnostic{Id, Level, std::move(File), Line, Column,
                    std::move(Message)});
}

bool DiagnosticLog::hasErrors() const {
  for (const Diagnostic &D : Diags)
    if (D.Level == Severity::Error)
      return true;
  return false;
}

bool DiagnosticLog::hasErrorsFor(const std::string &File) const {
  for (const Diagnostic &D : Diags)
    if (D.Level == Severity::Error && D.File == File)
      return true;
  return false;
}

void DiagnosticLog::raw(std::string Text) {
  if (Text.empty())
    return;
  Diagnostic D;
  D.Level = Severity::Note;
  D.Raw = true;
  D.Message = std::move(Text);
  report(std::move(D));
}

std::vector<Diagnostic> DiagnosticLog::forFile(const std::string &File) const {
  std::vector<Diagnostic> Out;
  for (const Diagnostic &D : Diags)
    if (D.File == File && !D.Raw)
      Out.push_back(D);
  return Out;
}

void DiagnosticLog::print(llvm::raw_ostream &OS, const Diagnostic &D,
                          bool Colors) {
  if (D.Raw) {
    OS << D.Message;
    OS.flush();
    return;
  }
  // As clang colours its own: the place bold, the level in its colour, the
  // message bold.
  if (Colors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  if (D.File.empty())
    OS << "warpwise";
  else
    OS << D.File;
  if (D.Line) {
    OS << ':' << D.Line;
    if (D.Column)
      OS << ':' << D.Column;
  }
  OS << ": ";
  if (Colors)
    OS.changeColor(D.Level == Severity::Error     ? llvm::raw_ostream::RED
                   : D.Level == Severity::Warning ? llvm::raw_ostream::MAGENTA
                   : D.Level == Severity::Remark  ? llvm::raw_ostream::BLUE
                                                  : llvm::raw_ostream::BLACK,
                   /*Bold=*/true);
  OS << severityName(D.Level) << ": ";
  if (Colors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << D.Message << " [" << D.Id << "]";
  if (Colors)
    OS.resetColor();
  OS << "\n";
  OS.flush();
}

nlohmann::json DiagnosticLog::toJson(const Diagnostic &D) {
  nlohmann::json J;
  J["id"] = D.Id;
  J["severity"] = severityName(D.Level);
  J["file"] = D.File;
  J["line"] = D.Line;
  J["column"] = D.Column;
  J["message"] = D.Message;
  // Only where it is so: reports written before silencing existed stay as
  // they were.
  if (D.Silenced)
    J["silenced"] = true;
  return J;
}

} // namespace warpwise
