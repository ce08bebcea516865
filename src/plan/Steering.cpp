//===- Steering.cpp - In-source directives and per-kernel settings --------===//
#include "warpwise/Steering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <optional>

namespace warpwise {

std::vector<std::string> formsOf(llvm::StringRef Transform) {
  if (Transform == "split")
    return {"adaptive", "literal", "compact"};
  if (Transform == "meld")
    return {"merged", "branch-free"};
  return {};
}

namespace {

std::string joined(const std::vector<std::string> &Names) {
  std::string S;
  for (const std::string &N : Names)
    S += (S.empty() ? "" : ", ") + N;
  return S;
}

bool names(const std::vector<std::string> &List, llvm::StringRef T) {
  return List.empty() || llvm::is_contained(List, T.str());
}

/// One directive found in a comment.
struct Parsed {
  std::string Keyword; ///< disable-next-line, disable, enable, force.
  bool HasList = false;
  std::vector<std::pair<std::string, std::string>> List; ///< name, form.
  unsigned Column = 0;
  std::string Text; ///< As written, for messages.
};

/// The directive in \p Line, if its comment holds one.
std::optional<Parsed> directiveIn(llvm::StringRef Line) {
  size_t Comment = Line.find("//");
  size_t Block = Line.find("/*");
  if (Comment == llvm::StringRef::npos ||
      (Block != llvm::StringRef::npos && Block < Comment))
    Comment = Block;
  if (Comment == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = Line.drop_front(Comment + 2).ltrim();
  if (!Rest.consume_front("warpwise-"))
    return std::nullopt;
  Parsed P;
  P.Column = Line.size() - Rest.size() - 9 + 1;
  for (const char *K : {"disable-next-line", "disable", "enable", "force"}) {
    llvm::StringRef Kw(K);
    if (Rest.starts_with(Kw) &&
        (Rest.size() == Kw.size() || Rest[Kw.size()] == '(' ||
         Rest[Kw.size()] == ' ' || Rest[Kw.size()] == '\t' ||
         Rest[Kw.size()] == '*' || Rest[Kw.size()] == '\r')) {
      P.Keyword = K;
      break;
    }
  }
  if (P.Keyword.empty())
    return std::nullopt;
  llvm::StringRef After = Rest.drop_front(P.Keyword.size());
  P.Text = "warpwise-" + P.Keyword;
  if (After.starts_with("(")) {
    size_t Close = After.find(')');
    llvm::StringRef Inside = After.slice(1, Close);
    P.HasList = true;
    P.Text += "(" + Inside.str() + ")";
    llvm::SmallVector<llvm::StringRef> Items;
    Inside.split(Items, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef I : Items) {
      auto [Name, Form] = I.trim().split('=');
      P.List.push_back({Name.trim().str(), Form.trim().str()});
    }
  }
  return P;
}

} // namespace

DirectiveIndex DirectiveIndex::parse(llvm::StringRef Text,
                                     const std::vector<std::string> &Known,
                                     const std::vector<std::string> &Active,
                                     std::vector<DirectiveProblem> &Problems) {
  DirectiveIndex Index;
  // Cheap exit for the usual file, which has none.
  if (!Text.contains("warpwise-"))
    return Index;
  std::vector<Region> Open;
  unsigned LineNo = 0;
  llvm::StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    ++LineNo;
    std::optional<Parsed> P = directiveIn(Line);
    if (!P)
      continue;
    auto Problem = [&](std::string Message) {
      Problems.push_back(
          {LineNo, P->Column, "`" + P->Text + "`: " + std::move(Message)});
    };
    // Check the names, and keep the known ones.
    std::map<std::string, std::string> Names;
    bool Bad = false;
    for (const auto &[Name, Form] : P->List) {
      if (!llvm::is_contained(Known, Name)) {
        Problem("unknown transformation '" + Name +
                "' (available: " + joined(Known) + "); ignored");
        Bad = true;
        continue;
      }
      if (!Form.empty()) {
        std::vector<std::string> Forms = formsOf(Name);
        if (P->Keyword != "force") {
          Problem("only warpwise-force takes a form ('" + Name + "=" + Form +
                  "'); the directive is ignored");
          Bad = true;
          continue;
        }
        if (!llvm::is_contained(Forms, Form)) {
          Problem(Forms.empty()
                      ? Name + " has one form only; '=" + Form +
                            "' is ignored with the directive"
                      : "'" + Form + "' is not a form of " + Name + " (" +
                            joined(Forms) + "); the directive is ignored");
          Bad = true;
          continue;
        }
      }
      if (P->Keyword == "force" && !llvm::is_contained(Active, Name))
        Problem("this run leaves " + Name +
                " out (--transforms, or Transforms in the configuration "
                "file), so forcing it has no effect");
      Names[Name] = Form;
    }
    if (P->Keyword == "force") {
      if (!P->HasList || P->List.empty()) {
        Problem("name the transformation to force, as in "
                "warpwise-force(split=compact); ignored");
        continue;
      }
      if (Bad)
        continue;
      Index.Lines.push_back({LineNo, true, Names, P->Text});
    } else if (P->Keyword == "disable-next-line") {
      if (Bad)
        continue;
      Index.Lines.push_back({LineNo, false, Names, P->Text});
    } else if (P->Keyword == "disable") {
      if (Bad)
        continue;
      std::vector<std::string> List;
      for (const auto &[N, F] : Names)
        List.push_back(N);
      Open.push_back({LineNo, 0, List, P->Text});
    } else {
      // enable: closes the innermost open region with the same names.
      std::vector<std::string> List;
      for (const auto &[N, F] : Names)
        List.push_back(N);
      auto It = std::find_if(Open.rbegin(), Open.rend(),
                             [&](const Region &R) { return R.Names == List; });
      if (It == Open.rend()) {
        Problem("no warpwise-disable" +
                (List.empty() ? std::string() : "(" + joined(List) + ")") +
                " before it to end; ignored");
        continue;
      }
      Region R = *It;
      R.End = LineNo;
      Open.erase(std::next(It).base());
      Index.Regions.push_back(R);
    }
  }
  for (Region &R : Open) {
    Problems.push_back(
        {R.Begin, 1,
         "`" + R.Text +
             "` has no warpwise-enable after it: it holds to the end of the "
             "file"});
    R.End = LineNo + 1;
    Index.Regions.push_back(R);
  }
  return Index;
}

Steer DirectiveIndex::lookup(llvm::StringRef Transform, unsigned KernelBegin,
                             unsigned KernelName,
                             unsigned CandidateLine) const {
  auto Verdict = [&](const LineDirective &D) {
    Steer S;
    S.K = D.Force ? Steer::Forced : Steer::Disabled;
    if (D.Force)
      S.Form = D.Names.at(Transform.str());
    S.Source = "`// " + D.Text + "` at line " + std::to_string(D.Line);
    return S;
  };
  auto Covers = [&](const LineDirective &D) {
    return D.Force ? D.Names.count(Transform.str()) > 0
                   : D.Names.empty() || D.Names.count(Transform.str()) > 0;
  };
  // The most specific directive decides: the candidate's own line, then the
  // kernel's, then a region; at one place a disable wins over a force.
  for (int Pass = 0; Pass < 2; ++Pass) {
    std::optional<Steer> Found;
    for (const LineDirective &D : Lines) {
      bool Here = Pass == 0
                      ? CandidateLine && D.Line + 1 == CandidateLine
                      : D.Line + 1 >= KernelBegin && D.Line + 1 <= KernelName;
      if (!Here || !Covers(D))
        continue;
      Steer S = Verdict(D);
      if (!Found || S.disabled())
        Found = S;
    }
    if (Found)
      return *Found;
  }
  for (const Region &R : Regions) {
    unsigned At = CandidateLine ? CandidateLine : KernelBegin;
    bool Inside = (R.Begin < At && At < R.End) ||
                  (R.Begin < KernelBegin && KernelBegin < R.End);
    if (Inside && names(R.Names, Transform)) {
      Steer S;
      S.K = Steer::Disabled;
      S.Source = "`// " + R.Text + "` at line " + std::to_string(R.Begin);
      return S;
    }
  }
  return {};
}

Steer SteeringRules::lookup(llvm::StringRef Transform, llvm::StringRef Kernel,
                            const std::string &File, llvm::StringRef Text,
                            unsigned KernelBegin, unsigned KernelName,
                            unsigned CandidateLine) {
  auto It = ByFile.find(File);
  if (It == ByFile.end()) {
    std::vector<DirectiveProblem> Found;
    It = ByFile.emplace(File, DirectiveIndex::parse(Text, Known, Active, Found))
             .first;
    if (!Found.empty())
      Problems[File] = std::move(Found);
  }
  Steer S =
      It->second.lookup(Transform, KernelBegin, KernelName, CandidateLine);
  if (S.K != Steer::Free || !Kernels)
    return S;
  auto K = Kernels->find(Kernel.str());
  if (K == Kernels->end())
    return S;
  std::string Where = "`" + llvm::sys::path::filename(ConfigPath).str() +
                      "` (Kernels: " + Kernel.str() + ": ";
  if (llvm::is_contained(K->second.Disable, Transform.str()) ||
      llvm::is_contained(K->second.Disable, "all")) {
    S.K = Steer::Disabled;
    S.Source = Where + "Disable)";
  } else if (auto F = K->second.Force.find(Transform.str());
             F != K->second.Force.end()) {
    S.K = Steer::Forced;
    S.Form = F->second;
    S.Source = Where + "Force)";
  }
  return S;
}

} // namespace warpwise
