//===- RuntimeHeader.cpp - warpwise's runtime, as warpwise writes it ------===//
#include "warpwise/Embedded.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace warpwise {

const char *const RuntimeHeaderName = "warpwise_runtime.cuh";

std::string runtimeIncludeLine(const char *Id) {
  return std::string("#include \"") + RuntimeHeaderName +
         "\" // warpwise's runtime (" + Id + ")\n\n";
}

bool includesRuntimeHeader(llvm::StringRef Text) {
  const std::string Include =
      std::string("#include \"") + RuntimeHeaderName + "\"";
  for (size_t At = Text.find(Include); At != llvm::StringRef::npos;
       At = Text.find(Include, At + 1))
    if (At == 0 || Text[At - 1] == '\n')
      return true;
  return false;
}

namespace {

/// \p Text with the value of its `#define <Macro> <value>` set to \p Value.
void setDefault(std::string &Text, const std::string &Macro,
                const std::string &Value) {
  const std::string Define = "#define " + Macro + " ";
  size_t At = Text.find(Define);
  if (At == std::string::npos)
    return;
  At += Define.size();
  Text.replace(At, Text.find('\n', At) - At, Value);
}

/// A number of rules/split.json as C spells a double: `1.5`, `2.0`.
std::string doubleLiteral(double V) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "%g", V);
  std::string S = Buf;
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

/// The embedded runtime with the policy of the embedded rules/split.json,
/// refill.json and dispatch.json as its defaults (a build may still define
/// them).
std::string buildRuntimeHeader() {
  const char *Embedded = findEmbeddedFile(RuntimeHeaderName);
  std::string Text = Embedded ? Embedded : "";
  nlohmann::json Rules =
      nlohmann::json::parse(findEmbeddedFile("split.json"), nullptr, false);
  nlohmann::json P = Rules.is_object()
                         ? Rules.value("adaptive", nlohmann::json::object())
                         : nlohmann::json::object();
  if (!P.is_object())
    P = nlohmann::json::object();
  setDefault(Text, "WARPWISE_SPLIT_RECHECK_EVERY",
             std::to_string(P.value("recheck_every", 32u)) + "u");
  setDefault(Text, "WARPWISE_SPLIT_LISTED_WARP_COST",
             doubleLiteral(P.value("listed_warp_cost", 1.5)));
  setDefault(Text, "WARPWISE_SPLIT_MIN_SAVED_WARP_FRACTION",
             doubleLiteral(P.value("min_saved_warp_fraction", 0.05)));
  setDefault(Text, "WARPWISE_SPLIT_HEAVY_GRID_MARGIN",
             doubleLiteral(P.value("heavy_grid_margin", 1.25)));
  // The work refill's grid, in waves of resident blocks (rules/refill.json).
  const char *RefillRules = findEmbeddedFile("refill.json");
  nlohmann::json Refill = nlohmann::json::parse(
      RefillRules ? RefillRules : "", nullptr, false);
  if (Refill.is_object()) {
    setDefault(Text, "WARPWISE_REFILL_WAVES",
               std::to_string(Refill.value("waves", 1u)) + "u");
  }
  // Measured dispatch between a rewrite and its original
  // (rules/dispatch.json).
  const char *DispatchRules = findEmbeddedFile("dispatch.json");
  nlohmann::json Dispatch =
      nlohmann::json::parse(DispatchRules ? DispatchRules : "", nullptr, false);
  if (Dispatch.is_object()) {
    setDefault(Text, "WARPWISE_DISPATCH_PROBES",
               std::to_string(Dispatch.value("probes", 3u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_MIN_GAIN",
               doubleLiteral(Dispatch.value("min_gain", 0.01)));
    setDefault(Text, "WARPWISE_DISPATCH_REPROBE_EVERY",
               std::to_string(Dispatch.value("reprobe_every", 256u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_REPROBE_MAX",
               std::to_string(Dispatch.value("reprobe_max", 65536u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_SHAPES",
               std::to_string(Dispatch.value("shapes", 32u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_WATCH_EVERY",
               std::to_string(Dispatch.value("watch_every", 16u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_WATCH_MAX",
               std::to_string(Dispatch.value("watch_max", 1024u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_DRIFT",
               doubleLiteral(Dispatch.value("drift", 0.15)));
    setDefault(Text, "WARPWISE_DISPATCH_WATCH_OTHER_EVERY",
               std::to_string(Dispatch.value("watch_other_every", 64u)) + "u");
    setDefault(Text, "WARPWISE_DISPATCH_WATCH_OTHER_RATIO",
               doubleLiteral(Dispatch.value("watch_other_ratio", 1.5)));
  }
  return Text;
}

} // namespace

const std::string &runtimeHeaderText() {
  static const std::string Text = buildRuntimeHeader();
  return Text;
}

unsigned declaredRuntimeApi(llvm::StringRef Text, llvm::StringRef Macro) {
  std::string Define = ("#define " + Macro + " ").str();
  size_t At = Text.find(Define);
  unsigned Api = 0;
  if (At != llvm::StringRef::npos &&
      Text.drop_front(At + Define.size())
          .take_while([](char C) { return C >= '0' && C <= '9'; })
          .getAsInteger(10, Api))
    Api = 0;
  return Api;
}

std::string runtimeHeaderBeside(llvm::StringRef File) {
  llvm::SmallString<256> P(llvm::sys::path::parent_path(File));
  llvm::sys::path::append(P, RuntimeHeaderName);
  return P.str().str();
}

std::map<std::string, std::string>
withRuntimeHeader(llvm::StringRef File, llvm::StringRef Text,
                  const std::map<std::string, std::string> &Headers) {
  std::map<std::string, std::string> Out = Headers;
  if (includesRuntimeHeader(Text))
    Out.emplace(runtimeHeaderBeside(File), runtimeHeaderText());
  for (const auto &[Path, HeaderText] : Headers)
    if (includesRuntimeHeader(HeaderText))
      Out.emplace(runtimeHeaderBeside(Path), runtimeHeaderText());
  return Out;
}

} // namespace warpwise
