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
  if (Echo)
    print(*Echo, Diags.back());
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

void DiagnosticLog::print(llvm::raw_ostream &OS, const Diagnostic &D) {
  if (D.Raw) {
    OS << D.Message;
    OS.flush();
    return;
  }
  if (D.File.empty())
    OS << "warpwise";
  else
    OS << D.File;
  if (D.Line) {
    OS << ':' << D.Line;
    if (D.Column)
      OS << ':' << D.Column;
  }
  OS << ": " << severityName(D.Level) << ": " << D.Message << " [" << D.Id
     << "]\n";
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
