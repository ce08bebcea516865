//===- ContractionCheck.cpp - Does a rewrite change how nvcc rounds? -----===//
//
// nvcc contracts products and sums into fused multiply-adds (-fmad=true, its
// default) wherever the code's shape lets it, and a rewrite changes the
// shape: merged branches put a product and an add in one block, a fission
// moves an add away from its product. Whether the program's results stay
// bit-identical is read from the compiled code, before and after the
// rewrite (SassFp.h).
//
//===----------------------------------------------------------------------===//
#include "warpwise/Feedback.h"
#include "warpwise/Ptxas.h"
#include "warpwise/SassFp.h"
#include "warpwise/Transform.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

namespace warpwise {

using namespace clang;

namespace {

/// Whether device code in the translation unit computes with floating
/// point: an arithmetic operator or a call with a floating-point result.
bool deviceCodeComputesFloats(ASTContext &Ctx) {
  struct Finder : RecursiveASTVisitor<Finder> {
    bool Found = false;
    bool InDevice = false;
    bool TraverseFunctionDecl(FunctionDecl *FD) {
      bool Device = FD->hasAttr<CUDAGlobalAttr>() ||
                    FD->hasAttr<CUDADeviceAttr>();
      bool Saved = InDevice;
      InDevice = Device;
      RecursiveASTVisitor::TraverseFunctionDecl(FD);
      InDevice = Saved;
      return !Found;
    }
    bool VisitBinaryOperator(BinaryOperator *B) {
      if (InDevice && B->getType()->isRealFloatingType() &&
          (B->isAdditiveOp() || B->isMultiplicativeOp() ||
           B->isCompoundAssignmentOp()))
        Found = true;
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) {
      if (InDevice && C->getType()->isRealFloatingType())
        Found = true;
      return !Found;
    }
  } F;
  // Every declaration, the system headers' included (the rewrite limits
  // traversals from the unit to the user's code): their device code
  // computes with floats, so this stays true wherever it was true before.
  // The user's own code alone would miss what its templates, lambdas,
  // member functions and library calls (cuComplex) compute.
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!F.TraverseDecl(D))
      break;
  return F.Found;
}

bool buildsWithoutContraction(const std::vector<std::string> &Flags) {
  bool Off = false;
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef F = Flags[I];
    if (F == "-fmad=false" || F == "--fmad=false" ||
        ((F == "-fmad" || F == "--fmad") && I + 1 < Flags.size() &&
         Flags[I + 1] == "false"))
      Off = true;
    else if (F == "-fmad=true" || F == "--fmad=true" ||
             F == "--use_fast_math" || F == "-use_fast_math")
      Off = false;
  }
  return Off;
}

using MeasuredKernels = std::map<std::string, KernelStats>;
/// Compares what nvcc made of the file before and after a candidate's
/// edits: \p Before and \p After with the line maps that let code copied to
/// new lines compare equal; std::nullopt when the arithmetic agrees, else
/// the end of a decision's reason.
using ContractionComparer = std::function<std::optional<std::string>(
    const MeasuredKernels &Before, const LineMapper &MapBefore,
    const MeasuredKernels &After, const LineMapper &MapAfter)>;

/// The shared part of the contraction checks: whether they apply at all,
/// both compilations and the line maps; \p Compare does the rest.
std::optional<std::string>
compareContraction(const TransformContext &TC,
                   const std::vector<tooling::Replacement> &Edits,
                   const ContractionComparer &Compare) {
  if (TC.FmadFalse)
    return std::nullopt;
  if (TC.Feedback && buildsWithoutContraction(TC.Feedback->flagsFor(TC.File)))
    return std::nullopt;
  if (!deviceCodeComputesFloats(TC.Ctx))
    return std::nullopt;
  if (!TC.Feedback || !TC.Feedback->available())
    return "whether nvcc would fuse the floating-point arithmetic "
           "differently (-fmad=true, its default) is read from its output, "
           "and " +
           feedbackUnavailable(TC.Feedback) +
           " (--fmad=false says the program is built without "
           "contraction); declined";
  std::string NvArch = PtxasRunner::nvccArchFor(TC.Arch);
  TransformContext::MeasuredPair Measured = TC.measureOnEarlier(Edits, NvArch);
  auto &Before = Measured.Before, &After = Measured.After;
  if (!Before || !After)
    return "nvcc failed on the " +
           std::string(Before ? "candidate" : "original") + " (" +
           (Before ? Measured.AfterError : Measured.BeforeError) +
           "); not rewritten";
  // Each edited file's lines before and after this candidate's edits.
  std::map<std::string, tooling::Replacements> Earlier;
  for (const tooling::Replacement &R : TC.Applied)
    llvm::consumeError(
        Earlier[R.getFilePath().empty() ? TC.File : R.getFilePath().str()].add(
            R));
  std::map<std::string, std::vector<EditLineMap::Range>> Ranges;
  for (const tooling::Replacement &R : Edits) {
    std::string Path =
        R.getFilePath().empty() ? TC.File : R.getFilePath().str();
    const tooling::Replacements &Prior = Earlier[Path];
    unsigned B = Prior.getShiftedCodePosition(R.getOffset());
    unsigned E = Prior.getShiftedCodePosition(R.getOffset() + R.getLength());
    unsigned NewLines = llvm::count(R.getReplacementText(), '\n');
    Ranges[Path].push_back({B, E - B, NewLines});
  }
  std::map<std::string, EditLineMap> Maps;
  for (auto &[Path, Rs] : Ranges) {
    bool Found = Path == TC.File;
    llvm::StringRef Text = Found ? TC.Contents : llvm::StringRef();
    if (!Found && TC.Scope)
      Text = TC.Scope->textOf(Path, Found);
    if (!Found)
      return "an edit names '" + Path + "', outside this file's scope; "
             "declined";
    auto Now = tooling::applyAllReplacements(Text, Earlier[Path]);
    if (!Now) {
      llvm::consumeError(Now.takeError());
      return std::string("the earlier rewrites do not apply; declined");
    }
    Maps.emplace(Path, EditLineMap(*Now, Rs));
  }
  auto Mapper = [&](bool Edited) -> LineMapper {
    return [&Maps, Edited](const std::string &F, unsigned Line) {
      MappedLine M{F, Line};
      auto It = Maps.find(F);
      if (It != Maps.end())
        M.Line = Edited ? It->second.edited(Line) : It->second.original(Line);
      return M;
    };
  };
  return Compare(*Before, Mapper(false), *After, Mapper(true));
}

const char *const NotBitIdentical =
    ", so the results would not stay bit-identical under nvcc's "
    "-fmad=true (--fmad=false if the program is built without it); "
    "declined";

/// \p Instance (an instantiation's name, "ns::k<256>") with the kernel's
/// own name \p Kernel replaced by \p By: the instantiation of a kernel
/// copied from it with the same template arguments.
std::string renamedInstance(const std::string &Instance,
                            const std::string &Kernel, const std::string &By) {
  size_t End = Instance.find('<');
  if (End == std::string::npos)
    End = Instance.size();
  if (End < Kernel.size() ||
      Instance.compare(End - Kernel.size(), Kernel.size(), Kernel) != 0)
    return "";
  return Instance.substr(0, End - Kernel.size()) + By + Instance.substr(End);
}

} // namespace

std::optional<std::string> TransformContext::contractionChange(
    const std::vector<tooling::Replacement> &Edits,
    const FunctionDecl *FD) const {
  return compareContraction(
      *this, Edits,
      [](const MeasuredKernels &Before, const LineMapper &MapBefore,
         const MeasuredKernels &After,
         const LineMapper &MapAfter) -> std::optional<std::string> {
        for (const auto &[Name, Total] : Before) {
          auto A = After.find(Name);
          if (A == After.end())
            continue; // A kernel the rewrite replaces is compared where it
                      // goes.
          for (const KernelStats &IB : compiledInstances(Total)) {
            const KernelStats *IA =
                sameInstance(compiledInstances(A->second), IB);
            if (!IA)
              continue;
            if (!IB.Code || !IA->Code)
              return "nvcc's code for `" + Name +
                     "` could not be read to compare its floating-point "
                     "arithmetic; declined";
            if (auto Why = contractionDifference(*IB.Code, MapBefore,
                                                 *IA->Code, MapAfter))
              return "in `" + instanceName(IB.Mangled) + "`, " + *Why +
                     NotBitIdentical;
          }
        }
        return std::nullopt;
      });
}

std::optional<std::string> TransformContext::splitContractionChange(
    const std::vector<tooling::Replacement> &Edits, const std::string &Kernel,
    const std::vector<std::vector<std::string>> &RunTogether) const {
  return compareContraction(
      *this, Edits,
      [&](const MeasuredKernels &Before, const LineMapper &MapBefore,
          const MeasuredKernels &After,
          const LineMapper &MapAfter) -> std::optional<std::string> {
        auto B = Before.find(Kernel);
        if (B == Before.end())
          return "`" + Kernel +
                 "` is missing from nvcc's output, so its floating-point "
                 "arithmetic cannot be compared with the split kernels'; "
                 "declined";
        for (const KernelStats &IB : compiledInstances(B->second)) {
          std::string Name = instanceName(IB.Mangled);
          if (IB.Mangled.empty())
            Name = Kernel;
          for (const std::vector<std::string> &Group : RunTogether) {
            std::vector<const SassFunction *> Split;
            std::string Missing;
            for (const std::string &New : Group) {
              auto A = After.find(New);
              const KernelStats *IA = nullptr;
              if (A != After.end())
                for (const KernelStats &I : compiledInstances(A->second))
                  if ((I.Mangled.empty() && IB.Mangled.empty()) ||
                      instanceName(I.Mangled) ==
                          renamedInstance(Name, Kernel, New))
                    IA = &I;
              if (!IA || !IA->Code) {
                Missing = New;
                break;
              }
              Split.push_back(IA->Code.get());
            }
            if (!IB.Code || !Missing.empty())
              return "nvcc's code for `" +
                     (IB.Code ? Missing : Name) +
                     "` could not be read to compare its floating-point "
                     "arithmetic with the original's; declined";
            if (auto Why = contractionDifference({IB.Code.get()}, MapBefore,
                                                 Split, MapAfter))
              return "against `" + Name + "`, the split kernels (`" +
                     llvm::join(Group, "`, `") + "`): " + *Why +
                     NotBitIdentical;
          }
        }
        return std::nullopt;
      });
}

} // namespace warpwise
