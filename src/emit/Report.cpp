//===- Report.cpp - Text and JSON views of analyses and decisions ---------===//
#include "warpwise/Report.h"

#include "warpwise/SourceScope.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace warpwise {

static nlohmann::json pressureToJson(const RegionPressure &P) {
  return {{"max_live", P.MaxLive}, {"line", P.Line}};
}

static nlohmann::json occupancyToJson(const KernelInfo &K) {
  nlohmann::json J;
  J["block_size"] = K.BlockSize;
  J["block_size_source"] = K.BlockSizeSource;
  J["registers_from"] = K.OccupancyRegisterSource;
  if (!K.Occupancy) {
    J["percent"] = nullptr;
    return J;
  }
  const OccupancyResult &O = *K.Occupancy;
  J["launchable"] = O.Launchable;
  J["percent"] = O.Launchable ? nlohmann::json(O.Percent) : nullptr;
  J["blocks_per_sm"] = O.BlocksPerSM;
  J["active_warps_per_sm"] = O.ActiveWarpsPerSM;
  J["max_warps_per_sm"] = O.MaxWarpsPerSM;
  J["limiter"] = limiterName(O.Limiter);
  if (!O.Launchable)
    J["problem"] = O.Problem;
  return J;
}

static nlohmann::json branchesToJson(const std::vector<BranchInfo> &Bs) {
  nlohmann::json A = nlohmann::json::array();
  for (const BranchInfo &B : Bs)
    A.push_back({{"line", B.Line},
                 {"column", B.Column},
                 {"kind", B.Kind},
                 {"uniformity", uniformityName(B.Level)},
                 {"reason", B.Reason},
                 {"then_pressure", pressureToJson(B.Then)},
                 {"else_pressure", pressureToJson(B.Else)}});
  return A;
}

static nlohmann::json loopsToJson(const std::vector<LoopInfo> &Ls) {
  nlohmann::json A = nlohmann::json::array();
  for (const LoopInfo &L : Ls)
    A.push_back({{"line", L.Line},
                 {"column", L.Column},
                 {"kind", L.Kind},
                 {"uniformity", uniformityName(L.Level)},
                 {"reason", L.Reason},
                 {"body_pressure", pressureToJson(L.Body)}});
  return A;
}

nlohmann::json kernelToJson(const KernelInfo &K) {
  nlohmann::json J;
  J["name"] = K.Name;
  J["line"] = K.Line;
  J["template"] = K.IsTemplate;
  J["static_shared_bytes"] = K.StaticShared;
  nlohmann::json Regs;
  Regs["estimate"] = K.Registers.MaxLive;
  Regs["estimate_peak_line"] = K.Registers.Line;
  if (K.Ptxas) {
    Regs["ptxas"] = K.Ptxas->Registers;
    Regs["ptxas_arch"] = K.Ptxas->Arch;
    Regs["spill_stores"] = K.Ptxas->SpillStores;
    Regs["spill_loads"] = K.Ptxas->SpillLoads;
    Regs["ptxas_shared_bytes"] = K.Ptxas->SharedBytes;
    Regs["ptxas_stack_bytes"] = K.Ptxas->StackBytes;
  } else {
    Regs["ptxas"] = nullptr;
  }
  J["registers"] = Regs;
  J["occupancy"] = occupancyToJson(K);
  J["branches"] = branchesToJson(K.Branches);
  J["loops"] = loopsToJson(K.Loops);
  return J;
}

nlohmann::json launchToJson(const LaunchInfo &L) {
  nlohmann::json J = {{"line", L.Line},     {"column", L.Column},
                      {"kernel", L.Kernel}, {"grid", L.GridText},
                      {"block", L.BlockText}, {"in_macro", L.InMacro}};
  J["block_threads"] =
      L.BlockThreads ? nlohmann::json(*L.BlockThreads) : nullptr;
  J["dynamic_shared_bytes"] =
      L.DynamicShared ? nlohmann::json(*L.DynamicShared) : nullptr;
  return J;
}

/// The diagnostic a decision is reported with.
static std::string decisionCode(const Decision &D) {
  if (!D.Code.empty())
    return D.Code;
  const char *Kind = D.Transform == "fission" ? "2"
                     : D.Transform == "split" ? "3"
                     : D.Transform == "share" ? "4"
                     : D.Transform == "refill" ? "5"
                     : D.Transform == "dispatch" ? "6"
                                               : "1";
  return std::string(D.Applied ? "WW400" : "WW300") + Kind;
}

nlohmann::json decisionToJson(const Decision &D) {
  nlohmann::json J = {{"transform", D.Transform}, {"kernel", D.Kernel},
                      {"line", D.Line},           {"applied", D.Applied},
                      {"form", D.Form},           {"reason", D.Reason}};
  J["code"] = decisionCode(D);
  // The name the applied decision's comment in the code carries.
  J["id"] = D.Id.empty() ? nlohmann::json(nullptr) : nlohmann::json(D.Id);
  J["measured"] =
      D.Measured.empty() ? nlohmann::json(nullptr) : nlohmann::json(D.Measured);
  // A candidate in a project header: its line counts in that file.
  if (!D.File.empty())
    J["file"] = D.File;
  return J;
}

nlohmann::json fileAnalysisToJson(const FileAnalysis &F) {
  nlohmann::json J;
  J["kernels"] = nlohmann::json::array();
  for (const KernelInfo &K : F.Kernels) {
    nlohmann::json KJ = kernelToJson(K);
    // The file it is defined in (a project header's or the main file's
    // absolute path): "line" counts in it.
    KJ["file"] = K.File.empty() ? F.File : K.File;
    J["kernels"].push_back(KJ);
  }
  J["launches"] = nlohmann::json::array();
  for (const LaunchInfo &L : F.Launches) {
    nlohmann::json LJ = launchToJson(L);
    // A launch in a project header: "line" counts in that file.
    LJ["file"] = L.File.empty() ? F.File : L.File;
    J["launches"].push_back(LJ);
  }
  J["device_functions"] = nlohmann::json::array();
  for (const DeviceFunctionInfo &D : F.DeviceFunctions)
    J["device_functions"].push_back({{"name", D.Name},
                                     {"file", D.File.empty() ? F.File : D.File},
                                     {"line", D.Line},
                                     {"contexts", D.Contexts},
                                     {"branches", branchesToJson(D.Branches)},
                                     {"loops", loopsToJson(D.Loops)}});
  return J;
}

/// Branches and loops in source order, each with its verdict and reason.
static void printControl(llvm::raw_ostream &OS,
                         const std::vector<BranchInfo> &Branches,
                         const std::vector<LoopInfo> &Loops) {
  struct Item {
    unsigned Line, Column;
    std::string Text;
  };
  std::vector<Item> Items;
  for (const BranchInfo &B : Branches) {
    std::string T = B.Kind + " at " + std::to_string(B.Line) + ":" +
                    std::to_string(B.Column) + ": " + uniformityName(B.Level);
    if (B.Level != Uniformity::Uniform && !B.Reason.empty())
      T += " - " + B.Reason;
    if (B.Then.MaxLive || B.Else.MaxLive)
      T += " [pressure: then " + std::to_string(B.Then.MaxLive) +
           (B.Kind == "if" ? "" : ", else " + std::to_string(B.Else.MaxLive)) +
           "]";
    Items.push_back({B.Line, B.Column, T});
  }
  for (const LoopInfo &L : Loops) {
    std::string T = L.Kind + " loop at " + std::to_string(L.Line) + ":" +
                    std::to_string(L.Column) + ": " + uniformityName(L.Level);
    if (L.Level != Uniformity::Uniform && !L.Reason.empty())
      T += " - " + L.Reason;
    if (L.Body.MaxLive)
      T += " [pressure: body " + std::to_string(L.Body.MaxLive) + "]";
    Items.push_back({L.Line, L.Column, T});
  }
  std::stable_sort(Items.begin(), Items.end(), [](const Item &A, const Item &B) {
    return std::tie(A.Line, A.Column) < std::tie(B.Line, B.Column);
  });
  for (const Item &I : Items)
    OS << "    " << I.Text << "\n";
}

void printFileAnalysis(llvm::raw_ostream &OS, const FileAnalysis &F,
                       const std::string &Name) {
  OS << Name << ": " << F.Kernels.size() << " kernel"
     << (F.Kernels.size() == 1 ? "" : "s") << ", " << F.Launches.size()
     << " launch" << (F.Launches.size() == 1 ? "" : "es") << "\n";
  for (const KernelInfo &K : F.Kernels) {
    OS << "  kernel " << K.Name << " (line " << K.Line
       << (K.File.empty() ? std::string()
                          : " of " + SourceScope::displayPath(K.File))
       << ")" << (K.IsTemplate ? " [template]" : "") << "\n";
    OS << "    registers: estimate " << K.Registers.MaxLive;
    if (K.Registers.Line)
      OS << " (peak at line " << K.Registers.Line << ")";
    if (K.Ptxas) {
      OS << ", ptxas " << K.Ptxas->Registers << " on " << K.Ptxas->Arch;
      if (K.Ptxas->SpillStores || K.Ptxas->SpillLoads)
        OS << " (spills: " << K.Ptxas->SpillStores << " B stored, "
           << K.Ptxas->SpillLoads << " B loaded)";
    } else {
      OS << ", ptxas n/a";
    }
    OS << "\n";
    if (K.Occupancy) {
      const OccupancyResult &O = *K.Occupancy;
      OS << "    occupancy: ";
      if (O.Launchable)
        OS << llvm::format("%.1f%%", O.Percent) << " (" << O.ActiveWarpsPerSM
           << "/" << O.MaxWarpsPerSM << " warps, " << O.BlocksPerSM
           << " blocks/SM)";
      else
        OS << "not launchable: " << O.Problem;
      OS << " at " << K.BlockSize << " threads (" << K.BlockSizeSource
         << "), " << K.OccupancyRegisterSource << " registers";
      if (O.Launchable && O.Limiter != OccupancyLimiter::None)
        OS << ", limited by " << limiterName(O.Limiter);
      OS << "\n";
    }
    printControl(OS, K.Branches, K.Loops);
  }
  for (const DeviceFunctionInfo &D : F.DeviceFunctions) {
    OS << "  __device__ " << D.Name << " (line " << D.Line
       << (D.File.empty() ? std::string()
                          : " of " + SourceScope::displayPath(D.File))
       << "), " << D.Contexts << " calling context"
       << (D.Contexts == 1 ? "" : "s") << "\n";
    printControl(OS, D.Branches, D.Loops);
  }
  for (const LaunchInfo &L : F.Launches) {
    OS << "  launch " << L.Kernel << "<<<" << L.GridText << ", " << L.BlockText
       << ">>> at " << launchPlace(L);
    if (L.InMacro)
      OS << " (inside a macro)";
    OS << "\n";
  }
}

} // namespace warpwise
