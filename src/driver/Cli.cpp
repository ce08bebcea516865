//===- Cli.cpp - Help, explanations and summaries for people --------------===//
#include "warpwise/Cli.h"

#include "warpwise/Analysis.h"
#include "warpwise/Diagnostics.h"
#include "warpwise/Driver.h"
#include "warpwise/Embedded.h"
#include "warpwise/Transform.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace warpwise {

namespace {

// The help, in sections; the command's help is its usage line, the common
// options, the options analyze and rewrite share, and its own.
const char *Title =
    "warpwise - divergence- and register-aware CUDA source rewriter\n";

const char *UsageAnalyze =
    "  warpwise analyze   FILE... [options] [-- <compiler flags>]\n";
const char *UsageRewrite =
    "  warpwise rewrite   FILE... [-o OUT | --out-dir DIR | -i] [--diff]\n"
    "                     [--export-fixes F.yaml] [--report R.json]\n"
    "                     [--transforms LIST] [options] [-- <compiler "
    "flags>]\n";
const char *UsageOffload =
    "  warpwise offload   FILE.c|.cpp -o OUT.cu [--diff] [--report R.json]\n"
    "                     [--no-rewrite] [options] [-- <compiler flags>]\n";
const char *UsageOccupancy =
    "  warpwise occupancy --arch sm_XX --regs N --threads T [--smem BYTES]\n";

const char *Commands = R"(
COMMANDS
  analyze               divergence, register pressure and occupancy of each
                        kernel
  rewrite               rewrite the kernels where it is legal and pays
                        (fuse, meld, realloc, fission, split, refill,
                        share)
  offload               translate OpenMP parallel loops of a C/C++ file to
                        CUDA kernels, then rewrite them as 'rewrite' does
  occupancy             the occupancy of one launch configuration
  explain WWnnnn        what a diagnostic means and what you can do (also
                        --explain WWnnnn)
  help COMMAND          the options of COMMAND (also COMMAND --help)
  --list-transforms     the transformations, their forms and the
                        diagnostics they report
)";

const char *CommonOptions = R"(
COMMON OPTIONS
  --arch sm_XX          target architecture (default sm_90); sm_10..sm_121
  --arches FILE         architecture table to use instead of the built-in one
  --color[=WHEN]        colour the diagnostics as clang does: auto (when
                        standard error is a terminal; the default), always
                        (also --color alone) or never
  -h, --help            this help
)";

const char *InputOptions = R"(
OPTIONS OF ANALYZE AND REWRITE
  --cuda-path DIR       CUDA toolkit to parse with (default: $CUDA_PATH,
                        /usr/local/cuda, then the nvcc on PATH)
  --stub-cuda           parse with warpwise's stub header, not the toolkit's
  --no-stub-cuda        fail instead of falling back to the stub header
  --cuda-mode MODE      host | device | auto (default auto: host, or device
                        when the file uses __CUDA_ARCH__)
  -p DIR                read compile flags from DIR/compile_commands.json
                        (without -p and without '--': the nearest
                        compile_commands.json in the file's directory or a
                        parent, when it has an entry for the file). nvcc,
                        gcc and clang command lines are translated with
                        rules/nvcc-flags.json; -v shows what was dropped
  --extra-arg ARG       add ARG after the compile command's flags
  --extra-arg-before ARG  add ARG before them
  --resource-dir DIR    clang resource directory (default: clang 22's)
  --assume-cuda         parse files that do not end in .cu/.cuh as CUDA
  --config-file FILE    the settings file for every input (default: the
                        nearest .warpwise.yaml in the input's directory or
                        a parent); the command line wins over it
  --dump-config         print the settings that apply to the first input
                        (or the current directory) as YAML, and stop
  --header-filter REGEX analyse and rewrite kernels in the non-system headers
                        whose absolute path matches (default: all of them;
                        '' for the main file only)
  -v                    print the clang resource dir, CUDA path and version,
                        the CUDA tools used, and the clang command line of
                        each file (with the compile flags that were dropped);
                        remarks whole (--remarks full)
  --remarks short|full  remarks as their subject and outcome, the reasoning
                        between left out as "..." (short, the default), or
                        whole (full; the default with -v, or where the
                        environment has WARPWISE_REMARKS=full, in any case);
                        --report and --sarif always have them whole
  -q, --quiet           print no remarks and notes, only warnings and errors,
                        and no closing summary (--report still has them all);
                        not with -v
  --diag-suppress IDS   print none of these remarks and warnings (comma-
                        separated WWnnnn ids, as nvcc's --diag-suppress;
                        errors cannot be silenced); --report and --sarif
                        keep them, marked as silenced
  --sarif FILE          write the diagnostics as SARIF 2.1.0, for
                        code-review tools
  -j N, --jobs N        process N files in parallel (default 1); the output
                        is the same as with -j 1
  --save-temps          keep warpwise's temporary directory (stub headers,
                        candidates compiled with nvcc) and print its path
  --block-size N        block size for occupancy when no launch gives one
  --no-ptxas            do not compile with nvcc for real register counts
  --cache-dir DIR       cache of nvcc results (analyze's ptxas counts and
                        rewrite's candidate measurements; default
                        $XDG_CACHE_HOME/warpwise)
)";

const char *AnalyzeOptions = R"(
ANALYZE
  --format text|json    output format of analyze and occupancy
)";

const char *RewriteOptions = R"(
REWRITE
  -o FILE               write the rewritten file here (one input only; '-'
                        is standard output); never an input without -i
  --out-dir DIR         write each rewritten file to DIR/<path below the
                        input root>, creating directories
  --in-root DIR         the root of the input tree that --out-dir mirrors
                        (default: the inputs' deepest common directory)
  --depfile FILE        write Make rules: each output depends on its input
                        and on every project header the file read
  --line-directives     start each file written (-o, --out-dir) with
                        #line 1 "<input>" and map its unchanged lines back
                        to their lines in the input, so that the compiler's
                        diagnostics on the copy name the user's file (for
                        build integrations; --diff shows no directives)
  -i                    rewrite the inputs in place
  --style STYLE         clang-format style for the code warpwise inserts:
                        file (the nearest .clang-format), LLVM, Google,
                        ..., {key: value, ...} or none (default: file,
                        else LLVM)
  --diff                print a unified diff of the changes
  --check               write nothing; list the files the rewrite would
                        change and exit 1 if there is one (0 if none), for CI
  --export-fixes FILE   write the edits of all files as one
                        clang-apply-replacements YAML document (offsets into
                        the original files; not with -i)
  --report FILE         write a JSON report of analyses and decisions ('-':
                        standard output)
  --keep-going, -k      rewrite: write the files that succeeded even when
                        others have errors (the exit code still says so)
  --costs FILE          cost table (fuse/meld) to use instead of the built-in one
  --transforms LIST     comma-separated transformations to consider:
                        meld, fuse, realloc, fission, split, refill, share,
                        dispatch (default: all; 'none' for none)
  --list-transforms     list the transformations, their forms and the
                        diagnostics they report, and exit
  --split-form FORM     force branch splitting in this form: adaptive,
                        literal or compact ('none' disables splitting);
                        KERNEL=FORM[,KERNEL=FORM...] forces it for those
                        kernels only (the planner decides for the others)
  --meld-form FORM      the form melding may take: auto (the execution
                        model chooses), merged (guarded, operands
                        selected) or branch-free (stores made
                        unconditional where that is proven safe)
  --force-transforms    apply every legal candidate without the
                        profitability checks (for exploring; the legality
                        checks and the uniform-branch rule still hold)
  --no-measured-dispatch
                        leave out the measured dispatch (on by default:
                        a kernel rewritten in place keeps its original
                        beside the rewrite, and each launch of it in the
                        file times both on its first launches of each
                        shape and runs the faster; warpwise's runtime,
                        -DWARPWISE_DISPATCH=0 or =1 pins one)
  --measured-dispatch   add the measured dispatch to a --transforms list
                        that does not name it
  --tune                with a GPU: build the original program and each
                        distinct rewrite (the model's choice, each meld
                        form, with and without realloc), run them on the
                        program's own launches (--tune-args), time every
                        kernel launch with CUDA events, check that each
                        prints what the original prints, and keep the
                        fastest; the verdict is cached per source,
                        options and --arch; without a GPU or a cached
                        verdict the execution model decides (one input)
  --tune-args ARGS      the program's arguments for --tune (split at
                        spaces)
  --tune-runs N         interleaved rounds of --tune (default 3)
  --tune-cache FILE     where --tune verdicts are kept (default
                        tune.json in $XDG_CACHE_HOME/warpwise or
                        ~/.cache/warpwise)
  --fmad=false          the program is built with nvcc -fmad=false: fuse
                        and meld may then select a floating-point product
                        apart from the add that consumes it (at the default
                        --fmad=true that would change nvcc's fma contraction
                        and the results' rounding, so it is not done)
  Without -o, --out-dir, -i, --diff, --export-fixes or --report, the
  rewritten source of the one input is printed on standard output.
  Nothing is written for any file when an input has errors.
)";

const char *OffloadOptions = R"(
OFFLOAD
  -o FILE               the CUDA file to write ('-': standard output, with
                        --no-rewrite)
  --diff                print the unified diff from the input to the output
  --report FILE         the decisions as JSON ('-': standard output)
  --no-rewrite          stop after the translation (default: the output is
                        then rewritten in place as 'warpwise rewrite -i'
                        would, with the same --arch)
  --block-size N        threads per block of a one-dimensional loop (default
                        256; two- and three-dimensional nests use 32x8 and
                        32x4x2)
  --whole-program       the input is the whole program (one file): the
                        callers of a function with external linkage are
                        all in it, so its pointer parameters' extents may
                        come from them (by default only static functions')
  --fmad=false          round each floating-point product of the kernels on
                        its own (__fmul_rn, __dmul_rn), as a host build
                        without FMA does, whatever nvcc's -fmad; the rewrite
                        that follows gets --fmad=false too
  --cuda-path, --stub-cuda, -p, --extra-arg, '--', -q/-v and --remarks as
  for rewrite.
  The input is parsed as C (.c) or C++ (.cpp, .cc, .cxx) with -fopenmp;
  C as gcc before 14 takes it (K&R definitions, implicit int and implicit
  declarations accepted, and written in C++ in the output: WW5006).
  Each loop is offloaded or kept on the host with a warning saying why
  (WW5001-WW5006); a file that does not parse is never written. An output
  with an offloaded loop includes the run-time support, which is written
  beside it as warpwise_offload.cuh (not with -o -).
)";

const char *OccupancyOptions = R"(
OCCUPANCY
  --regs N              registers per thread
  --threads T           threads per block
  --smem BYTES          shared memory per block (default 0)
  --format text|json    output format of analyze and occupancy
)";

const char *ExitCodes = R"(
EXIT CODES
  0 done, 1 problems with the input or output files, 2 usage errors,
  3 a transformation crashed on a file or produced code that does not
  compile (WW1012): the outputs were written without the changes responsible
)";

enum CommandBits : unsigned {
  A = 1,
  R = 2,
  O = 4,
  F = 8, ///< offload
  AR = A | R,
  ARF = A | R | F,
  All = 15
};

/// Every option, with the commands that read it. Aliases follow the name.
struct OptionInfo {
  const char *Name;
  unsigned Commands;
  const char *Alias = nullptr;
};
const OptionInfo OptionTable[] = {
    {"--arch", All},
    {"--arches", All},
    {"--color", All},
    {"--help", All, "-h"},
    {"--cuda-path", ARF},
    {"--stub-cuda", ARF},
    {"--no-stub-cuda", ARF},
    {"--cuda-mode", AR},
    {"-p", ARF},
    {"--extra-arg", ARF},
    {"--extra-arg-before", ARF},
    {"--resource-dir", ARF},
    {"--assume-cuda", AR},
    {"--config-file", AR},
    {"--dump-config", AR},
    {"--header-filter", AR},
    {"--verbose", ARF, "-v"},
    {"--quiet", ARF, "-q"},
    {"--remarks", ARF},
    {"--jobs", AR, "-j"},
    {"--save-temps", AR},
    {"--block-size", ARF},
    {"--no-ptxas", AR},
    {"--cache-dir", AR},
    {"--", ARF},
    {"--format", A | O},
    {"-o", R | F},
    {"--out-dir", R},
    {"--in-root", R},
    {"--depfile", R},
    {"--line-directives", R},
    {"--in-place", R, "-i"},
    {"--style", R | F},
    {"--diff", R | F},
    {"--check", R},
    {"--export-fixes", R},
    {"--report", R | F},
    {"--sarif", AR},
    {"--diag-suppress", AR},
    {"--keep-going", R, "-k"},
    {"--costs", R},
    {"--transforms", R},
    {"--list-transforms", R},
    {"--split-form", R},
    {"--meld-form", R},
    {"--force-transforms", R},
    {"--measured-dispatch", R},
    {"--no-measured-dispatch", R},
    {"--tune", R},
    {"--tune-args", R},
    {"--tune-runs", R},
    {"--tune-cache", R},
    {"--fmad", R | F},
    {"--no-rewrite", F},
    {"--whole-program", F},
    {"--regs", O},
    {"--threads", O},
    {"--smem", O},
};

/// The options accepted before any command.
const char *TopLevel[] = {"--help", "-h", "--version", "--explain",
                          "--list-transforms"};

unsigned bitOf(Command C) {
  switch (C) {
  case Command::Analyze:
    return A;
  case Command::Rewrite:
    return R;
  case Command::Occupancy:
    return O;
  case Command::Offload:
    return F;
  default:
    return 0;
  }
}

const OptionInfo *findOption(llvm::StringRef Spelled) {
  llvm::StringRef Name = Spelled.split('=').first;
  if (Name.starts_with("-j") && Name.size() > 2 && Name[1] == 'j' &&
      llvm::all_of(Name.drop_front(2), llvm::isDigit))
    Name = "-j";
  for (const OptionInfo &O : OptionTable)
    if (Name == O.Name || (O.Alias && Name == O.Alias))
      return &O;
  return nullptr;
}

/// "'warpwise analyze' and 'warpwise rewrite'".
std::string commandsOf(unsigned Bits) {
  std::vector<std::string> Names;
  for (Command C : {Command::Analyze, Command::Rewrite, Command::Offload,
                    Command::Occupancy})
    if (Bits & bitOf(C))
      Names.push_back(std::string("'warpwise ") + commandName(C) + "'");
  std::string Out;
  for (size_t I = 0; I < Names.size(); ++I)
    Out += (I == 0 ? "" : I + 1 == Names.size() ? " and " : ", ") + Names[I];
  return Out;
}

void printDiagnosticTo(llvm::raw_ostream &OS, llvm::StringRef Where,
                       Severity Level, llvm::StringRef Message) {
  bool Colors = OS.colors_enabled();
  if (Colors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Where << ": ";
  if (Colors) {
    switch (Level) {
    case Severity::Error:
      OS.changeColor(llvm::raw_ostream::RED, true);
      break;
    case Severity::Warning:
      OS.changeColor(llvm::raw_ostream::MAGENTA, true);
      break;
    case Severity::Remark:
      OS.changeColor(llvm::raw_ostream::BLUE, true);
      break;
    case Severity::Note:
      OS.changeColor(llvm::raw_ostream::BLACK, true);
      break;
    }
  }
  OS << severityName(Level) << ": ";
  if (Colors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
  OS << Message;
  if (Colors)
    OS.resetColor();
}

/// \p Text wrapped at 79 columns, its lines after the first indented by
/// \p Indent.
std::string wrap(llvm::StringRef Text, size_t Indent) {
  std::string Out;
  size_t Column = Indent;
  llvm::SmallVector<llvm::StringRef> Words;
  Text.split(Words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef W : Words) {
    if (Column > Indent && Column + 1 + W.size() > 79) {
      Out += "\n" + std::string(Indent, ' ');
      Column = Indent;
    } else if (Column > Indent) {
      Out += ' ';
      ++Column;
    }
    Out += W.str();
    Column += W.size();
  }
  return Out;
}

int runExplain(const Options &Opts) {
  const char *Markdown = findEmbeddedFile("diagnostics.md");
  std::vector<DiagnosticDoc> Docs =
      parseDiagnosticTable(Markdown ? Markdown : "");
  std::string Id = llvm::StringRef(Opts.ExplainId).trim().upper();
  for (const DiagnosticDoc &D : Docs) {
    if (D.Id != Id)
      continue;
    llvm::raw_ostream &OS = llvm::outs();
    OS << D.Id << " (" << D.Severity << ")\n";
    auto Field = [&](llvm::StringRef Label, llvm::StringRef Text) {
      std::string Head = ("  " + Label + ":").str();
      Head.resize(std::max<size_t>(Head.size() + 1, 20), ' ');
      OS << Head << wrap(Text, Head.size()) << "\n";
    };
    Field("when", D.When);
    Field("what you can do", D.WhatToDo);
    Field("evidence", D.Evidence);
    return ExitOK;
  }
  return printUsageError("unknown diagnostic id '" + Opts.ExplainId +
                         "'; the ids are " + idRanges(Docs) +
                         " (docs/diagnostics.md)");
}

struct TransformDoc {
  const char *Name, *Description, *Forms, *Ids;
};
const TransformDoc TransformDocs[] = {
    {"meld",
     "control-flow melding: a divergent if-else whose sides hold if, for "
     "and while runs as one path with selected conditions, bounds and "
     "operands",
     "merged, branch-free (--meld-form)", "WW4001 applied, WW3001 declined"},
    {"fuse",
     "branch fusion: a divergent if-else of straight-line sides runs as one "
     "sequence with the differing operands selected",
     "one", "WW4001 applied, WW3001 declined"},
    {"realloc",
     "thread reallocation: in `if (tid ^ j > tid)` steps the passing "
     "threads' pairs go to the lowest threads, so warps are full or empty",
     "one", "WW4001 applied, WW3001 declined"},
    {"fission",
     "loop fission: a for loop becomes several loops over the same range, "
     "each with part of the body, when that gains occupancy",
     "one", "WW4002 applied, WW3002 declined"},
    {"split",
     "branch splitting: a kernel's top-level divergent if-else becomes "
     "kernels of their own, with the host launches rewritten",
     "adaptive, literal, compact (--split-form)",
     "WW4003 applied, WW3003 declined, WW2006 launched elsewhere, WW1019 "
     "unknown kernel in --split-form"},
    {"refill",
     "work refill: in a kernel whose threads each loop over one item's "
     "data-dependent work, lanes whose item is done take the next one from "
     "a per-launch counter, so warps stay full until the work runs out",
     "counter", "WW4005 applied, WW3005 declined"},
    {"share",
     "variable sharing: block-uniform scalars and tables every thread "
     "computes are computed once per block into shared memory",
     "internal", "WW4004 applied, WW3004 declined"},
    {"dispatch",
     "measured dispatch: a kernel another transformation rewrote in place "
     "keeps its original beside the rewrite, and its launches in the file "
     "time both and run the faster, per launch shape (default; "
     "--no-measured-dispatch leaves it out)",
     "measured", "WW4006 applied, WW3006 declined"},
};

void listTransforms(llvm::raw_ostream &OS) {
  for (const std::string &Name : availableTransforms()) {
    const TransformDoc *Doc = nullptr;
    for (const TransformDoc &D : TransformDocs)
      if (Name == D.Name)
        Doc = &D;
    std::string Head = Name;
    Head.resize(std::max<size_t>(Head.size() + 1, 9), ' ');
    OS << Head << wrap(Doc ? Doc->Description : "(no description)", Head.size())
       << "\n";
    if (!Doc)
      continue;
    std::string Pad(Head.size(), ' ');
    OS << Pad << wrap(std::string("forms: ") + Doc->Forms, Pad.size()) << "\n";
    OS << Pad << wrap(std::string("reports: ") + Doc->Ids, Pad.size()) << "\n";
  }
}

} // namespace

Command commandNamed(llvm::StringRef Name) {
  if (Name == "analyze")
    return Command::Analyze;
  if (Name == "rewrite")
    return Command::Rewrite;
  if (Name == "occupancy")
    return Command::Occupancy;
  if (Name == "offload")
    return Command::Offload;
  return Command::None;
}

const char *commandName(Command C) {
  switch (C) {
  case Command::Analyze:
    return "analyze";
  case Command::Rewrite:
    return "rewrite";
  case Command::Occupancy:
    return "occupancy";
  case Command::Offload:
    return "offload";
  default:
    return "";
  }
}

std::string helpText(Command Topic) {
  std::string Out = Title;
  Out += "\nUSAGE\n";
  switch (Topic) {
  case Command::Analyze:
    Out += UsageAnalyze;
    Out += CommonOptions;
    Out += InputOptions;
    Out += AnalyzeOptions;
    return Out;
  case Command::Rewrite:
    Out += UsageRewrite;
    Out += CommonOptions;
    Out += InputOptions;
    Out += RewriteOptions;
    return Out;
  case Command::Occupancy:
    Out += UsageOccupancy;
    Out += CommonOptions;
    Out += OccupancyOptions;
    return Out;
  case Command::Offload:
    Out += UsageOffload;
    Out += CommonOptions;
    Out += OffloadOptions;
    return Out;
  default:
    break;
  }
  Out += UsageAnalyze;
  Out += UsageRewrite;
  Out += UsageOffload;
  Out += UsageOccupancy;
  Out += "  warpwise explain WWnnnn | --list-transforms | --help | --version\n";
  Out += Commands;
  Out += CommonOptions;
  Out += "\nRun 'warpwise COMMAND --help' for the options of each command.\n";
  Out += ExitCodes;
  return Out;
}

std::string closestMatch(llvm::StringRef Given,
                         llvm::ArrayRef<std::string> Known) {
  std::string Best;
  unsigned BestDistance = ~0u;
  unsigned Limit = std::max<size_t>(2, Given.size() / 3);
  for (const std::string &K : Known) {
    unsigned D = Given.edit_distance(K, /*AllowReplacements=*/true, Limit + 1);
    // Short words are near everything: no suggestion for '-x'.
    if (D < BestDistance && D <= Limit && D * 2 < Given.size()) {
      BestDistance = D;
      Best = K;
    }
  }
  return Best;
}

std::string unknownOptionMessage(llvm::StringRef Arg, Command Cmd) {
  llvm::StringRef Name = Arg.split('=').first;
  std::string Message = "unknown option '" + Arg.str() + "'";
  if (const OptionInfo *O = findOption(Name)) {
    if (Cmd == Command::None)
      return "'" + Name.str() + "' comes after a command: it is an option of " +
             commandsOf(O->Commands);
    return "'" + Name.str() + "' is an option of " + commandsOf(O->Commands) +
           ", not of 'warpwise " + commandName(Cmd) + "'";
  }
  std::vector<std::string> Known;
  if (Cmd == Command::None) {
    Known.assign(std::begin(TopLevel), std::end(TopLevel));
    for (const char *C : {"analyze", "rewrite", "offload", "occupancy", "explain", "help"})
      Known.push_back(C);
  } else {
    for (const OptionInfo &O : OptionTable) {
      if (llvm::StringRef(O.Name) != "--")
        Known.push_back(O.Name);
    }
  }
  std::string Best = closestMatch(Name, Known);
  if (Best.empty() && Cmd == Command::None) {
    // A command's option given before the command.
    std::vector<std::string> Options;
    for (const OptionInfo &O : OptionTable)
      if (llvm::StringRef(O.Name) != "--")
        Options.push_back(O.Name);
    Best = closestMatch(Name, Options);
    if (const OptionInfo *O = Best.empty() ? nullptr : findOption(Best))
      return Message + "; did you mean '" + Best + "' (an option of " +
             commandsOf(O->Commands) + ", after the command)?";
  }
  if (Best.empty())
    return Message;
  Message += "; did you mean '" + Best + "'?";
  if (const OptionInfo *O = findOption(Best))
    if (Cmd != Command::None && !(O->Commands & bitOf(Cmd)))
      Message.insert(Message.size() - 1,
                     " (an option of " + commandsOf(O->Commands) + ")");
  return Message;
}

std::string unknownCommandMessage(llvm::StringRef Name) {
  std::string Best = closestMatch(
      Name, {"analyze", "rewrite", "offload", "occupancy", "explain", "help"});
  if (!Best.empty())
    return "unknown command '" + Name.str() + "'; did you mean '" + Best + "'?";
  return "unknown command '" + Name.str() +
         "' (expected analyze, rewrite or occupancy)";
}

std::string checkOptionsApply(const Options &Opts) {
  unsigned Bit = bitOf(Opts.Cmd);
  if (!Bit)
    return "";
  for (const std::string &Spelled : Opts.Given) {
    const OptionInfo *O = findOption(Spelled);
    if (!O || (O->Commands & Bit))
      continue;
    if (Spelled == "--")
      return std::string("compiler flags after '--' are for ") +
             commandsOf(O->Commands) + ", not for 'warpwise " +
             commandName(Opts.Cmd) + "'";
    return "'" + Spelled + "' is an option of " + commandsOf(O->Commands) +
           ", not of 'warpwise " + commandName(Opts.Cmd) + "'";
  }
  return "";
}

int printUsageError(const std::string &Message) {
  llvm::raw_ostream &OS = llvm::errs();
  printDiagnosticTo(OS, "warpwise", Severity::Error, Message);
  OS << "\nRun 'warpwise --help' for usage.\n";
  return ExitUsage;
}

void applyColorChoice(Options &Opts) {
  bool On = Opts.Color == ColorChoice::Always ||
            (Opts.Color == ColorChoice::Auto && llvm::errs().has_colors());
  llvm::errs().enable_colors(On);
  Opts.Front.Colors = On;
}

std::optional<int> runInfoCommand(const Options &Opts) {
  switch (Opts.Cmd) {
  case Command::Help:
    llvm::outs() << helpText(Opts.HelpTopic);
    return ExitOK;
  case Command::Explain:
    return runExplain(Opts);
  case Command::ListTransforms:
    listTransforms(llvm::outs());
    return ExitOK;
  default:
    return std::nullopt;
  }
}

std::vector<DiagnosticDoc> parseDiagnosticTable(llvm::StringRef Markdown) {
  std::vector<DiagnosticDoc> Docs;
  llvm::SmallVector<llvm::StringRef> Lines;
  Markdown.split(Lines, '\n');
  // The columns by their header's names, so that adding one moves nothing.
  std::map<std::string, size_t> Column;
  for (llvm::StringRef Line : Lines) {
    Line = Line.trim();
    if (!Line.starts_with("|") || !Line.ends_with("|"))
      continue;
    llvm::SmallVector<llvm::StringRef> Cells;
    Line.drop_front().drop_back().split(Cells, '|');
    for (llvm::StringRef &C : Cells)
      C = C.trim();
    if (Cells.empty())
      continue;
    if (Cells[0] == "id") {
      Column.clear();
      for (size_t I = 0; I < Cells.size(); ++I)
        Column[Cells[I].lower()] = I;
      continue;
    }
    if (!Cells[0].starts_with("WW") || Column.empty())
      continue;
    auto Cell = [&](const char *Name) {
      auto It = Column.find(Name);
      return It != Column.end() && It->second < Cells.size()
                 ? Cells[It->second].str()
                 : std::string();
    };
    Docs.push_back({Cells[0].str(), Cell("severity"), Cell("when"),
                    Cell("what you can do"), Cell("evidence")});
  }
  return Docs;
}

std::string idRanges(const std::vector<DiagnosticDoc> &Docs) {
  std::vector<unsigned> Numbers;
  for (const DiagnosticDoc &D : Docs) {
    unsigned N;
    if (!llvm::StringRef(D.Id).drop_front(2).getAsInteger(10, N))
      Numbers.push_back(N);
  }
  llvm::sort(Numbers);
  Numbers.erase(std::unique(Numbers.begin(), Numbers.end()), Numbers.end());
  std::string Out;
  for (size_t I = 0; I < Numbers.size();) {
    size_t J = I;
    while (J + 1 < Numbers.size() && Numbers[J + 1] == Numbers[J] + 1)
      ++J;
    Out += (Out.empty() ? "" : ", ") + ("WW" + llvm::Twine(Numbers[I])).str();
    if (J > I)
      Out += ("-WW" + llvm::Twine(Numbers[J])).str();
    I = J + 1;
  }
  return Out;
}

void printSummary(llvm::raw_ostream &OS, const Options &Opts,
                  const std::vector<FileSummary> &Files,
                  const DiagnosticLog &Log) {
  if (Opts.Quiet)
    return;
  size_t Warnings = 0, Errors = 0;
  for (const Diagnostic &D : Log.all()) {
    if (D.Raw || D.Silenced)
      continue;
    Warnings += D.Level == Severity::Warning;
    Errors += D.Level == Severity::Error;
  }
  auto plural = [](size_t N, const char *One, const char *Many) {
    return std::to_string(N) + " " + (N == 1 ? One : Many);
  };
  // Only the counts that are not zero: "0 errors" would read as an error
  // to a reader scanning for the word (and to scripts that grep for it).
  std::string Problems;
  if (Warnings)
    Problems = "; " + plural(Warnings, "warning", "warnings");
  if (Errors)
    Problems +=
        (Problems.empty() ? "; " : ", ") + plural(Errors, "error", "errors");
  size_t WithErrors = 0;
  for (const FileSummary &F : Files)
    WithErrors += F.Status == "error";
  std::string Line = "warpwise: " + plural(Files.size(), "file", "files");

  if (Opts.Cmd == Command::Analyze) {
    if (Files.size() == 1 && !Warnings && !Errors)
      return;
    size_t Kernels = 0, Divergent = 0;
    for (const FileSummary &F : Files) {
      if (!F.Analysis)
        continue;
      Kernels += F.Analysis->Kernels.size();
      for (const KernelInfo &K : F.Analysis->Kernels)
        for (const BranchInfo &B : K.Branches)
          Divergent += B.Level == Uniformity::Divergent;
      for (const DeviceFunctionInfo &DF : F.Analysis->DeviceFunctions)
        for (const BranchInfo &B : DF.Branches)
          Divergent += B.Level == Uniformity::Divergent;
    }
    OS << Line << " analysed, " << WithErrors << " with errors; "
       << plural(Kernels, "kernel", "kernels") << ", "
       << plural(Divergent, "divergent branch", "divergent branches")
       << Problems << "\n";
    return;
  }

  size_t Rewritten = 0, Unchanged = 0, NotWritten = 0, Applied = 0,
         Declined = 0;
  std::map<std::string, size_t> ByTransform;
  for (const FileSummary &F : Files) {
    Rewritten += F.Status == "rewritten";
    Unchanged += F.Status == "unchanged";
    NotWritten += F.Status == "not written";
    if (!F.Decisions)
      continue;
    for (const Decision &D : *F.Decisions) {
      if (!D.Applied) {
        ++Declined;
        continue;
      }
      ++Applied;
      ++ByTransform[D.Transform];
    }
  }
  if (Files.size() == 1 && !Applied && !Warnings && !Errors)
    return;
  Line += ": " + std::to_string(Rewritten) +
          (Opts.Check ? " would change, " : " rewritten, ") +
          std::to_string(Unchanged) + " unchanged";
  if (NotWritten)
    Line += ", " + std::to_string(NotWritten) + " not written";
  if (WithErrors)
    Line += ", " + std::to_string(WithErrors) + " with errors";
  Line += "; " + plural(Applied, "change", "changes") + " applied";
  if (Applied) {
    // In the registry's order, then any other.
    std::vector<std::string> Parts;
    for (const std::string &T : availableTransforms())
      if (ByTransform.count(T))
        Parts.push_back(T + " " + std::to_string(ByTransform[T]));
    for (const auto &[T, N] : ByTransform)
      if (!llvm::is_contained(availableTransforms(), T))
        Parts.push_back(T + " " + std::to_string(N));
    Line += " (" + llvm::join(Parts, ", ") + ")";
  }
  Line += ", " + std::to_string(Declined) + " declined" + Problems;
  OS << Line << "\n";
}

} // namespace warpwise
