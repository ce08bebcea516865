//===- Session.h - What the stages of one warpwise run share ----*- C++ -*-===//
//
// The driver runs one session as named stages; this header holds the
// records they hand each other: one input file as it goes through the
// pipeline, and the settings its configuration file makes of the options.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_SESSION_H
#define WARPWISE_DRIVER_SESSION_H

#include "warpwise/Analysis.h"
#include "warpwise/Config.h"
#include "warpwise/Costs.h"
#include "warpwise/Edits.h"
#include "warpwise/Feedback.h"
#include "warpwise/Transform.h"

#include "clang/Tooling/Core/Replacement.h"

#include <map>
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

} // namespace warpwise::driver

#endif
