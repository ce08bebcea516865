//===- SplitLaunch.h - The launches a branch split rewrites -----*- C++ -*-===//
//
// A split kernel's every `<<<>>>` launch in the file is rewritten, so each
// must be a statement of its own, outside macros, in the main file, after
// the kernel's definition. A LaunchSite spells a launch's configuration and
// arguments as the forms' launches repeat them: an expression with side
// effects is evaluated once, into a typed temporary.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_SPLIT_LAUNCH_H
#define WARPWISE_SPLIT_LAUNCH_H

#include "SplitCandidate.h"

#include <string>
#include <vector>

namespace clang {
class CUDAKernelCallExpr;
}

namespace warpwise {

/// One launch to rewrite, with its configuration and arguments as they will
/// be spelled: an expression with side effects is evaluated once into a
/// typed temporary (declared in Temps) and referred to by name.
struct LaunchSite {
  unsigned Begin = 0, Length = 0; ///< From the kernel name to the ';'.
  unsigned Line = 0;
  std::string Tag;       ///< "<line>_<n>", for unique temporary names.
  std::string Temps;     ///< Declarations of the temporaries.
  std::string Config[4]; ///< grid, block, shared bytes, stream.
  bool Written[4] = {false, false, false, false};
  std::string Args; ///< "a, b, c".
  /// The arguments, as Args spells them (a temporary's name where the
  /// argument has side effects), whose parameter is of arithmetic or
  /// enumeration type, not dependent: what the measured dispatch keys its
  /// launch shapes by.
  std::vector<std::string> ScalarArgs;
  /// The kernel's name as the launch spells it, qualifier included
  /// (`lab::pick`); the new kernels' names are this plus a suffix.
  std::string Callee;
  /// Template arguments of a launch of a template kernel, appended to the
  /// new kernels' names: as written (`<T>`, may be empty when deduced), and
  /// complete (`<float>`; empty when a dependent launch deduces some).
  std::string TemplateArgs, FullTemplateArgs;

  std::string configAsWritten() const {
    std::string Out;
    for (unsigned I = 0; I < 4; ++I)
      if (Written[I])
        Out += (Out.empty() ? "" : ", ") + Config[I];
    return Out;
  }
  std::string shared() const { return Written[2] ? Config[2] : "0"; }
  std::string stream() const { return Written[3] ? Config[3] : "0"; }
  std::string argsThen(const std::string &More) const {
    return Args + (Args.empty() ? "" : ", ") + More;
  }
};

/// The measured dispatch's key argument for launch \p L (`,` then \p NL
/// and `ww_measured_key(...)` of its scalar arguments), or "" when it has
/// none: launches that differ in a scalar argument (a merge pass's width)
/// are measured apart.
std::string measuredKeyArgument(const LaunchSite &L, const std::string &NL);

/// The launches of \p B's kernel in the file (\p Calls) and how each is
/// spelled (\p Sites), or why one cannot be rewritten ("" when all can).
std::string findLaunchSites(const TransformContext &TC, const SplitBranch &B,
                            std::vector<const clang::CUDAKernelCallExpr *> &Calls,
                            std::vector<LaunchSite> &Sites);

} // namespace warpwise

#endif
