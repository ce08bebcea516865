//===- Config.cpp - Reading .warpwise.yaml --------------------------------===//
#include "warpwise/Config.h"

#include "warpwise/Cli.h"
#include "warpwise/Embedded.h"
#include "warpwise/Transform.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include <nlohmann/json.hpp>

namespace warpwise {

std::string suppressionProblem(const std::string &Id) {
  static const std::vector<DiagnosticDoc> Docs = [] {
    const char *Markdown = findEmbeddedFile("diagnostics.md");
    return parseDiagnosticTable(Markdown ? Markdown : "");
  }();
  std::string Upper = llvm::StringRef(Id).trim().upper();
  for (const DiagnosticDoc &D : Docs)
    if (D.Id == Upper)
      // Mixed severities ("error / warning") silence their other forms; an
      // error stays an error.
      return D.Severity == "error"
                 ? Upper + " is an error, and errors cannot be silenced"
                 : "";
  return "unknown diagnostic id '" + Id + "' (the ids are " + idRanges(Docs) +
         ", docs/diagnostics.md)";
}

std::string findConfig(llvm::StringRef Dir) {
  llvm::SmallString<256> At(Dir);
  llvm::sys::fs::make_absolute(At);
  for (llvm::StringRef D = At; !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    llvm::SmallString<256> Candidate(D);
    llvm::sys::path::append(Candidate, ConfigFileName);
    if (llvm::sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
  }
  return "";
}

namespace {

/// Reads one document into checked settings; the first problem wins.
class Reader {
public:
  Reader(const std::string &Path, llvm::SourceMgr &SM) : Path(Path), SM(SM) {}

  std::string Error;

  void fail(llvm::yaml::Node *N, const std::string &Message) {
    if (!Error.empty())
      return;
    auto [Line, Col] = SM.getLineAndColumn(N->getSourceRange().Start);
    Error = Path + ":" + std::to_string(Line) + ":" + std::to_string(Col) +
            ": " + Message;
  }

  std::optional<std::string> scalar(llvm::yaml::Node *N,
                                    const std::string &What) {
    auto *S = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(N);
    if (!S) {
      fail(N, What + " must be a single value");
      return std::nullopt;
    }
    llvm::SmallString<64> Storage;
    return S->getValue(Storage).str();
  }

  /// A list written as a YAML sequence or as "a,b,c".
  std::optional<std::vector<std::string>> list(llvm::yaml::Node *N,
                                               const std::string &What) {
    std::vector<std::string> Out;
    if (auto *Seq = llvm::dyn_cast_or_null<llvm::yaml::SequenceNode>(N)) {
      for (llvm::yaml::Node &Item : *Seq) {
        auto V = scalar(&Item, "each entry of " + What);
        if (!V)
          return std::nullopt;
        Out.push_back(llvm::StringRef(*V).trim().str());
      }
      return Out;
    }
    auto V = scalar(N, What);
    if (!V)
      return std::nullopt;
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(*V).split(Parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts)
      Out.push_back(P.trim().str());
    return Out;
  }

  bool transformName(llvm::yaml::Node *N, const std::string &Name,
                     bool AllowAll) {
    std::vector<std::string> Known = availableTransforms();
    if (llvm::is_contained(Known, Name) || (AllowAll && Name == "all"))
      return true;
    std::string List;
    for (const std::string &K : Known)
      List += (List.empty() ? "" : ", ") + K;
    fail(N, "unknown transformation '" + Name + "' (available: " + List +
                (AllowAll ? ", or all" : "") + ")");
    return false;
  }

  nlohmann::json toJson(llvm::yaml::Node *N) {
    if (auto *M = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(N)) {
      nlohmann::json J = nlohmann::json::object();
      for (llvm::yaml::KeyValueNode &KV : *M) {
        auto K = scalar(KV.getKey(), "a key");
        if (!K)
          return nullptr;
        J[*K] = toJson(KV.getValue());
      }
      return J;
    }
    auto V = scalar(N, "a cost");
    if (!V)
      return nullptr;
    double D;
    if (llvm::StringRef(*V).getAsDouble(D)) {
      fail(N, "the cost '" + *V + "' is not a number");
      return nullptr;
    }
    return D;
  }

  void kernel(const std::string &Name, llvm::yaml::Node *N, KernelSettings &K) {
    auto *M = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(N);
    if (!M) {
      fail(N, "the settings of kernel '" + Name +
                  "' must be a mapping (Disable, Force)");
      return;
    }
    for (llvm::yaml::KeyValueNode &KV : *M) {
      auto Key = scalar(KV.getKey(), "a key");
      if (!Key)
        return;
      auto L = list(KV.getValue(), *Key);
      if (!L)
        return;
      if (*Key == "Disable") {
        for (const std::string &T : *L)
          if (transformName(KV.getValue(), T, /*AllowAll=*/true))
            K.Disable.push_back(T);
      } else if (*Key == "Force") {
        for (const std::string &Item : *L) {
          auto [T, Form] = llvm::StringRef(Item).split('=');
          if (!transformName(KV.getValue(), T.trim().str(), false))
            return;
          std::vector<std::string> Forms = formsOf(T.trim());
          if (!Form.trim().empty() &&
              !llvm::is_contained(Forms, Form.trim().str())) {
            fail(KV.getValue(), "'" + Form.trim().str() +
                                    "' is not a form of " + T.trim().str());
            return;
          }
          K.Force[T.trim().str()] = Form.trim().str();
        }
      } else {
        fail(KV.getKey(), "unknown key '" + *Key +
                              "' in the settings of "
                              "kernel '" +
                              Name + "' (Disable, Force)");
        return;
      }
    }
  }

  void read(llvm::yaml::Node *Root, ProjectConfig &C) {
    auto *M = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(Root);
    if (!M) {
      if (!llvm::isa_and_nonnull<llvm::yaml::NullNode>(Root) && Root)
        fail(Root, "the configuration must be a mapping (Transforms, Arch, "
                   "MeldForm, SplitForm, Kernels, Costs, DiagSuppress)");
      return;
    }
    for (llvm::yaml::KeyValueNode &KV : *M) {
      auto Key = scalar(KV.getKey(), "a key");
      if (!Key)
        return;
      llvm::yaml::Node *V = KV.getValue();
      if (*Key == "Transforms") {
        auto L = list(V, "Transforms");
        if (!L)
          return;
        std::vector<std::string> T;
        for (const std::string &N : *L) {
          if (N == "none")
            continue;
          if (!transformName(V, N, false))
            return;
          T.push_back(N);
        }
        C.Transforms = T;
      } else if (*Key == "Arch") {
        C.Arch = scalar(V, "Arch");
      } else if (*Key == "MeldForm") {
        C.MeldForm = scalar(V, "MeldForm");
        if (C.MeldForm && *C.MeldForm != "auto" && *C.MeldForm != "merged" &&
            *C.MeldForm != "branch-free")
          fail(V, "MeldForm must be auto, merged or branch-free");
      } else if (*Key == "SplitForm") {
        C.SplitForm = scalar(V, "SplitForm");
        if (C.SplitForm && *C.SplitForm != "adaptive" &&
            *C.SplitForm != "literal" && *C.SplitForm != "compact" &&
            *C.SplitForm != "none")
          fail(V, "SplitForm must be adaptive, literal, compact or none "
                  "(per kernel: Kernels: NAME: Force: [split=FORM])");
      } else if (*Key == "Kernels") {
        auto *KM = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(V);
        if (!KM) {
          fail(V, "Kernels must map kernel names to their settings");
          return;
        }
        for (llvm::yaml::KeyValueNode &KKV : *KM) {
          auto Name = scalar(KKV.getKey(), "a kernel name");
          if (!Name)
            return;
          kernel(*Name, KKV.getValue(), C.Kernels[*Name]);
        }
      } else if (*Key == "Costs") {
        nlohmann::json J = toJson(V);
        if (!J.is_object()) {
          fail(V, "Costs must map entries of rules/costs.json to numbers");
          return;
        }
        C.Costs = J.dump();
      } else if (*Key == "DiagSuppress") {
        auto L = list(V, "DiagSuppress");
        if (!L)
          return;
        for (const std::string &Id : *L) {
          std::string Problem = suppressionProblem(Id);
          if (!Problem.empty()) {
            fail(V, "DiagSuppress: " + Problem);
            return;
          }
          C.DiagSuppress.push_back(llvm::StringRef(Id).upper());
        }
      } else {
        fail(KV.getKey(), "unknown key '" + *Key +
                              "' (Transforms, Arch, MeldForm, SplitForm, "
                              "Kernels, Costs, DiagSuppress)");
      }
      if (!Error.empty())
        return;
    }
  }

private:
  const std::string &Path;
  llvm::SourceMgr &SM;
};

} // namespace

llvm::Expected<ProjectConfig> readConfig(const std::string &Path) {
  auto Fail = [](const std::string &Message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
  };
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return Fail(Path + ": cannot read the configuration file (" +
                Buf.getError().message() + ")");
  llvm::SourceMgr SM;
  std::string Diagnostics;
  llvm::raw_string_ostream DiagOS(Diagnostics);
  // The parser's own messages (bad indentation, say) come with a position.
  SM.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Ctx) {
        auto *OS = static_cast<llvm::raw_string_ostream *>(Ctx);
        if (!OS->str().empty())
          return;
        *OS << D.getFilename() << ":" << D.getLineNo() << ":"
            << D.getColumnNo() + 1 << ": " << D.getMessage();
      },
      &DiagOS);
  llvm::yaml::Stream Stream((*Buf)->getMemBufferRef(), SM);
  ProjectConfig C;
  C.Path = Path;
  Reader R(Path, SM);
  auto Doc = Stream.begin();
  if (Doc != Stream.end())
    R.read(Doc->getRoot(), C);
  if (Stream.failed() || !DiagOS.str().empty())
    return Fail(DiagOS.str().empty() ? Path + ": not valid YAML"
                                     : DiagOS.str());
  if (!R.Error.empty())
    return Fail(R.Error);
  return C;
}

std::string configToYaml(const ProjectConfig &C) {
  auto List = [](const std::vector<std::string> &L) {
    std::string S = "[";
    for (const std::string &I : L)
      S += (S.size() > 1 ? ", " : "") + I;
    return S + "]";
  };
  std::string Y;
  Y += "Transforms: " + (C.Transforms ? List(*C.Transforms) : "[]") + "\n";
  if (C.Arch)
    Y += "Arch: " + *C.Arch + "\n";
  if (C.MeldForm)
    Y += "MeldForm: " + *C.MeldForm + "\n";
  if (C.SplitForm)
    Y += "SplitForm: " + *C.SplitForm + "\n";
  if (!C.Kernels.empty()) {
    Y += "Kernels:\n";
    for (const auto &[Name, K] : C.Kernels) {
      Y += "  " + Name + ":\n";
      if (!K.Disable.empty())
        Y += "    Disable: " + List(K.Disable) + "\n";
      if (!K.Force.empty()) {
        std::vector<std::string> F;
        for (const auto &[T, Form] : K.Force)
          F.push_back(Form.empty() ? T : T + "=" + Form);
        Y += "    Force: " + List(F) + "\n";
      }
    }
  }
  if (!C.DiagSuppress.empty())
    Y += "DiagSuppress: " + List(C.DiagSuppress) + "\n";
  if (!C.Costs.empty()) {
    nlohmann::json J = nlohmann::json::parse(C.Costs);
    // One flat level of nesting is all costs.json has.
    Y += "Costs:\n";
    for (auto It = J.begin(); It != J.end(); ++It) {
      if (It.value().is_object()) {
        Y += "  " + It.key() + ":\n";
        for (auto In = It.value().begin(); In != It.value().end(); ++In)
          Y += "    " + In.key() + ": " + In.value().dump() + "\n";
      } else {
        Y += "  " + It.key() + ": " + It.value().dump() + "\n";
      }
    }
  }
  return Y;
}

} // namespace warpwise
