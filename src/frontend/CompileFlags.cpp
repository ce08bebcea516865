//===- CompileFlags.cpp - nvcc/gcc/clang command lines for the parse ------===//
#include "warpwise/CompileFlags.h"

#include "warpwise/Embedded.h"

#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <nlohmann/json.hpp>

namespace warpwise {

namespace {
enum class ValueKind { None, Text, Path, List };

/// What one side (clang's parse or warpwise's nvcc runs) gets.
struct Emission {
  bool Drop = false;
  bool Host = false; ///< -Xcompiler: each list item is read as an option.
  std::vector<std::string> Args;
  std::map<std::string, std::vector<std::string>> ByValue;
  bool HasByValue = false;
};

struct FlagRule {
  std::vector<std::string> Spellings;
  ValueKind Value = ValueKind::None;
  bool Joined = false;
  bool OptionalValue = false;
  bool Targets = false; ///< Names the architectures the build targets.
  Emission Clang, Nvcc;
  std::string Reason;
};
} // namespace

class FlagTable {
public:
  std::vector<FlagRule> Rules;
  llvm::StringMap<size_t> BySpelling;
  std::vector<std::pair<std::string, std::string>> HostDrops;
};

static llvm::Expected<Emission> parseEmission(const nlohmann::json &J,
                                              const std::string &Where) {
  Emission E;
  if (J.is_string()) {
    std::string S = J.get<std::string>();
    if (S == "drop")
      E.Drop = true;
    else if (S == "host")
      E.Host = true;
    else
      return llvm::createStringError("%s: unknown action '%s'", Where.c_str(),
                                     S.c_str());
  } else if (J.is_array()) {
    E.Args = J.get<std::vector<std::string>>();
  } else if (J.is_object()) {
    E.HasByValue = true;
    for (auto &[K, V] : J.items())
      E.ByValue[K] = V.get<std::vector<std::string>>();
  } else {
    return llvm::createStringError("%s: expected a list, an object or 'drop'",
                                   Where.c_str());
  }
  return E;
}

llvm::Expected<std::unique_ptr<FlagTable>>
parseFlagTable(llvm::StringRef Json) {
  nlohmann::json J = nlohmann::json::parse(Json.begin(), Json.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.contains("options") || !J["options"].is_array())
    return llvm::createStringError("nvcc-flags.json: not a flag table");
  auto T = std::make_unique<FlagTable>();
  for (const nlohmann::json &O : J["options"]) {
    FlagRule R;
    try {
      R.Spellings = O.at("spellings").get<std::vector<std::string>>();
      std::string V = O.value("value", "none");
      R.Value = V == "text"   ? ValueKind::Text
                : V == "path" ? ValueKind::Path
                : V == "list" ? ValueKind::List
                              : ValueKind::None;
      R.Joined = O.value("joined", false);
      R.OptionalValue = O.value("optional_value", false);
      R.Targets = O.value("targets", false);
      R.Reason = O.value("reason", "");
    } catch (const nlohmann::json::exception &E) {
      return llvm::createStringError("nvcc-flags.json: %s", E.what());
    }
    std::string Where = "nvcc-flags.json: " + R.Spellings.front();
    auto C = parseEmission(O.value("clang", nlohmann::json("drop")), Where);
    if (!C)
      return C.takeError();
    auto N = parseEmission(O.value("nvcc", nlohmann::json("drop")), Where);
    if (!N)
      return N.takeError();
    R.Clang = std::move(*C);
    R.Nvcc = std::move(*N);
    for (const std::string &S : R.Spellings)
      T->BySpelling[S] = T->Rules.size();
    T->Rules.push_back(std::move(R));
  }
  if (J.contains("host_drops"))
    for (const nlohmann::json &D : J["host_drops"])
      T->HostDrops.push_back({D.value("prefix", ""), D.value("reason", "")});
  return T;
}

const FlagTable &builtinFlagTable() {
  static const std::unique_ptr<FlagTable> Table = [] {
    auto T = parseFlagTable(findEmbeddedFile("nvcc-flags.json"));
    if (!T) // The embedded table is tested; this is a build defect.
      llvm::report_fatal_error(T.takeError());
    return std::move(*T);
  }();
  return *Table;
}

std::vector<std::string>
commandOptions(llvm::ArrayRef<std::string> CommandLine) {
  size_t Start = 1;
  // A compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER) comes first.
  if (!CommandLine.empty()) {
    llvm::StringRef Tool = llvm::sys::path::filename(CommandLine[0]);
    if ((Tool == "ccache" || Tool == "sccache" || Tool == "distcc") &&
        CommandLine.size() > 1 && !llvm::StringRef(CommandLine[1]).starts_with("-"))
      Start = 2;
  }
  if (CommandLine.size() <= Start)
    return {};
  return std::vector<std::string>(CommandLine.begin() + Start,
                                  CommandLine.end());
}

namespace {
class Translator {
public:
  Translator(const FlagTable &T, llvm::StringRef Dir) : Table(T), Dir(Dir) {}

  void expand(llvm::ArrayRef<std::string> In, std::vector<std::string> &Out,
              unsigned Depth) {
    for (size_t I = 0; I < In.size(); ++I) {
      llvm::StringRef A = In[I];
      std::string File;
      if (A.starts_with("@") && A.size() > 1)
        File = A.drop_front().str();
      else if ((A == "--options-file" || A == "-optf") && I + 1 < In.size())
        File = In[++I];
      else if (A.starts_with("--options-file="))
        File = A.substr(strlen("--options-file=")).str();
      else {
        Out.push_back(A.str());
        continue;
      }
      std::string Path = absolute(File);
      auto Buf = llvm::MemoryBuffer::getFile(Path);
      if (!Buf || Depth > 8) {
        Result.Problems.push_back(
            "cannot read the response file '" + Path + "'" +
            (Buf ? std::string(" (nested too deeply)")
                 : ": " + Buf.getError().message()));
        continue;
      }
      llvm::BumpPtrAllocator Alloc;
      llvm::StringSaver Saver(Alloc);
      llvm::SmallVector<const char *> Tokens;
      llvm::cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Tokens);
      std::vector<std::string> Inner(Tokens.begin(), Tokens.end());
      expand(Inner, Out, Depth + 1);
    }
  }

  void translate(llvm::ArrayRef<std::string> Args) {
    for (size_t I = 0; I < Args.size(); ++I) {
      llvm::StringRef A = Args[I];
      if (!A.starts_with("-") || A == "-")
        continue; // The source file, objects: warpwise names its own input.
      const FlagRule *Rule = nullptr;
      std::string Spelling, Value;
      bool HasValue = false;
      size_t Used = 1;
      if (!match(Args, I, Rule, Spelling, Value, HasValue, Used)) {
        host(A, Args, I);
        continue;
      }
      std::string Written = A.str();
      for (size_t K = 1; K < Used; ++K)
        Written += " " + Args[I + K];
      I += Used - 1;
      if (Rule->Value == ValueKind::Path && HasValue)
        Value = absolute(Value);
      if (Rule->Value == ValueKind::List) {
        // -Xcompiler -fopenmp,-DX=1: each item is a host compiler option.
        llvm::SmallVector<llvm::StringRef> Items;
        llvm::StringRef(Value).split(Items, ',', -1, false);
        std::vector<std::string> ItemArgs(Items.begin(), Items.end());
        for (size_t K = 0; K < ItemArgs.size(); ++K)
          host(ItemArgs[K], ItemArgs, K);
        emit(Rule->Nvcc, Spelling, Value, Result.Nvcc);
        continue;
      }
      if (Rule->Targets && HasValue && Spelling != "--no-offload-arch")
        recordArches(Spelling, Value);
      if (Rule->Clang.Drop)
        Result.Dropped.push_back({Written, Rule->Reason});
      else
        emit(Rule->Clang, Spelling, Value, Result.Clang);
      if (!Rule->Nvcc.Drop)
        emit(Rule->Nvcc, Spelling, Value, Result.Nvcc);
    }
  }

  TranslatedFlags Result;

private:
  /// \p P against the build's directory where something is there; else as
  /// written: `-include assert.h` names a header the compiler finds on its
  /// include path once the working directory has none (as gcc and nvcc
  /// look), which an absolute path in the build's directory would not.
  std::string absolute(llvm::StringRef P) const {
    if (P.empty() || llvm::sys::path::is_absolute(P) || Dir.empty())
      return P.str();
    llvm::SmallString<256> Abs(Dir);
    llvm::sys::path::append(Abs, P);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    if (!llvm::sys::fs::exists(Abs) && !llvm::sys::path::has_parent_path(P))
      return P.str();
    return Abs.str().str();
  }

  /// The sm_XX that an architecture option's value names: "sm_80",
  /// "compute_80" (as sm_80), lists ("sm_80,sm_86", "[compute_80,sm_80]"),
  /// and -gencode's "arch=compute_80,code=sm_80" (the code= part, else the
  /// arch= part). native, all and all-major name none.
  void recordArches(llvm::StringRef Spelling, llvm::StringRef Value) {
    std::vector<std::string> Real, Virtual;
    llvm::StringRef V = Value;
    bool GenCode = Spelling == "-gencode" || Spelling == "--generate-code";
    if (GenCode) {
      // arch=compute_80,code=[compute_80,sm_80]: split at the keys.
      size_t Code = V.find("code=");
      llvm::StringRef ArchPart = V.substr(0, Code), CodePart;
      if (Code != llvm::StringRef::npos)
        CodePart = V.substr(Code + 5);
      collect(CodePart, Real, Virtual);
      if (Real.empty() && Virtual.empty())
        collect(ArchPart.substr(ArchPart.find('=') + 1), Real, Virtual);
    } else {
      collect(V, Real, Virtual);
    }
    for (const std::string &A : Real.empty() ? Virtual : Real)
      if (!llvm::is_contained(Result.Arches, A))
        Result.Arches.push_back(A);
  }

  static void collect(llvm::StringRef List, std::vector<std::string> &Real,
                      std::vector<std::string> &Virtual) {
    llvm::SmallVector<llvm::StringRef> Items;
    List.split(Items, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef I : Items) {
      I = I.trim().trim("[]\"'").trim();
      if (I.starts_with("arch="))
        I = I.drop_front(5);
      llvm::StringRef Digits;
      bool IsReal = I.consume_front("sm_");
      if (!IsReal && !I.consume_front("compute_"))
        continue;
      Digits = I.take_while([](char C) { return C >= '0' && C <= '9'; });
      if (Digits.empty())
        continue;
      (IsReal ? Real : Virtual).push_back("sm_" + Digits.str());
    }
  }

  static bool looksLikeWord(llvm::StringRef S) {
    return !S.empty() && llvm::all_of(S, [](char C) {
      return (C >= 'a' && C <= 'z') || (C >= '0' && C <= '9') || C == '-' ||
             C == ',' || C == '_';
    });
  }

  /// Finds the rule of Args[I] and its value.
  bool match(llvm::ArrayRef<std::string> Args, size_t I, const FlagRule *&Rule,
             std::string &Spelling, std::string &Value, bool &HasValue,
             size_t &Used) const {
    llvm::StringRef A = Args[I];
    auto Exact = Table.BySpelling.find(A);
    if (Exact != Table.BySpelling.end()) {
      Rule = &Table.Rules[Exact->second];
      Spelling = A.str();
      if (Rule->Value == ValueKind::None)
        return true;
      bool Next = I + 1 < Args.size();
      if (Rule->OptionalValue &&
          (!Next || !looksLikeWord(Args[I + 1]) || Rule->Joined))
        return true;
      if (Next) {
        Value = Args[I + 1];
        HasValue = true;
        Used = 2;
      }
      return true;
    }
    // --name=value, -name=value.
    auto [Name, Rest] = A.split('=');
    if (Rest.data() && A.contains('=')) {
      auto It = Table.BySpelling.find(Name);
      if (It != Table.BySpelling.end() &&
          Table.Rules[It->second].Value != ValueKind::None) {
        Rule = &Table.Rules[It->second];
        Spelling = Name.str();
        Value = Rest.str();
        HasValue = true;
        return true;
      }
    }
    // Joined short spellings: -Idir, -DX=1, -O3. The longest spelling wins
    // (-isystem before -I).
    const FlagRule *Best = nullptr;
    std::string BestSpelling;
    for (const FlagRule &R : Table.Rules) {
      if (!R.Joined)
        continue;
      for (const std::string &S : R.Spellings)
        if (!llvm::StringRef(S).starts_with("--") && A.starts_with(S) &&
            S.size() > BestSpelling.size()) {
          Best = &R;
          BestSpelling = S;
        }
    }
    if (!Best)
      return false;
    Rule = Best;
    Spelling = BestSpelling;
    Value = A.drop_front(BestSpelling.size()).str();
    HasValue = true;
    return true;
  }

  void emit(const Emission &E, const std::string &Spelling,
            const std::string &Value, std::vector<std::string> &Out) const {
    if (E.Drop || E.Host)
      return;
    const std::vector<std::string> *Args = &E.Args;
    if (E.HasByValue) {
      auto It = E.ByValue.find(Value);
      if (It == E.ByValue.end())
        return;
      Args = &It->second;
    }
    for (std::string S : *Args) {
      for (size_t P; (P = S.find("{spelling}")) != std::string::npos;)
        S.replace(P, strlen("{spelling}"), Spelling);
      for (size_t P; (P = S.find("{}")) != std::string::npos;)
        S.replace(P, 2, Value);
      Out.push_back(S);
    }
  }

  /// An option for the host compiler (gcc or clang spelling): kept for
  /// clang's parse when clang knows it, through the table when it is one the
  /// table knows (-I, -D, -std), dropped otherwise.
  void host(llvm::StringRef A, llvm::ArrayRef<std::string> Args, size_t &I) {
    if (!A.starts_with("-"))
      return;
    for (auto &[Prefix, Reason] : Table.HostDrops)
      if (A.starts_with(Prefix)) {
        Result.Dropped.push_back({A.str(), Reason});
        return;
      }
    const llvm::opt::OptTable &Opts = clang::getDriverOptTable();
    std::vector<const char *> One = {A.data()};
    std::string Copy = A.str();
    One[0] = Copy.c_str();
    unsigned MissingIndex = 0, MissingCount = 0;
    llvm::opt::InputArgList Parsed = Opts.ParseArgs(
        One, MissingIndex, MissingCount,
        llvm::opt::Visibility(clang::options::ClangOption));
    if (MissingCount && I + 1 < Args.size()) {
      // A separate value (-Xclang x, -MF f): clang knows it; keep both.
      std::string Next = Args[++I];
      Result.Clang.push_back(Copy);
      Result.Clang.push_back(Next);
      return;
    }
    bool Known = !Parsed.hasArg(clang::options::OPT_UNKNOWN) &&
                 Parsed.size() == 1 && !MissingCount;
    if (!Known) {
      Result.Dropped.push_back(
          {A.str(), "neither clang nor warpwise's nvcc table knows it"});
      return;
    }
    Result.Clang.push_back(Copy);
  }

  const FlagTable &Table;
  llvm::StringRef Dir;
};
} // namespace

TranslatedFlags translateCompileFlags(const FlagTable &Table,
                                      llvm::ArrayRef<std::string> Args,
                                      llvm::StringRef Directory) {
  Translator T(Table, Directory);
  std::vector<std::string> Expanded;
  T.expand(Args, Expanded, 0);
  T.translate(Expanded);
  return std::move(T.Result);
}

} // namespace warpwise
