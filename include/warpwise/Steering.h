//===- Steering.h - What the user says about a candidate --------*- C++ -*-===//
//
// Users steer warpwise from the source, the way clang-tidy's NOLINT family
// works, and from .warpwise.yaml (Config.h):
//
//   // warpwise-disable-next-line[(T,...)]   the kernel or branch below
//   // warpwise-disable[(T,...)] ... // warpwise-enable[(T,...)]
//   // warpwise-force(T[=FORM],...)          the kernel or branch below
//
// A directive on the line before a kernel covers every candidate in it; on
// the line before a branch or loop, that candidate. Forcing skips the
// profitability checks (never the legality ones) and may name the form.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_STEERING_H
#define WARPWISE_STEERING_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace warpwise {

/// A kernel's settings in .warpwise.yaml (`Kernels: NAME: ...`).
struct KernelSettings {
  /// Transformations not applied to the kernel; "all" for every one.
  std::vector<std::string> Disable;
  /// Transformations applied without profitability checks, with the form
  /// ("" for the planner's).
  std::map<std::string, std::string> Force;
};

/// The verdict for one candidate.
struct Steer {
  enum Kind { Free, Disabled, Forced };
  Kind K = Free;
  std::string Form;   ///< Forced: the form asked for, or "".
  std::string Source; ///< Who said so, as a person reads it.
  bool disabled() const { return K == Disabled; }
  bool forced() const { return K == Forced; }
};

/// A malformed or unmatched directive.
struct DirectiveProblem {
  unsigned Line = 0, Column = 0;
  std::string Message;
};

/// The directives in one file's text.
class DirectiveIndex {
public:
  /// Parses \p Text. \p Known: the transformations this build provides
  /// (a directive naming another one is ignored, with a problem); \p Active:
  /// those this run considers (forcing another one is reported, since it has
  /// no effect).
  static DirectiveIndex parse(llvm::StringRef Text,
                              const std::vector<std::string> &Known,
                              const std::vector<std::string> &Active,
                              std::vector<DirectiveProblem> &Problems);

  /// The verdict for \p Transform on a candidate that starts on
  /// \p CandidateLine (0: a whole kernel) of a kernel declared on lines
  /// [KernelBegin, KernelName].
  Steer lookup(llvm::StringRef Transform, unsigned KernelBegin,
               unsigned KernelName, unsigned CandidateLine) const;

  bool empty() const { return Lines.empty() && Regions.empty(); }

private:
  struct LineDirective {
    unsigned Line = 0; ///< Of the comment; it covers Line + 1.
    bool Force = false;
    std::map<std::string, std::string> Names; ///< Empty: every one.
    std::string Text;
  };
  struct Region {
    unsigned Begin = 0, End = 0; ///< Lines of the two comments.
    std::vector<std::string> Names;
    std::string Text;
  };
  std::vector<LineDirective> Lines;
  std::vector<Region> Regions;
};

/// The directives of every file a translation unit's candidates are in,
/// parsed once each, and the configuration's kernel settings.
class SteeringRules {
public:
  /// \p Known and \p Active as DirectiveIndex::parse takes them.
  SteeringRules(const std::map<std::string, KernelSettings> *Kernels,
                std::string ConfigPath, std::vector<std::string> Known,
                std::vector<std::string> Active)
      : Kernels(Kernels), ConfigPath(std::move(ConfigPath)),
        Known(std::move(Known)), Active(std::move(Active)) {}

  Steer lookup(llvm::StringRef Transform, llvm::StringRef Kernel,
               const std::string &File, llvm::StringRef Text,
               unsigned KernelBegin, unsigned KernelName,
               unsigned CandidateLine);

  /// The problems found in each file parsed so far, by file.
  const std::map<std::string, std::vector<DirectiveProblem>> &problems() const {
    return Problems;
  }

private:
  const std::map<std::string, KernelSettings> *Kernels;
  std::string ConfigPath;
  std::vector<std::string> Known, Active;
  std::map<std::string, DirectiveIndex> ByFile;
  std::map<std::string, std::vector<DirectiveProblem>> Problems;
};

/// The forms \p Transform can be forced into ("" and these); empty when it
/// has one form only.
std::vector<std::string> formsOf(llvm::StringRef Transform);

} // namespace warpwise

#endif
