//===- Diagnostics.cpp - Printing and serialising diagnostics -------------===//
#include "warpwise/Diagnostics.h"

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

void DiagnosticLog::report(Diagnostic D) {
  Diags.push_back(std::move(D));
  const Diagnostic &Last = Diags.back();
  bool Hidden =
      EchoQuiet && !Last.Raw &&
      (Last.Level == Severity::Remark || Last.Level == Severity::Note);
  if (Echo && !Hidden)
    print(*Echo, Last, EchoColors);
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
  return J;
}

} // namespace warpwise
