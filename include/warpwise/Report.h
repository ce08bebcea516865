//===- Report.h - Analyses and decisions as text and JSON -------*- C++ -*-===//
#ifndef WARPWISE_REPORT_H
#define WARPWISE_REPORT_H

#include "warpwise/Analysis.h"
#include "warpwise/Transform.h"

#include <nlohmann/json.hpp>

namespace llvm {
class raw_ostream;
}

namespace warpwise {

nlohmann::json kernelToJson(const KernelInfo &K);
nlohmann::json launchToJson(const LaunchInfo &L);
nlohmann::json decisionToJson(const Decision &D);
nlohmann::json fileAnalysisToJson(const FileAnalysis &F);

/// The human-readable analysis of one file.
void printFileAnalysis(llvm::raw_ostream &OS, const FileAnalysis &F,
                       const std::string &DisplayName);

} // namespace warpwise

#endif
