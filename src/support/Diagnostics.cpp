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
/// parentheses, brackets, braces and backquoted code).
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
  return Out;
}

/// \p Clause without its top-level " (...)" parts.
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
  return Out;
}

/// \p Text cut at a word boundary to about \p Max characters, "..." added.
std::string cut(llvm::StringRef Text, size_t Max) {
  if (Text.size() <= Max)
    return Text.str();
  size_t At = Text.rfind(' ', Max);
  if (At == llvm::StringRef::npos || At < Max / 2)
    At = Max;
  return Text.take_front(At).rtrim(" ,;:").str() + " ...";
}

} // namespace

std::string DiagnosticLog::shortRemark(llvm::StringRef Message) {
  if (Message.size() <= MaxShortRemark)
    return Message.str();
  std::vector<llvm::StringRef> Parts = clauses(Message);
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
  if (Head.size() > 100 && Subject != std::string::npos)
    Head.resize(Subject);
  if (Parts.size() == 1)
    return cut(Head, MaxShortRemark);
  // The outcome: the last clause, and the reason before a bare verdict
  // ("declined", "not split", "applied").
  size_t First = Parts.size() - 1;
  if (First > 1 && Parts.back().count(' ') < 2)
    --First;
  std::string Tail;
  for (size_t I = First; I < Parts.size(); ++I) {
    bool Verdict = I + 1 == Parts.size() && I > First;
    Tail += (Tail.empty() ? "" : "; ") +
            (Verdict ? Parts[I].str() : cut(Parts[I], 140));
  }
  return cut(Head, 100) + (First > 1 ? "; ...; " : "; ") + Tail;
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
