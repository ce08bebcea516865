//===- Options.h - Command-line options -------------------------*- C++ -*-===//
#ifndef WARPWISE_OPTIONS_H
#define WARPWISE_OPTIONS_H

#include "warpwise/Frontend.h"

#include <optional>
#include <string>
#include <vector>

namespace warpwise {

enum class Command {
  None,
  Analyze,
  Rewrite,
  Occupancy,
  Offload, ///< offload: OpenMP loops to CUDA kernels.
  Help,
  Version,
  Explain,       ///< --explain WWnnnn, explain WWnnnn.
  ListTransforms ///< --list-transforms.
};
enum class OutputFormat { Text, Json };
/// --color: warpwise's and clang's diagnostics on standard error.
enum class ColorChoice { Auto, Always, Never };

struct Options {
  Command Cmd = Command::None;
  std::vector<std::string> Files;
  FrontendOptions Front;
  OutputFormat Format = OutputFormat::Text;
  bool AssumeCuda = false;
  std::string RulesPath; ///< --arches: an arches.json to use instead of ours.
  std::string CostsPath; ///< --costs: a costs.json to use instead of ours.
  unsigned Jobs = 1;     ///< -j: files processed in parallel.
  bool KeepGoing = false; ///< --keep-going: write the files that succeeded.
  bool SaveTemps = false; ///< --save-temps: keep the temporary directory.
  /// --header-filter: which non-system headers' kernels are analysed and
  /// rewritten, by their absolute path; "" means the main file only.
  std::string HeaderFilter = ".*";
  /// help: the command whose options to show (None: the overview).
  Command HelpTopic = Command::None;
  std::string ExplainId; ///< --explain: the WWnnnn id asked about.
  bool Quiet = false;    ///< -q: no remarks or notes on standard error.
  /// --remarks: "short", "full", or "" (the default: shortRemarks()).
  std::string Remarks;
  ColorChoice Color = ColorChoice::Auto;
  /// The options given, as spelled without their value ("--diff", "-j8",
  /// "--fmad=false"), for the check that the command reads each one.
  std::vector<std::string> Given;

  /// --config-file: the .warpwise.yaml for every input ("" : the nearest
  /// one above each input).
  std::string ConfigFile;
  bool DumpConfig = false; ///< --dump-config: print the settings and stop.
  bool ArchGiven = false;  ///< --arch was given (it wins over the file's).
  /// --style: clang-format's style for the inserted code ("file", "LLVM",
  /// "{...}"); "" : the nearest .clang-format, else LLVM.
  std::string Style;
  // analyze
  std::optional<unsigned> BlockSize;
  bool UsePtxas = true;
  std::string CacheDir;

  // rewrite
  std::string OutputFile;
  std::string OutputDir;
  std::string InRoot;  ///< --in-root: --out-dir mirrors the tree below it.
  std::string Depfile; ///< --depfile: Make rules for the outputs.
  /// --line-directives: the files written start with `#line 1 "<input>"`
  /// and map every unchanged line back to it (for build integrations).
  bool LineDirectives = false;
  bool InPlace = false;
  bool Diff = false;
  /// rewrite --check: write nothing, list what would change, exit 1 if any.
  bool Check = false;
  std::string ExportFixes;
  std::string Report;
  std::string Sarif; ///< --sarif: the diagnostics as SARIF 2.1.0.
  /// --diag-suppress: ids of remarks and warnings not to print.
  std::vector<std::string> DiagSuppress;
  std::vector<std::string> Transforms;
  bool TransformsGiven = false;
  bool ForceTransforms = false;
  /// A kernel rewritten in place keeps its original, and its launches time
  /// both and run the faster (MeasuredDispatch.h). It is part of the default
  /// set; --measured-dispatch adds it to a --transforms list that lacks it,
  /// --no-measured-dispatch removes it (the last of the two given wins).
  enum class DispatchChoice { Default, Add, Remove };
  DispatchChoice MeasuredDispatch = DispatchChoice::Default;
  std::string SplitForm; ///< --split-form literal: force that form.
  /// --meld-form: "auto" (the model chooses), "merged" or "branch-free".
  std::string MeldForm = "auto";
  bool MeldFormGiven = false;
  bool FmadFalse = false; ///< --fmad=false: built without fma contraction.
  /// --tune: time the rewrites on a GPU and keep the fastest (Tune.h).
  bool Tune = false;
  std::vector<std::string> TuneArgs; ///< --tune-args, split at spaces.
  bool TuneArgsGiven = false;
  unsigned TuneRuns = 3;
  std::string TuneCache;

  // offload
  bool NoRewrite = false; ///< --no-rewrite: stop after the translation.
  /// --whole-program: the input is the whole program, so every call of a
  /// function is in it (offload follows external functions' callers).
  bool WholeProgram = false;

  // occupancy
  std::optional<unsigned> Registers;
  std::optional<unsigned> Threads;
  unsigned long SharedBytes = 0;
};

struct ParseOutcome {
  bool OK = false;
  std::string Error; ///< Usage error, printed with a pointer to --help.
};

ParseOutcome parseCommandLine(const std::vector<std::string> &Args,
                              Options &Opts);

/// Whether remarks are echoed short (DiagnosticLog::shortRemark): --remarks
/// if given, else not with -v, else unless WARPWISE_REMARKS=full.
bool shortRemarks(const Options &Opts);

} // namespace warpwise

#endif
