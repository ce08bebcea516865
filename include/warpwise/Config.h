//===- Config.h - .warpwise.yaml --------------------------------*- C++ -*-===//
//
// A project's settings, found upward from each input like .clang-tidy:
//
//   Transforms: [meld, fuse, fission]   # or "meld,fuse"; none for none
//   Arch: sm_80
//   MeldForm: auto                      # merged, branch-free
//   SplitForm: adaptive                 # literal, compact, none
//   Kernels:
//     lbm_step:
//       Disable: [split]                # or all
//       Force: [fission, meld=merged]
//   Costs:                              # entries of rules/costs.json
//     meld_similarity_threshold: 0.3
//     model: {min_predicted_gain: 1.05}
//
// The command line wins over the file.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_CONFIG_H
#define WARPWISE_CONFIG_H

#include "warpwise/Steering.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpwise {

struct ProjectConfig {
  std::string Path; ///< The file read; empty when there was none.
  std::optional<std::vector<std::string>> Transforms;
  std::optional<std::string> Arch, MeldForm, SplitForm;
  std::map<std::string, KernelSettings> Kernels;
  std::string Costs; ///< JSON text of the Costs mapping; "" when absent.
  /// DiagSuppress: the ids of the remarks and warnings not to print.
  std::vector<std::string> DiagSuppress;
};

/// Why \p Id cannot be silenced (not a documented id, or an id that is
/// only ever an error), or "" when it can; \p Id as written, any case.
std::string suppressionProblem(const std::string &Id);

/// The name warpwise looks for.
constexpr const char *ConfigFileName = ".warpwise.yaml";

/// The nearest .warpwise.yaml in \p Dir or a parent; "" when none.
std::string findConfig(llvm::StringRef Dir);

/// Reads and checks \p Path. Errors read `PATH:LINE:COL: message`.
llvm::Expected<ProjectConfig> readConfig(const std::string &Path);

/// \p C as YAML that readConfig reads back.
std::string configToYaml(const ProjectConfig &C);

} // namespace warpwise

#endif
