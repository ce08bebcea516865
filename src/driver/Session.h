//===- Session.h - What the stages of one warpwise run share ----*- C++ -*-===//
//
// The driver runs one session as named stages (SessionInputs, FileRewrite,
// NvccCheck, HeaderOutputs, EmitOutputs, SessionReport); this header holds
// the records they hand each other: one input file as it goes through the
// pipeline, and the settings its configuration file makes of the options.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SESSION_H
#define WARPWISE_DRIVER_SESSION_H

#include "warpwise/Analysis.h"
#include "warpwise/Config.h"
#include "warpwise/Costs.h"
#include "warpwise/Diagnostics.h"
#include "warpwise/Edits.h"
#include "warpwise/Feedback.h"
#include "warpwise/Frontend.h"
#include "warpwise/Occupancy.h"
#include "warpwise/Options.h"
#include "warpwise/Transform.h"

#include "clang/Tooling/Core/Replacement.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpwise::driver {

/// What one configuration file (or none) makes of the run's options: the
/// inputs that find the same .warpwise.yaml share it.
struct FileSettings {
  std::string ConfigPath; ///< "" : no configuration file.
  std::vector<std::string> Transforms;
  std::string MeldForm = "auto";
  std::string SplitForm;
  std::map<std::string, KernelSettings> Kernels;
  std::optional<CostTable> Costs;
};

/// One change a pass of the rewrite made, with the transformation and the
/// applied decision (its id, "" when none names it) it carries out.
struct PassChange {
  Change Edit;
  std::string Transform;
  std::string DecisionId;
};

/// A pass of the rewrite that changed something: the edits of the passes
/// before it (offsets in the original files) and its own changes (offsets
/// in the text those edits make).
struct PassRecord {
  unsigned Number = 1;
  EditSet Before;
  std::vector<PassChange> Changes;
};

struct InputFile {
  std::string Given;    ///< As on the command line.
  std::string Absolute; ///< What clang and the YAML see.
  const FileSettings *Settings = nullptr;
  /// The names applied decisions took (TransformContext::DecisionIds).
  std::map<std::string, unsigned> DecisionIds;
  std::string Contents;
  bool Readable = false;
  bool Parsed = false;
  FileAnalysis Analysis;
  std::vector<Decision> Decisions;
  EditSet Edits;
  std::string Rewritten;
  std::string OutputPath;
  /// The project headers the translation unit read (for --depfile and the
  /// ptxas cache key).
  std::vector<std::string> FilesRead;
  /// The edits written, in the file's line endings.
  clang::tooling::Replacements Final;
  bool Written = false;
  /// Transformations that crashed on this file (WW1012): their changes are
  /// dropped and later passes skip them.
  std::set<std::string> Crashed;
  /// The project headers (normalised absolute paths) the rewrite edits,
  /// with their text as the first pass that edited them parsed it.
  std::map<std::string, std::string> Headers;
  /// Their rewritten text.
  std::map<std::string, std::string> HeadersRewritten;
  /// The edits written to each header, in its line endings.
  std::map<std::string, clang::tooling::Replacements> HeaderFinal;
  /// Headers taken out of scope: two inputs rewrote them differently.
  std::set<std::string> ExcludedHeaders;
  /// The changes the latest pass made (FileProcessor), and every pass that
  /// changed something (settle): what is dropped when the rewrite does not
  /// compile (WW1012).
  std::vector<PassChange> PassChanges;
  std::vector<PassRecord> Passes;
  /// Which files include each project header of the translation unit.
  IncludeGraph Includers;
};

/// The passes of one rewrite are bounded: each pass after the first needs a
/// parse and, without --force-transforms, nvcc measurements again.
constexpr unsigned MaxRewritePasses = 4;

/// A project header the rewrite changes, written once (inputs that share
/// one agree on it, see resolveHeaderConflicts): original text, new text,
/// destination, and the inputs that rewrote it.
struct HeaderOutput {
  std::string Original, Rewritten, OutputPath;
  std::vector<const InputFile *> Owners;
  /// An unchanged header copied into --out-dir (see collectHeaderOutputs).
  bool Copy = false;
};

/// Everything the stages of one run share, in the order they fill it in.
struct Session {
  Options Opts;
  /// .warpwise.yaml by path, read once each, and each input's (ConfigOf[I];
  /// "" : none).
  std::map<std::string, ProjectConfig> Configs;
  std::vector<std::string> ConfigOf;
  std::optional<ArchTable> Table;
  const ArchLimits *Arch = nullptr;
  /// The transformations the command line chooses, in registry order.
  std::vector<std::string> Transforms;
  /// Each configuration's settings under the command line's.
  std::map<std::string, FileSettings> Settings;
  DiagnosticLog Log;
  std::vector<InputFile> Inputs;
  std::unique_ptr<Frontend> Front;
  std::unique_ptr<CompileFeedback> Feedback;
  /// Feedback, or null where the CUDA toolkit's headers were not found.
  CompileFeedback *FeedbackPtr = nullptr;
  /// analyze reports facts; only rewrite plans and transforms.
  const std::vector<std::string> NoTransforms;
  /// Two inputs rewrote a header differently (WW1017).
  bool HeaderConflicts = false;
  /// The rewritten headers (and the copies --out-dir needs) by path.
  std::map<std::string, HeaderOutput> HeaderOutputs;
  /// The rewrite goes to standard output.
  bool ToStdout = false;
  /// Writing an output failed.
  bool Failed = false;

  /// The transformations that run on \p F: none for analyze.
  const std::vector<std::string> &activeFor(const InputFile &F) const {
    return Opts.Cmd == Command::Rewrite ? F.Settings->Transforms : NoTransforms;
  }
  /// An error that stops the outputs, of \p File ("" : of any file).
  bool blockingErrors(const std::string &File) const;
  /// A WW1012: a transformation crashed or its rewrite did not compile.
  bool internalErrors() const;
  /// Without --keep-going, one file's error stops every output.
  bool mayWrite(const InputFile &F) const;
  /// A header is written when every input that rewrote it may be.
  bool mayWriteHeader(const HeaderOutput &H) const;
};

/// Whether \p L holds an error that stops the outputs, of \p File ("" : of
/// any file). A crashed transformation (WW1012) is reported as an error but
/// does not stop the outputs: the file is written without that
/// transformation's changes, and the exit code (3) says so. Nor does a
/// header two inputs rewrite differently (WW1017): both are written without
/// its changes.
bool blockingIn(const DiagnosticLog &L, const std::string &File);

} // namespace warpwise::driver

#endif
