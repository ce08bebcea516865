//===- Diagnostics.h - warpwise's own diagnostics ---------------*- C++ -*-===//
//
// Every message warpwise prints about a user's file has a stable id (WWnnnn)
// documented in docs/diagnostics.md, so scripts and reviewers can rely on it.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DIAGNOSTICS_H
#define WARPWISE_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json_fwd.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace warpwise {

enum class Severity { Error, Warning, Remark, Note };

const char *severityName(Severity S);

/// The stable ids. Ranges: 1xxx input and output, 2xxx analysis,
/// 3xxx planner decisions, 4xxx transformations.
namespace diag {
constexpr const char *CannotRead = "WW1001";
constexpr const char *NotCuda = "WW1002";
constexpr const char *BinaryInput = "WW1003";
constexpr const char *CompileErrors = "WW1004";
constexpr const char *CannotWrite = "WW1005";
constexpr const char *NoCudaToolkit = "WW1006";
constexpr const char *UsingStubHeaders = "WW1007";
constexpr const char *OverlappingEdits = "WW1008";
constexpr const char *DeviceOnlyParse = "WW1009";
constexpr const char *NoCompileCommand = "WW1010";
constexpr const char *DuplicateOutput = "WW1011";
/// A transformation crashed; its changes to the file are dropped.
constexpr const char *InternalError = "WW1012";
/// The rewrite did not reach a fixed point within its passes.
constexpr const char *NotSettled = "WW1013";
constexpr const char *ToolMissing = "WW1014";
constexpr const char *OverwritesInput = "WW1015";
/// A rewrite changes a project header, and the output (-o, stdout) has no
/// place for it.
constexpr const char *HeaderNeedsPlace = "WW1016";
/// Two inputs rewrite a header they share differently.
constexpr const char *HeaderConflict = "WW1017";
/// rewrite --no-ptxas: the decisions that need nvcc's measurements decline.
constexpr const char *MeasurementsOff = "WW1018";
/// --split-form KERNEL=FORM names a kernel that no input defines.
constexpr const char *UnknownKernelOption = "WW1019";
/// rewrite --tune could not time the program: the execution model decides.
constexpr const char *TuneUnavailable = "WW1020";
/// A .warpwise.yaml that cannot be read or holds a bad setting.
constexpr const char *BadConfig = "WW1021";
/// A warpwise-disable/-enable/-force directive that is malformed, names an
/// unknown transformation, or has no partner.
constexpr const char *BadDirective = "WW1022";
/// The code warpwise inserted could not be formatted (a .clang-format that
/// clang-format rejects): it is written as generated.
constexpr const char *NotFormatted = "WW1023";
/// The architecture measured for, where the compile flags name others (or
/// chose it: the most restrictive of theirs).
constexpr const char *BuildArches = "WW1026";
/// A -D of the build breaks clang's CUDA headers: defined after them for
/// the parse.
constexpr const char *DeferredMacros = "WW1027";
constexpr const char *NoKernels = "WW2001";
constexpr const char *PtxasFailed = "WW2004";
constexpr const char *NoLaunchBlockSize = "WW2005";
/// A split kernel other files may launch: those launches run it unsplit.
constexpr const char *LaunchedElsewhere = "WW2006";
/// rewrite --tune: what was timed and which rewrite was kept.
constexpr const char *TuneVerdict = "WW4010";
} // namespace diag

struct Diagnostic {
  std::string Id;
  Severity Level = Severity::Error;
  std::string File;  ///< Empty when the message concerns no file.
  unsigned Line = 0; ///< 1-based; 0 when unknown.
  unsigned Column = 0;
  std::string Message;
  /// Text printed as it is (clang's own diagnostics, -v output), kept in
  /// the log so that files processed in parallel print in input order; not
  /// part of any report.
  bool Raw = false;
  /// Silenced by --diag-suppress or DiagSuppress: not printed, not counted,
  /// kept in --report and --sarif with a flag. Never an error.
  bool Silenced = false;
};

/// \p Message on one line, as a compiler prints its diagnostics: the lines
/// of a multi-line message (an llvm::Error's, a tool's output) trimmed and
/// joined with "; ", empty ones dropped.
std::string oneLine(const std::string &Message);

/// Clang's own messages about \p Absolute (the path clang was given) with
/// the file as the user named it (\p Given), and every other absolute path
/// below the current directory relative to it, as warpwise's diagnostics
/// name files (SourceScope::displayPath).
std::string respellPaths(const std::string &Text, const std::string &Absolute,
                         const std::string &Given);

/// Collects diagnostics in the order they were reported and prints them in the
/// familiar compiler form `file:line:col: level: message [WWnnnn]`, one line
/// each.
class DiagnosticLog {
public:
  void report(Diagnostic D);
  void report(const char *Id, Severity Level, std::string File, unsigned Line,
              unsigned Column, std::string Message);

  /// Records \p Text to be printed verbatim (see Diagnostic::Raw).
  void raw(std::string Text);

  const std::vector<Diagnostic> &all() const { return Diags; }
  bool hasErrors() const;
  bool hasErrorsFor(const std::string &File) const;
  std::vector<Diagnostic> forFile(const std::string &File) const;

  /// Prints each diagnostic as it is reported when a stream is attached.
  void setEcho(llvm::raw_ostream *OS) { Echo = OS; }
  /// How the echo prints: \p Quiet (-q) leaves out remarks and notes (not
  /// the raw text, which carries clang's errors); \p Colors (--color)
  /// colours them as clang does; \p ShortRemarks (the default, `--remarks
  /// short`) prints each remark as shortRemark gives it. The log itself, and
  /// so the report and SARIF, keeps every message whole.
  void setEchoStyle(bool Quiet, bool Colors, bool ShortRemarks = false) {
    EchoQuiet = Quiet;
    EchoColors = Colors;
    EchoShortRemarks = ShortRemarks;
  }
  /// Silences the remarks, warnings and notes with these ids (errors are
  /// never silenced): of every file, or of \p File (as diagnostics name it).
  void silence(const std::vector<std::string> &Ids);
  void silenceFor(const std::string &File, const std::vector<std::string> &Ids);
  /// Whether \p D would be silenced here.
  bool silenced(const Diagnostic &D) const;

  static void print(llvm::raw_ostream &OS, const Diagnostic &D,
                    bool Colors = false);
  static nlohmann::json toJson(const Diagnostic &D);

  /// A remark as a build log shows it by default: its subject (the first
  /// clause, without its parenthesised details when long) and its outcome
  /// (the last clause; with the one before it when the last is a bare
  /// verdict such as "declined"), the clauses between left out as "...".
  /// Clauses are the message's `; `-separated parts outside brackets and
  /// backquotes. A message of at most MaxShortRemark characters is kept.
  static std::string shortRemark(llvm::StringRef Message);
  static constexpr size_t MaxShortRemark = 200;

private:
  std::vector<Diagnostic> Diags;
  llvm::raw_ostream *Echo = nullptr;
  bool EchoQuiet = false;
  bool EchoColors = false;
  bool EchoShortRemarks = false;
  std::set<std::string> Silenced;
  std::map<std::string, std::set<std::string>> SilencedFor;
};

} // namespace warpwise

#endif
