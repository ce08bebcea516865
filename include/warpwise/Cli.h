//===- Cli.h - Help, explanations and summaries for people ------*- C++ -*-===//
//
// What the command line says to the person at it, apart from the parsing
// itself (Options.h): the help of each command, "did you mean" for a
// misspelt option or command, which command reads each option, --explain
// (from the table of docs/diagnostics.md, embedded at build time),
// --list-transforms, colours, and the closing summary line.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_CLI_H
#define WARPWISE_CLI_H

#include "warpwise/Options.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace warpwise {

class DiagnosticLog;
struct Decision;
struct FileAnalysis;

/// The help of \p Topic (analyze, rewrite, occupancy): the usage line, the
/// common options and that command's; the overview for anything else.
std::string helpText(Command Topic = Command::None);

/// The command named \p Name ("analyze", "rewrite", "occupancy"), or None.
Command commandNamed(llvm::StringRef Name);
const char *commandName(Command C);

/// The closest of \p Known to \p Given by edit distance when it is close
/// (at most 2 edits, or a third of the length), else "".
std::string closestMatch(llvm::StringRef Given,
                         llvm::ArrayRef<std::string> Known);

/// "unknown option '--difff'; did you mean '--diff'?" for \p Arg given to
/// \p Cmd (None: before any command), naming the command of a suggestion
/// that \p Cmd does not read.
std::string unknownOptionMessage(llvm::StringRef Arg, Command Cmd);
/// "unknown command 'rewirte'; did you mean 'rewrite'?".
std::string unknownCommandMessage(llvm::StringRef Name);

/// A usage error when one of \p Opts.Given has no effect in \p Opts.Cmd
/// ("'--diff' is an option of 'warpwise rewrite', not of 'warpwise
/// analyze'"), else "".
std::string checkOptionsApply(const Options &Opts);

/// Prints `warpwise: error: MESSAGE` and the pointer to --help (coloured
/// when standard error's colours are on) and returns the usage exit code.
int printUsageError(const std::string &Message);

/// Resolves --color (auto: standard error is a terminal), turns standard
/// error's colours on or off accordingly and records the choice in
/// Opts.Front.Colors for clang's diagnostics.
void applyColorChoice(Options &Opts);

/// Runs the commands that only print (help, --explain, --list-transforms);
/// the exit code, or nothing for the others.
std::optional<int> runInfoCommand(const Options &Opts);

/// One --explain entry: the row of docs/diagnostics.md's table.
struct DiagnosticDoc {
  std::string Id, Severity, When, WhatToDo, Evidence;
};
/// The rows of the table in \p Markdown (docs/diagnostics.md).
std::vector<DiagnosticDoc> parseDiagnosticTable(llvm::StringRef Markdown);
/// The ids of \p Docs as ranges: "WW1001-WW1020, WW2001, ...".
std::string idRanges(const std::vector<DiagnosticDoc> &Docs);

/// What the closing summary counts for one input.
struct FileSummary {
  std::string File;
  /// "error", "unchanged" or "rewritten", as in the JSON report, or "not
  /// written": changed, but held back by another input's error.
  std::string Status;
  const FileAnalysis *Analysis = nullptr; ///< Null when it did not parse.
  const std::vector<Decision> *Decisions = nullptr;
};
/// The closing line of analyze and rewrite on standard error, e.g.
/// `warpwise: 3 files: 2 rewritten, 1 unchanged; 4 changes applied (fuse 2,
/// meld 1, split 1), 7 declined; 1 warning` (warnings and errors only when
/// there are any). Not printed with -q, nor for one input with nothing to
/// say (no change applied, no warning and no error).
void printSummary(llvm::raw_ostream &OS, const Options &Opts,
                  const std::vector<FileSummary> &Files,
                  const DiagnosticLog &Log);

} // namespace warpwise

#endif
