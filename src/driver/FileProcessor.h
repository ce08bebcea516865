//===- FileProcessor.h - Parse, analyse, plan, transform a file -*- C++ -*-===//
//
// One pass of the rewrite over one translation unit: the AST handler that
// analyses it, computes its kernels' occupancy and lets the transformations
// plan and produce edits (each under a CrashRecoveryContext).
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_DRIVER_FILEPROCESSOR_H
#define WARPWISE_DRIVER_FILEPROCESSOR_H

#include "Session.h"

#include "warpwise/Diagnostics.h"
#include "warpwise/Frontend.h"
#include "warpwise/Occupancy.h"

namespace warpwise::driver {

/// Sets each kernel's block size (the launches in the file, --block-size,
/// or 256) and its occupancy at that size.
void computeKernelOccupancy(FileAnalysis &A, const ArchLimits &Arch,
                            std::optional<unsigned> Forced, DiagnosticLog &Log,
                            const std::string &File);

class FileProcessor : public ASTHandler {
public:
  /// \p S: the file's settings (its configuration file under the command
  /// line): costs, forms and the kernels' Disable/Force.
  FileProcessor(InputFile &F, const FileSettings &S, const ArchLimits &Arch,
                CompileFeedback *Feedback,
                const std::vector<std::string> &Transforms,
                std::optional<unsigned> BlockSize, bool Force, bool FmadFalse,
                DiagnosticLog &Log,
                std::string HeaderFilter = AllProjectHeaders)
      : F(F), Arch(Arch), Costs(*S.Costs), Feedback(Feedback),
        Transforms(Transforms), BlockSize(BlockSize), Force(Force),
        SplitForm(S.SplitForm), FmadFalse(FmadFalse), Log(Log),
        HeaderFilter(std::move(HeaderFilter)), MeldForm(S.MeldForm),
        Kernels(&S.Kernels), ConfigPath(S.ConfigPath) {}

  void handleTranslationUnit(clang::ASTContext &Ctx,
                             const std::string &File) override;

private:
  InputFile &F;
  const ArchLimits &Arch;
  const CostTable &Costs;
  CompileFeedback *Feedback;
  const std::vector<std::string> &Transforms;
  std::optional<unsigned> BlockSize;
  bool Force;
  std::string SplitForm;
  bool FmadFalse;
  DiagnosticLog &Log;
  std::string HeaderFilter;

  std::string MeldForm; ///< --meld-form, or the configuration's.
  /// The configuration's kernel settings and its path, for steering.
  const std::map<std::string, KernelSettings> *Kernels;
  std::string ConfigPath;

  /// The applied decision among Decisions[From..] whose comment \p C
  /// writes: every transformation names its decision in the code it adds.
  static std::string decisionOf(const Change &C,
                                const std::vector<Decision> &Decisions,
                                size_t From);

public:
  /// Malformed directives are reported by the first pass only.
  bool ReportDirectiveProblems = true;
  /// Which pass of the rewrite this is (for WARPWISE_DEBUG_BREAK).
  unsigned PassNumber = 1;
};

} // namespace warpwise::driver

#endif
