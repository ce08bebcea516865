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

/// The version of the JSON that --report, analyze --format json and
/// occupancy --format json write, described by docs/report.schema.json.
/// Adding a field keeps it; removing one or changing its meaning bumps it.
constexpr int ReportSchemaVersion = 1;

nlohmann::json kernelToJson(const KernelInfo &K);
nlohmann::json launchToJson(const LaunchInfo &L);
nlohmann::json decisionToJson(const Decision &D);
nlohmann::json fileAnalysisToJson(const FileAnalysis &F);

/// The human-readable analysis of one file.
void printFileAnalysis(llvm::raw_ostream &OS, const FileAnalysis &F,
                       const std::string &DisplayName);

} // namespace warpwise

#endif
