//===- Costs.cpp - Loading the cost table ---------------------------------===//
#include "warpwise/Costs.h"

#include "warpwise/Embedded.h"

#include "llvm/Support/MemoryBuffer.h"
#include <nlohmann/json.hpp>

namespace warpwise {

namespace {
/// The first key of \p Patch that \p Base does not have ("model.x" for a
/// nested one), or "".
std::string unknownKey(const nlohmann::json &Base, const nlohmann::json &Patch,
                       const std::string &Prefix = "") {
  for (auto It = Patch.begin(); It != Patch.end(); ++It) {
    if (!Base.contains(It.key()))
      return Prefix + It.key();
    if (It.value().is_object()) {
      if (!Base[It.key()].is_object())
        return Prefix + It.key();
      std::string Inner =
          unknownKey(Base[It.key()], It.value(), Prefix + It.key() + ".");
      if (!Inner.empty())
        return Inner;
    } else if (!It.value().is_number() || !Base[It.key()].is_number()) {
      return Prefix + It.key();
    }
  }
  return "";
}
} // namespace

llvm::Expected<CostTable> CostTable::load(const std::string &OverridePath,
                                          const std::string &Patch) {
  std::string Text;
  if (OverridePath.empty()) {
    Text = findEmbeddedFile("costs.json");
  } else {
    auto Buf = llvm::MemoryBuffer::getFile(OverridePath);
    if (!Buf)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot read cost table '" + OverridePath +
                                         "'");
    Text = (*Buf)->getBuffer().str();
  }
  nlohmann::json J = nlohmann::json::parse(Text, nullptr, false);
  if (J.is_discarded() || !J.is_object())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cost table is not a JSON object");
  bool Patched = false;
  if (!Patch.empty()) {
    nlohmann::json P = nlohmann::json::parse(Patch, nullptr, false);
    if (P.is_discarded() || !P.is_object())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "Costs must be a mapping of cost names "
                                     "to numbers");
    std::string Unknown = unknownKey(J, P);
    if (!Unknown.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "Costs: '" + Unknown +
              "' is not a number in the cost table (rules/costs.json)");
    J.merge_patch(P);
    Patched = true;
  }
  CostTable T;
  if (!OverridePath.empty())
    T.Source = OverridePath;
  if (Patched)
    T.Source += " and the configuration file's Costs";
  auto Get = [&](const char *K, double &F) {
    if (J.contains(K) && J[K].is_number())
      F = J[K].get<double>();
  };
  Get("add", T.Add);
  Get("mul", T.Mul);
  Get("div", T.Div);
  Get("load", T.Load);
  Get("store", T.Store);
  Get("select", T.Select);
  Get("branch", T.Branch);
  Get("call", T.Call);
  Get("other", T.Other);
  Get("meld_similarity_threshold", T.SimilarityThreshold);
  if (J.contains("issue") && J["issue"].is_object()) {
    nlohmann::json &I = J["issue"];
    auto GetI = [&](const char *K, double &F) {
      if (I.contains(K) && I[K].is_number())
        F = I[K].get<double>();
    };
    GetI("alu", T.IssueSlots.Alu);
    GetI("mul", T.IssueSlots.Mul);
    GetI("div", T.IssueSlots.Div);
    GetI("load", T.IssueSlots.Load);
    GetI("store", T.IssueSlots.Store);
    GetI("select", T.IssueSlots.Select);
    GetI("compare", T.IssueSlots.Compare);
    GetI("branch", T.IssueSlots.Branch);
    GetI("call", T.IssueSlots.Call);
    GetI("convert", T.IssueSlots.Convert);
  }
  if (J.contains("model") && J["model"].is_object()) {
    nlohmann::json &M = J["model"];
    auto GetM = [&](const char *K, double &F) {
      if (M.contains(K) && M[K].is_number())
        F = M[K].get<double>();
    };
    GetM("diverged_branch", T.DivergedBranch);
    GetM("loop_iteration", T.LoopIteration);
    GetM("predicate_max_slots", T.PredicateMaxSlots);
    GetM("inner_predicate_max_slots", T.InnerPredicateMaxSlots);
    GetM("unroll_max_trips", T.UnrollMaxTrips);
    GetM("assumed_trips", T.AssumedTrips);
    GetM("data_dependent_mixed", T.DataDependentMixed);
    GetM("sector_slots", T.SectorSlots);
    GetM("constant_replay_slots", T.ConstantReplaySlots);
    GetM("min_predicted_gain", T.MinPredictedGain);
    GetM("max_predicted_loss", T.MaxPredictedLoss);
  }
  if (J.contains("share") && J["share"].is_object()) {
    nlohmann::json &Sh = J["share"];
    if (Sh.contains("external_min_instruction_saving") &&
        Sh["external_min_instruction_saving"].is_number())
      T.ExternalMinInstructionSaving =
          Sh["external_min_instruction_saving"].get<double>();
  }
  return T;
}

} // namespace warpwise
