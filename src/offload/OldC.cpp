//===- OldC.cpp - C that C++ does not accept, said in C++ ----------------===//
#include "OldC.h"

#include "warpwise/Embedded.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Builtins.h"
#include "clang/Lex/Lexer.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>

namespace warpwise {
namespace offload {

using namespace clang;

namespace {

/// rules/c-headers.json.
struct KnownHeaders {
  std::map<std::string, std::string> Functions, Prefixes;

  static const KnownHeaders &get() {
    static const KnownHeaders K = [] {
      KnownHeaders K;
      nlohmann::json J = nlohmann::json::parse(
          findEmbeddedFile("c-headers.json"), nullptr, false);
      if (!J.is_object())
        return K;
      for (const char *Key : {"functions", "prefixes"})
        if (J.contains(Key) && J[Key].is_object())
          for (auto &[Name, Header] : J[Key].items())
            if (Header.is_string())
              (Key[0] == 'f' ? K.Functions : K.Prefixes)[Name] =
                  Header.get<std::string>();
      return K;
    }();
    return K;
  }

  std::string headerOf(llvm::StringRef Name) const {
    if (auto It = Functions.find(Name.str()); It != Functions.end())
      return It->second;
    for (const auto &[Prefix, Header] : Prefixes)
      if (Name.starts_with(Prefix))
        return Header;
    return "";
  }
};

/// Whether \p F is written without a type before its name (implicit int).
bool implicitIntReturn(const FunctionDecl *F, const SourceManager &SM) {
  FunctionTypeLoc TL = F->getFunctionTypeLoc();
  if (!TL)
    return false;
  SourceLocation Ret = TL.getReturnLoc().getBeginLoc();
  return Ret.isInvalid() ||
         SM.getFileOffset(SM.getExpansionLoc(Ret)) >=
             SM.getFileOffset(SM.getExpansionLoc(F->getLocation()));
}

class OldCWriter {
public:
  explicit OldCWriter(const OffloadSource &Src) : Src(Src) {}

  void definition(const FunctionDecl *F) {
    const SourceManager &SM = Src.SM;
    if (!F->hasBody())
      return;
    if (F->getLocation().isMacroID()) {
      if (!F->hasWrittenPrototype() && F->getNumParams() > 0)
        keep(F, "its name is written through a macro");
      return;
    }
    // `static bump(n)`: the type goes after the storage class, before the
    // name.
    if (implicitIntReturn(F, SM) && F->getReturnType()->isIntegerType()) {
      unsigned At = Src.offset(F->getLocation());
      Out.Edits.push_back({At, At, "int "});
      ++Out.ImplicitInts;
    }
    if (F->hasWrittenPrototype() || F->getNumParams() == 0)
      return;
    kandR(F);
  }

  /// `float squash(x) float x; {` -> `float squash(float x) {`, as many
  /// line breaks kept as the declarations took, so later lines keep their
  /// numbers. The types are printed from the parse, so only where that is
  /// what the program wrote; otherwise the definition stays as written,
  /// with a warning.
  void kandR(const FunctionDecl *F) {
    const SourceManager &SM = Src.SM;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
    std::optional<Token> Open =
        Lexer::findNextToken(F->getLocation(), SM, Src.LO);
    if (!Body || Body->getLBracLoc().isMacroID() || !Open ||
        !Open->is(tok::l_paren) || Open->getLocation().isMacroID())
      return keep(F, "its head is written through a macro");
    unsigned B = Src.offset(Open->getLocation());
    unsigned E = Src.offset(Body->getLBracLoc());
    if (E <= B)
      return keep(F, "its head is written through a macro");
    llvm::StringRef Old = Src.Contents.slice(B, E);
    if (Old.contains('#'))
      return keep(F, "its parameter declarations hold a preprocessor "
                     "directive");
    if (std::string Why = unprintable(F); !Why.empty())
      return keep(F, Why);
    std::string Params;
    for (const ParmVarDecl *P : F->parameters())
      // A parameter declared `float w[]` keeps its written type.
      Params += (Params.empty() ? "" : ", ") +
                TypeText(P->getOriginalType(), P->getName());
    std::string Text = "(" + Params + ")";
    unsigned Breaks = Old.count('\n');
    Text += Breaks ? std::string(Breaks, '\n') : std::string(" ");
    Out.Edits.push_back({B, E, Text});
    ++Out.KandR;
  }

  /// Why \p F's parameters cannot be written from their parsed types ("" if
  /// they can).
  std::string unprintable(const FunctionDecl *F) const {
    for (const FunctionDecl *R : F->redecls())
      if (R != F && !R->isImplicit() && R->hasWrittenPrototype())
        // `double half(double);` and then `half(x) float x;`: compatible in
        // C, two overloads in C++.
        return "a prototype declares it too, with the promoted types";
    for (const ParmVarDecl *P : F->parameters()) {
      // `DATA_TYPE x;`: the parse says float where a build may say double.
      if (const TypeSourceInfo *TSI = P->getTypeSourceInfo()) {
        SourceRange R = TSI->getTypeLoc().getSourceRange();
        if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
          return "parameter '" + P->getNameAsString() +
                 "' has its type through a macro";
      }
      // `double (*f)();`: a pointer to a function without a prototype
      // takes any arguments in C and none in C++.
      QualType T = P->getOriginalType();
      while (T->isPointerType())
        T = T->getPointeeType();
      if (T->getAs<FunctionNoProtoType>())
        return "parameter '" + P->getNameAsString() +
               "' points to a function declared without its parameters";
    }
    return "";
  }

  void keep(const FunctionDecl *F, const std::string &Why,
            bool Definition = true) {
    if (Definition)
      Kept.insert(F->getCanonicalDecl());
    SourceLocation L = SM().getExpansionLoc(F->getLocation());
    Out.Kept.push_back({F->getName().str(), SM().getExpansionLineNumber(L),
                        SM().getExpansionColumnNumber(L), Why, Definition});
  }

  const SourceManager &SM() const { return Src.SM; }

  /// Declares what \p Call's callee left implicit, or records that nothing
  /// can. \p Caller is the function the call is in.
  void call(const CallExpr *Call, const FunctionDecl *Caller) {
    const FunctionDecl *F = Call->getDirectCallee();
    if (!F || !F->isImplicit() || !F->getIdentifier())
      return;
    // The program's own function first, even named like a library one
    // (which nvcc's headers declare too: said, since C++ sees two).
    if (const FunctionDecl *Def = laterDeclaration(F)) {
      if (!Declared.insert(Def->getCanonicalDecl()).second)
        return;
      if (F->getBuiltinID())
        return keep(Def,
                    "it has a C library function's name, which the headers "
                    "nvcc includes declare too (rename it)",
                    /*Definition=*/false);
      prototypeBefore(Def, Caller);
      return;
    }
    // A library function clang knows names its header; a builtin with
    // none (`__builtin_expect`) needs no declaration in C++ either.
    if (unsigned ID = F->getBuiltinID()) {
      if (const char *H = Src.Ctx.BuiltinInfo.getHeaderName(ID))
        Out.Headers.insert(H);
      return;
    }
    std::string Header = KnownHeaders::get().headerOf(F->getName());
    if (!Header.empty()) {
      Out.Headers.insert(Header);
      return;
    }
    SourceLocation L = Src.SM.getExpansionLoc(Call->getBeginLoc());
    if (Reported.insert(F->getName().str()).second)
      Out.Undeclared.push_back({F->getName().str(),
                                Src.SM.getExpansionLineNumber(L),
                                Src.SM.getExpansionColumnNumber(L)});
  }

  OldCEdits Out;

private:
  /// A declaration with a prototype of \p Implicit's function written in
  /// the main file (its definition further down, usually).
  const FunctionDecl *laterDeclaration(const FunctionDecl *Implicit) const {
    for (const FunctionDecl *R : Implicit->redecls())
      if (!R->isImplicit() && R->hasWrittenPrototype() &&
          Src.SM.isInMainFile(Src.SM.getExpansionLoc(R->getLocation())))
        return R;
    // A K&R definition: its prototype is the one written for it here.
    for (const FunctionDecl *R : Implicit->redecls())
      if (!R->isImplicit() && R->isThisDeclarationADefinition() &&
          Src.SM.isInMainFile(Src.SM.getExpansionLoc(R->getLocation())))
        return R;
    return nullptr;
  }

  /// `static float later(int v);` on the lines before \p Caller: the
  /// definition's head as written where it has a prototype (its macros
  /// kept), else from its parameters' types (K&R, checked by kandR).
  void prototypeBefore(const FunctionDecl *Def, const FunctionDecl *Caller) {
    std::string Head;
    if (Def->hasWrittenPrototype()) {
      FunctionTypeLoc TL = Def->getFunctionTypeLoc();
      SourceLocation B = Def->getOuterLocStart();
      SourceLocation E = TL ? TL.getRParenLoc() : SourceLocation();
      if (B.isInvalid() || E.isInvalid() || B.isMacroID() || E.isMacroID())
        return keep(Def,
                    "its head is written through a macro (declare it "
                    "before its first call)",
                    /*Definition=*/false);
      Head = Src.Contents.slice(Src.offset(B), Src.offset(E) + 1).str();
    } else {
      if (Kept.count(Def->getCanonicalDecl()) || !unprintable(Def).empty())
        return; // Said by kandR.
      std::string Params;
      for (const ParmVarDecl *P : Def->parameters())
        Params += (Params.empty() ? "" : ", ") +
                  TypeText(P->getOriginalType(), P->getName());
      Head = (Def->getStorageClass() == SC_Static ? "static " : "") +
             TypeText(Def->getReturnType(),
                      Def->getName().str() + "(" + Params + ")");
    }
    std::string Text =
        "// warpwise offload: C89 declared `" + Def->getName().str() +
        "` where it is first called; C++ needs it before.\n" +
        (DeviceCallee(Def) ? "__host__ __device__ " : "") + Head + ";\n";
    unsigned At = Src.lineStart(Src.offset(Caller->getBeginLoc()));
    Out.Prototypes.push_back({At, At, Text});
  }

  const OffloadSource &Src;
  std::set<const FunctionDecl *> Declared, Kept;
  std::set<std::string> Reported;

public:
  /// Whether a function is compiled for the device too (an offloaded
  /// loop's callee): its prototype then says so.
  std::function<bool(const FunctionDecl *)> DeviceCallee;
  std::function<std::string(QualType, llvm::StringRef)> TypeText;
};

} // namespace

OldCEdits oldCEdits(
    const OffloadSource &Src,
    const std::vector<const FunctionDecl *> &Functions,
    const std::function<bool(const FunctionDecl *)> &DeviceCallee,
    const std::function<std::string(QualType, llvm::StringRef)> &TypeText) {
  struct Calls : RecursiveASTVisitor<Calls> {
    OldCWriter &W;
    const FunctionDecl *Caller = nullptr;
    explicit Calls(OldCWriter &W) : W(W) {}
    bool VisitCallExpr(CallExpr *C) {
      W.call(C, Caller);
      return true;
    }
  };
  OldCWriter W(Src);
  W.DeviceCallee = DeviceCallee;
  W.TypeText = TypeText;
  Calls Visitor(W);
  for (const FunctionDecl *F : Functions) {
    W.definition(F);
    Visitor.Caller = F;
    Visitor.TraverseDecl(const_cast<FunctionDecl *>(F));
  }
  return std::move(W.Out);
}

/// The C++-only keywords the file \p FID uses as names, outside directive
/// lines (`#pragma omp ... private(j)` is OpenMP's clause, and a pragma's
/// tokens are macro-expanded).
static std::set<std::string> keywordsUsed(const SourceManager &SM, FileID FID,
                                          const LangOptions &LO) {
  static const std::set<std::string> CxxOnly = {
      "catch",     "class",       "co_await",   "co_return",
      "co_yield",  "concept",     "const_cast", "consteval",
      "constinit", "decltype",    "delete",     "dynamic_cast",
      "explicit",  "export",      "friend",     "mutable",
      "namespace", "new",         "noexcept",   "operator",
      "private",   "protected",   "public",     "reinterpret_cast",
      "requires",  "static_cast", "template",   "this",
      "throw",     "try",         "typeid",     "typename",
      "using",     "virtual"};
  std::set<std::string> Used;
  llvm::StringRef Text = SM.getBufferData(FID);
  Lexer Raw(SM.getLocForStartOfFile(FID), LO, Text.begin(), Text.begin(),
            Text.end());
  Token T;
  bool InDirective = false;
  do {
    Raw.LexFromRawLexer(T);
    if (T.isAtStartOfLine())
      InDirective = T.is(tok::hash);
    if (!InDirective && T.is(tok::raw_identifier) &&
        CxxOnly.count(T.getRawIdentifier().str()))
      Used.insert(T.getRawIdentifier().str());
  } while (T.isNot(tok::eof));
  return Used;
}

std::string renamingMacros(llvm::StringRef Comment,
                           const std::set<std::string> &Names,
                           llvm::StringRef Prefix) {
  if (Names.empty())
    return "";
  std::string Text = Comment.str();
  for (const std::string &Name : Names)
    Text += "#define " + Name + " " + Prefix.str() + Name + "\n";
  return Text;
}

static std::string keywordMacros(const std::set<std::string> &Names) {
  return renamingMacros("// warpwise offload: names of this C program that "
                        "are C++ keywords, renamed.\n",
                        Names, "ww_c_");
}

KeywordRenames keywordRenames(const OffloadSource &Src) {
  const SourceManager &SM = Src.SM;
  KeywordRenames Out;
  std::set<std::string> Main = keywordsUsed(SM, SM.getMainFileID(), Src.LO);
  Out.Macros = keywordMacros(Main);
  Out.MainNames = Main;
  // The files the main file includes itself, by where it includes them.
  std::map<unsigned, FileID> Included;
  for (unsigned I = 1, N = SM.local_sloc_entry_size(); I < N; ++I) {
    const SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
    if (!E.isFile())
      continue;
    SourceLocation From = E.getFile().getIncludeLoc();
    if (From.isInvalid() || From.isMacroID() ||
        SM.getFileID(From) != SM.getMainFileID())
      continue;
    FileID FID =
        SM.getFileID(SourceLocation::getFromRawEncoding(E.getOffset()));
    Included.emplace(SM.getFileOffset(From), FID);
  }
  // The first project file with keywords, if no system header comes after.
  std::set<std::string> Early;
  unsigned At = 0;
  for (const auto &[Offset, FID] : Included) {
    bool System = SM.isInSystemHeader(SM.getLocForStartOfFile(FID));
    if (System && !Early.empty()) {
      // A C++ header after it may use the keywords.
      Out.Unrenamed = std::move(Early);
      Out.UnrenamedLine = SM.getLineNumber(SM.getMainFileID(), Offset);
      return Out;
    }
    if (System)
      continue;
    std::set<std::string> Used = keywordsUsed(SM, FID, Src.LO);
    if (Used.empty())
      continue;
    if (Early.empty())
      At = Src.lineStart(Offset);
    Early.insert(Used.begin(), Used.end());
  }
  if (Early.empty())
    return Out;
  Early.insert(Main.begin(), Main.end());
  Out.Early = keywordMacros(Early);
  Out.EarlyAt = At;
  Out.Undefs = "// warpwise offload: the renames above end here: what is "
               "included below uses\n// the C++ keywords.\n";
  for (const std::string &Name : Early)
    Out.Undefs += "#undef " + Name + "\n";
  return Out;
}

std::vector<TextEdit> pragmaKeywordGuards(
    const OffloadSource &Src, const std::set<std::string> &Names, unsigned From,
    const std::vector<std::pair<unsigned, unsigned>> &Replaced) {
  std::vector<TextEdit> Out;
  if (Names.empty())
    return Out;
  const SourceManager &SM = Src.SM;
  llvm::StringRef Text = Src.Contents;
  Lexer Raw(SM.getLocForStartOfFile(SM.getMainFileID()), Src.LO, Text.begin(),
            Text.begin(), Text.end());
  Token T;
  // The directive being read: its first token's offset and what it is.
  unsigned Start = 0;
  int Step = 0; // 1 after `#`, 2 after `pragma`, 3 in an `omp` pragma.
  std::set<std::string> Named;
  auto Finish = [&](unsigned End) {
    if (Step == 3 && !Named.empty() && Start >= From &&
        llvm::none_of(Replaced, [&](const std::pair<unsigned, unsigned> &R) {
          return Start >= R.first && Start < R.second;
        })) {
      unsigned B = Src.lineStart(Start);
      // The line after the directive's last (continued) line.
      unsigned E = End;
      while (E < Text.size() && Text[E] != '\n')
        ++E;
      E = std::min<unsigned>(E + 1, Text.size());
      std::string Undefs;
      for (const std::string &N : Named)
        Undefs += "#undef " + N + "\n";
      Out.push_back({B, B, Undefs});
      Out.push_back({E, E, renamingMacros("", Named, "ww_c_")});
    }
    Step = 0;
    Named.clear();
  };
  unsigned Last = 0;
  Raw.SetKeepWhitespaceMode(false);
  do {
    Raw.LexFromRawLexer(T);
    unsigned Off = SM.getFileOffset(T.getLocation());
    if (T.isAtStartOfLine() || T.is(tok::eof)) {
      Finish(Last);
      if (T.is(tok::hash)) {
        Step = 1;
        Start = Off;
      }
    } else if (Step == 1) {
      Step =
          T.is(tok::raw_identifier) && T.getRawIdentifier() == "pragma" ? 2 : 0;
    } else if (Step == 2) {
      Step = T.is(tok::raw_identifier) && T.getRawIdentifier() == "omp" ? 3 : 0;
    } else if (Step == 3 && T.is(tok::raw_identifier) &&
               Names.count(T.getRawIdentifier().str())) {
      Named.insert(T.getRawIdentifier().str());
    }
    Last = Off + T.getLength();
  } while (T.isNot(tok::eof));
  return Out;
}

} // namespace offload
} // namespace warpwise
