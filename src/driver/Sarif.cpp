//===- Sarif.cpp - Diagnostics for code-review tools ----------------------===//
//
// The SARIF 2.1.0 log --sarif writes. The rules come from the table of
// docs/diagnostics.md, embedded at build time (the one source of --explain
// too), so a rule's text is the documentation's.
//
//===----------------------------------------------------------------------===//
#include "Sarif.h"

#include "warpwise/Cli.h"
#include "warpwise/Embedded.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

namespace warpwise::driver {

namespace {

/// SARIF's level for one of ours: a remark or a note is a "note".
const char *sarifLevel(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  default:
    return "note";
  }
}

/// The level of the table's severity cell ("remark / warning" is a remark
/// at its default).
const char *sarifLevel(llvm::StringRef Cell) {
  Cell = Cell.trim();
  if (Cell.starts_with("error"))
    return "error";
  if (Cell.starts_with("warning"))
    return "warning";
  return "note";
}

/// A cell of the table as plain text: no Markdown code marks.
std::string plain(llvm::StringRef Cell) {
  std::string Out;
  for (char C : Cell)
    if (C != '`')
      Out += C;
  return Out;
}

/// The first clause of a `when` cell: what a review tool lists the rule as.
std::string shortText(llvm::StringRef When) {
  std::string Text = plain(When);
  llvm::StringRef T(Text);
  size_t End = T.find("; ");
  T = T.take_front(End);
  if (T.size() > 160) {
    size_t Space = T.take_front(157).rfind(' ');
    return T.take_front(Space == llvm::StringRef::npos ? 157 : Space).str() +
           "...";
  }
  return T.str();
}

/// Percent-encodes what a URI path may not hold as it is.
std::string uriPath(llvm::StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("-._~/").contains(C))
      Out += C;
    else
      Out += "%" + llvm::utohexstr(C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Out;
}

std::string currentDirectoryUri() {
  llvm::SmallString<256> Cwd;
  if (llvm::sys::fs::current_path(Cwd))
    return "";
  std::string Uri = "file://" + uriPath(Cwd);
  if (!llvm::StringRef(Uri).ends_with("/"))
    Uri += "/";
  return Uri;
}

} // namespace

nlohmann::json sarifArtifactLocation(const std::string &Path) {
  if (llvm::sys::path::is_absolute(Path))
    return {{"uri", "file://" + uriPath(Path)}};
  llvm::StringRef Rel(Path);
  while (Rel.consume_front("./"))
    ;
  return {{"uri", uriPath(Rel)}, {"uriBaseId", "%SRCROOT%"}};
}

nlohmann::json sarifLog(const DiagnosticLog &Log) {
  const char *Markdown = findEmbeddedFile("diagnostics.md");
  std::vector<DiagnosticDoc> Docs =
      parseDiagnosticTable(Markdown ? Markdown : "");
  nlohmann::json Rules = nlohmann::json::array();
  std::map<std::string, size_t> RuleIndex;
  for (const DiagnosticDoc &D : Docs) {
    if (RuleIndex.count(D.Id))
      continue;
    RuleIndex[D.Id] = Rules.size();
    Rules.push_back(
        {{"id", D.Id},
         {"shortDescription", {{"text", shortText(D.When)}}},
         {"fullDescription", {{"text", plain(D.When)}}},
         {"help", {{"text", plain(D.WhatToDo)}}},
         {"defaultConfiguration", {{"level", sarifLevel(D.Severity)}}},
         {"properties", {{"severity", D.Severity}}}});
  }
  nlohmann::json Results = nlohmann::json::array();
  bool Relative = false;
  for (const Diagnostic &D : Log.all()) {
    if (D.Raw)
      continue;
    if (!RuleIndex.count(D.Id)) {
      // An id the table does not document still gets its rule: a result's
      // ruleIndex must point at one.
      RuleIndex[D.Id] = Rules.size();
      Rules.push_back({{"id", D.Id}});
    }
    nlohmann::json R = {{"ruleId", D.Id},
                        {"ruleIndex", RuleIndex[D.Id]},
                        {"level", sarifLevel(D.Level)},
                        {"message", {{"text", D.Message}}}};
    // SARIF's "note" covers both: the property keeps which it was.
    R["properties"] = {{"severity", severityName(D.Level)}};
    if (!D.File.empty()) {
      nlohmann::json Physical = {
          {"artifactLocation", sarifArtifactLocation(D.File)}};
      Relative |= !llvm::sys::path::is_absolute(D.File);
      if (D.Line) {
        Physical["region"] = {{"startLine", D.Line}};
        if (D.Column)
          Physical["region"]["startColumn"] = D.Column;
      }
      R["locations"] = nlohmann::json::array({{{"physicalLocation", Physical}}});
    }
    if (D.Silenced)
      R["suppressions"] = nlohmann::json::array(
          {{{"kind", "external"},
            {"justification", "--diag-suppress or DiagSuppress in "
                              ".warpwise.yaml"}}});
    Results.push_back(std::move(R));
  }
  nlohmann::json Run = {
      {"tool",
       {{"driver",
         {{"name", "warpwise"},
          {"version", WARPWISE_VERSION},
          {"rules", Rules}}}}},
      {"columnKind", "unicodeCodePoints"},
      {"results", Results}};
  std::string Root = currentDirectoryUri();
  if (Relative && !Root.empty())
    Run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", Root}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({Run})}};
}

} // namespace warpwise::driver
