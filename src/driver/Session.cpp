//===- Session.cpp - What the stages of one warpwise run share ------------===//
//
// The questions every stage asks of the run so far: whether an error stops
// the outputs, and whether a file or a header may be written.
//
//===----------------------------------------------------------------------===//
#include "Session.h"

#include "warpwise/SourceScope.h"

#include "llvm/ADT/STLExtras.h"

namespace warpwise::driver {

bool blockingIn(const DiagnosticLog &L, const std::string &File) {
  for (const Diagnostic &D : L.all())
    if (D.Level == Severity::Error && D.Id != diag::InternalError &&
        D.Id != diag::HeaderConflict && (File.empty() || D.File == File))
      return true;
  return false;
}

bool Session::blockingErrors(const std::string &File) const {
  return blockingIn(Log, File);
}

bool Session::internalErrors() const {
  for (const Diagnostic &D : Log.all())
    if (D.Id == diag::InternalError)
      return true;
  return false;
}

bool Session::mayWrite(const InputFile &F) const {
  if (!F.Parsed)
    return false;
  if (!Opts.KeepGoing)
    return !blockingErrors("");
  for (const Diagnostic &D : Log.all())
    if (D.Level == Severity::Error && D.Id != diag::InternalError &&
        D.Id != diag::HeaderConflict && (D.File == F.Given || D.File.empty()))
      return false;
  return true;
}

bool Session::mayWriteHeader(const HeaderOutput &H) const {
  if (blockingErrors(""))
    return Opts.KeepGoing &&
           llvm::all_of(H.Owners,
                        [&](const InputFile *F) { return mayWrite(*F); }) &&
           !llvm::any_of(Log.all(), [&](const Diagnostic &D) {
             return D.Level == Severity::Error &&
                    D.File == SourceScope::displayPath(H.OutputPath);
           });
  return true;
}

} // namespace warpwise::driver
