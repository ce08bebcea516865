//===- Feedback.cpp - Compiling candidates with nvcc ----------------------===//
#include "warpwise/Feedback.h"

#include "warpwise/AtomicFile.h"
#include "warpwise/Embedded.h"
#include "warpwise/Paths.h"
#include "warpwise/Ptxas.h"
#include "warpwise/TempFiles.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <future>

#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

namespace warpwise {

std::string findCudaTool(const CudaToolkit &T, const char *Name,
                         std::string *Looked) {
  std::vector<std::string> Places;
  if (T.Found) {
    Places.push_back(T.Path + "/bin");
    if (llvm::sys::fs::can_execute(T.Path + "/bin/" + Name))
      return T.Path + "/bin/" + Name;
  }
  if (auto P = llvm::sys::findProgramByName(Name))
    return *P;
  // Found at run time, not through a path compiled into the binary: a copied
  // or installed warpwise must decide as the one in the build tree does.
  std::string Exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&findCudaTool));
  if (!Exe.empty()) {
    llvm::SmallString<256> Bin(llvm::sys::path::parent_path(Exe));
    llvm::SmallString<256> Libexec(Bin), Tools(Bin);
    llvm::sys::path::append(Libexec, "..", "libexec", "warpwise");
    llvm::sys::path::append(Tools, "..", "tools", "bin");
    llvm::sys::path::remove_dots(Libexec, true);
    llvm::sys::path::remove_dots(Tools, true);
    Places.push_back(Libexec.str().str());
    Places.push_back(Tools.str().str());
  }
  for (size_t I = 0; I < Places.size(); ++I) {
    std::string Candidate = Places[I] + "/" + Name;
    if (llvm::sys::fs::can_execute(Candidate))
      return Candidate;
  }
  if (Looked) {
    *Looked = T.Found ? Places.front() + ", " : "";
    *Looked += "PATH";
    for (size_t I = T.Found ? 1 : 0; I < Places.size(); ++I)
      *Looked += ", " + Places[I];
  }
  return "";
}

std::string feedbackUnavailable(const CompileFeedback *F) {
  return F ? F->unavailableReason()
           : "no CUDA toolkit was found (warpwise parses with its stub header)";
}

bool needsExplicitCudaLanguage(llvm::StringRef Path) {
  return llvm::sys::path::extension(Path) != ".cu";
}

CompileFeedback::CompileFeedback(const CudaToolkit &T,
                                 std::vector<std::string> F)
    : Toolkit(T), Flags(std::move(F)) {
  std::string LookedC, LookedD;
  Cuobjdump = findCudaTool(T, "cuobjdump", &LookedC);
  Nvdisasm = findCudaTool(T, "nvdisasm", &LookedD);
  bool Nvcc = T.Found && llvm::sys::fs::can_execute(T.Path + "/bin/nvcc");
  Available = Nvcc && !Cuobjdump.empty() && !Nvdisasm.empty();
  if (!T.Found)
    Missing = "no CUDA toolkit was found";
  else if (!Nvcc)
    Missing = "no nvcc in " + T.Path + "/bin";
  else if (Cuobjdump.empty())
    Missing = "cuobjdump was not found (looked in " + LookedC + ")";
  else if (Nvdisasm.empty())
    Missing = "nvdisasm was not found (looked in " + LookedD + ")";
}

void CompileFeedback::setCacheDir(std::string Dir) { CacheDir = std::move(Dir); }

std::vector<std::string>
CompileFeedback::flagsFor(const std::string &OriginalPath) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = FileFlags.find(OriginalPath);
  return It != FileFlags.end() ? It->second : Flags;
}

void CompileFeedback::setFileFlags(const std::string &OriginalPath,
                                   std::vector<std::string> F) {
  std::lock_guard<std::mutex> Lock(Mutex);
  FileFlags[OriginalPath] = std::move(F);
}

void CompileFeedback::setIncluders(const std::string &OriginalPath,
                                   IncludeGraph Includers) {
  std::lock_guard<std::mutex> Lock(Mutex);
  FileIncluders[OriginalPath] = std::move(Includers);
}

/// What stands for the main file's directory in measurement keys and in
/// the persistent cache's listings: the same sources in two directories (a
/// project and its copy, two test directories) share their entries. The
/// bytes of every project header the file reads are in the key too
/// (setHeadersRead), so two directories share an entry only where what
/// nvcc reads is the same.
constexpr llvm::StringLiteral MainDirMark = "<main-dir>";

/// \p Text with \p Dir, where it begins a path ("Dir/...", or \p Text
/// ending in "Dir", as in -IDir), written as MainDirMark.
static std::string withMainDirMarked(llvm::StringRef Text,
                                     llvm::StringRef Dir) {
  if (Dir.empty())
    return Text.str();
  std::string Prefix = (Dir + "/").str();
  std::string Out;
  size_t Pos = 0;
  for (size_t At; (At = Text.find(Prefix, Pos)) != llvm::StringRef::npos;
       Pos = At + Prefix.size())
    Out += (Text.slice(Pos, At) + MainDirMark + "/").str();
  llvm::StringRef Rest = Text.drop_front(Pos);
  if (Rest.ends_with(Dir))
    return Out + Rest.drop_back(Dir.size()).str() + MainDirMark.str();
  return Out + Rest.str();
}

void CompileFeedback::setHeadersRead(const std::string &OriginalPath,
                                     const std::vector<std::string> &Headers) {
  llvm::StringRef MainDir = llvm::sys::path::parent_path(OriginalPath);
  // warpwise's runtime header is compiled as this warpwise embeds it
  // (withRuntimeHeader puts its text in the key), not as a copy on disk: a
  // rewrite that wrote one beside its output must not make the next run's
  // keys differ (it did: every warm rewrite in place compiled its second
  // pass again).
  std::vector<std::string> Read;
  for (const std::string &Path : Headers)
    if (llvm::sys::path::filename(Path) != RuntimeHeaderName)
      Read.push_back(Path);
  llvm::SHA256 Hash;
  hashFilesRead(Hash, Read, [&](llvm::StringRef Path) {
    return withMainDirMarked(Path, MainDir);
  });
  std::string Digest = llvm::toHex(Hash.final(), /*LowerCase=*/true);
  std::lock_guard<std::mutex> Lock(Mutex);
  HeadersReadDigest[OriginalPath] = std::move(Digest);
}

std::vector<std::string>
headersIncludingEdited(const IncludeGraph &Includers, const std::string &Main,
                       const std::set<std::string> &Edited) {
  // Upwards from the edited headers: every file that includes one of them,
  // directly or through others, lies on a path from the main file to it.
  std::set<std::string> Found;
  std::vector<std::string> Work(Edited.begin(), Edited.end());
  while (!Work.empty()) {
    std::string Header = std::move(Work.back());
    Work.pop_back();
    auto It = Includers.find(Header);
    if (It == Includers.end())
      continue;
    for (const std::string &By : It->second)
      if (By != Main && !Edited.count(By) && Found.insert(By).second)
        Work.push_back(By);
  }
  return std::vector<std::string>(Found.begin(), Found.end());
}

std::vector<KernelStats> compiledInstances(const KernelStats &S) {
  if (!S.Instances.empty())
    return S.Instances;
  return {S};
}

const KernelStats *sameInstance(const std::vector<KernelStats> &Candidates,
                                const KernelStats &Of) {
  for (const KernelStats &C : Candidates)
    if (C.Mangled == Of.Mangled)
      return &C;
  return nullptr;
}

std::string instanceName(const std::string &Mangled) {
  std::string D = llvm::demangle(Mangled);
  size_t Paren = D.find('(');
  if (Paren != std::string::npos)
    D = D.substr(0, Paren);
  if (D.rfind("void ", 0) == 0)
    D = D.substr(5);
  return D;
}

KernelStats statsOfCode(const SassFunction &F) {
  KernelStats S;
  for (const SassInstruction &I : F.Code) {
    llvm::StringRef Op = I.Opcode;
    if (Op.starts_with("NOP"))
      continue;
    ++S.Instructions;
    if (!I.Guard.empty())
      ++S.Predicated;
    if (Op.starts_with("BRA") || Op.starts_with("BRX") ||
        Op.starts_with("JMP"))
      ++S.Branches;
  }
  return S;
}

/// Whether \p Comment is one warpwise writes: the mark a candidate carries
/// where its decision's comment will go (DecisionMark, Transform.h), or
/// that comment (`// warpwise WW4001 meld.k.1: ...`, decisionComment).
static bool isDecisionComment(llvm::StringRef Comment) {
  if (Comment == "// warpwise: @decision@")
    return true;
  llvm::StringRef Code = Comment;
  if (!Code.consume_front("// warpwise WW") || Code.size() < 5 ||
      Code[4] != ' ')
    return false;
  return llvm::all_of(Code.take_front(4), llvm::isDigit);
}

std::string withDecisionCommentsBlank(llvm::StringRef Text) {
  if (!Text.contains("// warpwise"))
    return Text.str();
  // Comments as the compiler sees them: not inside a string literal or a
  // block comment. The raw lexer needs a null-terminated buffer.
  std::string Buffer = Text.str();
  clang::LangOptions Lang;
  Lang.CPlusPlus = Lang.CPlusPlus11 = Lang.CPlusPlus14 = Lang.CPlusPlus17 = 1;
  Lang.LineComment = Lang.CUDA = 1;
  const char *Begin = Buffer.c_str(), *End = Begin + Buffer.size();
  clang::Lexer Lex(clang::SourceLocation(), Lang, Begin, Begin, End);
  Lex.SetCommentRetentionState(true);
  std::string Out;
  size_t Copied = 0;
  for (bool AtEnd = false; !AtEnd;) {
    clang::Token T;
    AtEnd = Lex.LexFromRawLexer(T);
    if (T.is(clang::tok::eof))
      break;
    if (!T.is(clang::tok::comment))
      continue;
    size_t At = Lex.getBufferLocation() - Begin - T.getLength();
    llvm::StringRef Comment(Begin + At, T.getLength());
    // Only a comment alone on its one line: a backslash (or the trigraph
    // ??/) could join the next line to it, and code before it on the line
    // would be something else than a comment's line (an include's <...>).
    size_t LineStart = llvm::StringRef(Begin, At).rfind('\n');
    LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
    llvm::StringRef Before(Begin + LineStart, At - LineStart);
    if (!isDecisionComment(Comment) ||
        Comment.find_first_of("\r\n\\") != llvm::StringRef::npos ||
        Comment.contains("??/") || !Before.trim(" \t").empty())
      continue;
    Out.append(Begin + Copied, Begin + At);
    Out += "// warpwise";
    Copied = At + Comment.size();
  }
  Out.append(Begin + Copied, End);
  return Out;
}

/// With WARPWISE_TOOL_LOG=<file>, each measurement appends a line there:
/// where its answer came from (memory, disk, or the tools and how long
/// each took), for finding where a rewrite's time goes.
static void logMeasurement(const std::string &Line) {
  static const char *Path = std::getenv("WARPWISE_TOOL_LOG");
  if (!Path || !*Path)
    return;
  static std::mutex LogMutex;
  std::lock_guard<std::mutex> Lock(LogMutex);
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Append);
  if (!EC)
    OS << llvm::sys::Process::getProcessId() << " " << Line << "\n";
}

static double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

/// Runs \p Program; \p Output is what it printed, both streams (nvcc's
/// -Xptxas -v counts are on standard error), or with \p StdoutOnly its
/// standard output alone: a listing that a warning or the dynamic loader's
/// messages (LD_DEBUG) on standard error would corrupt, in the decisions and
/// in the cache that keeps them.
static bool runTool(const std::string &Program,
                    const std::vector<std::string> &Args, std::string &Output,
                    std::string &Error,
                    const std::vector<std::string> &ExtraEnv = {},
                    bool *Rejected = nullptr, bool StdoutOnly = false) {
  llvm::SmallString<128> Log, ErrLog;
  createTemporaryFile("tool", "log", Log);
  if (StdoutOnly)
    createTemporaryFile("tool", "err", ErrLog);
  std::vector<std::string> EnvStrings = toolEnvironment(ExtraEnv);
  std::vector<llvm::StringRef> Env(EnvStrings.begin(), EnvStrings.end());
  std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, Log.str(), StdoutOnly ? ErrLog.str() : Log.str()};
  int RC =
      llvm::sys::ExecuteAndWait(Program, Refs, Env, Redirects, 300, 0, &Error);
  auto Buf = llvm::MemoryBuffer::getFile(Log);
  Output = Buf ? (*Buf)->getBuffer().str() : "";
  llvm::sys::fs::remove(Log);
  std::string Said = Output;
  if (StdoutOnly) {
    auto Err = llvm::MemoryBuffer::getFile(ErrLog);
    Said = (Err ? (*Err)->getBuffer().str() : "") + Output;
    llvm::sys::fs::remove(ErrLog);
  }
  // The tool ran and said no (nvcc's errors in the source): the same input
  // gets the same answer. A tool that could not run, timed out or crashed
  // (ExecuteAndWait's message) may do better next time.
  if (Rejected)
    *Rejected = RC > 0 && Error.empty();
  if (RC != 0 && Error.empty())
    Error = firstErrorLine(Said);
  return RC == 0;
}

/// Gives each compiled instance in \p Stats its code from \p Code.
static void attachCode(std::map<std::string, KernelStats> &Stats,
                       std::map<std::string, SassFunction> Code) {
  for (auto &[Name, Total] : Stats)
    for (KernelStats &I : Total.Instances) {
      auto It = Code.find(I.Mangled);
      if (It != Code.end())
        I.Code = std::make_shared<const SassFunction>(std::move(It->second));
    }
}

/// \p Listing with each file name of its line information
/// (`//## File "PATH", line N`) given to \p Rename: replaced by what it
/// returns, kept where it returns std::nullopt.
static std::string withListingFileNames(
    llvm::StringRef Listing,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> Rename) {
  std::string Out;
  Out.reserve(Listing.size());
  constexpr llvm::StringLiteral Prefix = "//## File \"";
  while (!Listing.empty()) {
    auto [Line, Rest] = Listing.split('\n');
    Listing = Rest;
    size_t At = Line.find(Prefix);
    if (At != llvm::StringRef::npos) {
      size_t Start = At + Prefix.size();
      llvm::StringRef Path = Line.drop_front(Start).take_until(
          [](char C) { return C == '"'; });
      if (std::optional<std::string> New = Rename(Path)) {
        Out += (Line.take_front(Start) + *New +
                Line.drop_front(Start + Path.size()) + "\n")
                   .str();
        continue;
      }
    }
    Out += (Line + "\n").str();
  }
  return Out;
}

/// \p Listing with the temporary copies' paths in its line information
/// replaced by the files they copy.
static std::string
originalFileNames(llvm::StringRef Listing,
                  const std::map<std::string, std::string> &Originals) {
  return withListingFileNames(
      Listing, [&](llvm::StringRef Path) -> std::optional<std::string> {
        auto It = Originals.find(Path.str());
        if (It == Originals.end())
          return std::nullopt;
        return It->second;
      });
}

/// \p Listing's file names under \p Dir written with MainDirMark (\p Mark)
/// or, the other way, MainDirMark's expanded to \p Dir.
static std::string listingWithMainDir(llvm::StringRef Listing,
                                      llvm::StringRef Dir, bool Mark) {
  std::string From = Mark ? (Dir + "/").str() : (MainDirMark + "/").str();
  std::string To = Mark ? (MainDirMark + "/").str() : (Dir + "/").str();
  return withListingFileNames(
      Listing, [&](llvm::StringRef Path) -> std::optional<std::string> {
        if (!Path.starts_with(From))
          return std::nullopt;
        return To + Path.drop_front(From.size()).str();
      });
}

static nlohmann::json statsToJson(const KernelStats &S) {
  nlohmann::json J = {{"mangled", S.Mangled},
                      {"registers", S.Registers},
                      {"spill_bytes", S.SpillBytes},
                      {"stack_bytes", S.StackBytes},
                      {"shared_bytes", S.SharedBytes},
                      {"instructions", S.Instructions},
                      {"branches", S.Branches},
                      {"predicated", S.Predicated}};
  J["instances"] = nlohmann::json::array();
  for (const KernelStats &I : S.Instances)
    J["instances"].push_back(statsToJson(I));
  return J;
}

/// Throws nlohmann::json::exception where \p J is not what statsToJson
/// wrote (readCacheEntry catches it).
static KernelStats statsFromJson(const nlohmann::json &J) {
  KernelStats S;
  S.Mangled = J.value("mangled", "");
  S.Registers = J.value("registers", 0u);
  S.SpillBytes = J.value("spill_bytes", 0u);
  S.StackBytes = J.value("stack_bytes", 0u);
  S.SharedBytes = J.value("shared_bytes", 0ul);
  S.Instructions = J.value("instructions", 0u);
  S.Branches = J.value("branches", 0u);
  S.Predicated = J.value("predicated", 0u);
  if (J.contains("instances"))
    for (const nlohmann::json &I : J.at("instances"))
      S.Instances.push_back(statsFromJson(I));
  return S;
}

/// The persistent cache's entry format. One file holds the counts and the
/// listing, so that a reader never pairs the counts of one write with the
/// listing of another; it names its format and key, so that an entry
/// written by another version of warpwise sharing the directory, or copied
/// under another name, answers nothing.
constexpr llvm::StringLiteral CacheFormat = "warpwise-sass-v6";

/// What a cache entry says: the counts and code of a compile, or nvcc's
/// first error where it rejected the text.
struct CacheEntry {
  std::optional<std::map<std::string, KernelStats>> Stats;
  std::string Error;
  /// Whether Stats has the code: an entry of a compile measured without
  /// its listing has ptxas's numbers only.
  bool Listed = true;
};

/// The entry \p File holds for \p Key; std::nullopt when it is missing,
/// unreadable, cut short, of another format or key, or malformed: then
/// the tools run again and the entry is rewritten.
static std::optional<CacheEntry> readCacheEntry(const std::string &File,
                                                const std::string &Key,
                                                llvm::StringRef MainDir) {
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  nlohmann::json J =
      nlohmann::json::parse((*Buf)->getBuffer(), nullptr, false);
  if (!J.is_object())
    return std::nullopt;
  try {
    if (J.value("format", "") != CacheFormat || J.value("key", "") != Key)
      return std::nullopt;
    CacheEntry Entry;
    if (J.contains("rejected")) {
      Entry.Error = J.at("rejected").get<std::string>();
      return Entry;
    }
    const nlohmann::json &Kernels = J.at("kernels");
    if (!Kernels.is_object())
      return std::nullopt;
    std::map<std::string, KernelStats> Out;
    for (auto &[Name, KJ] : Kernels.items())
      Out[Name] = statsFromJson(KJ);
    // Written by a compile measured without its listing (measure()'s
    // NeedCode): ptxas's numbers only.
    Entry.Listed = J.contains("listing");
    if (Entry.Listed)
      attachCode(Out, parseNvdisasm(listingWithMainDir(
                          J.at("listing").get<std::string>(), MainDir,
                          /*Mark=*/false)));
    Entry.Stats = std::move(Out);
    return Entry;
  } catch (const nlohmann::json::exception &) {
    return std::nullopt;
  }
}

/// Writes the entry for \p Key whole or not at all (several warpwise
/// processes, or machines, may share the directory: each writes through
/// its own temporary file and a rename, and the last one stays, with the
/// same content). A cache that cannot be written only costs time. Without
/// \p Stats, the entry records that nvcc rejected the text with \p Error;
/// without \p Listed, Stats are ptxas's numbers alone and no listing is
/// written (an entry that answers only requests that read no code).
static void writeCacheEntry(
    const std::string &Dir, const std::string &File, const std::string &Key,
    const std::optional<std::map<std::string, KernelStats>> &Stats,
    const std::string &Listing, const std::string &Error, bool Listed = true) {
  if (llvm::sys::fs::create_directories(Dir))
    return;
  nlohmann::json J = {{"format", CacheFormat.str()}, {"key", Key}};
  if (!Stats) {
    J["rejected"] = Error;
  } else {
    J["kernels"] = nlohmann::json::object();
    for (const auto &[Name, S] : *Stats)
      J["kernels"][Name] = statsToJson(S);
    if (Listed)
      J["listing"] = Listing;
  }
  llvm::consumeError(writeFileAtomically(File, J.dump() + "\n"));
}

std::optional<std::map<std::string, KernelStats>> CompileFeedback::measure(
    const std::string &Source, const std::string &OriginalPath,
    const std::string &Arch, std::string &Error,
    const std::map<std::string, std::string> &Given, bool NeedCode) {
  // A rewritten text that includes warpwise's runtime finds it beside
  // itself, as the output will. The comments warpwise writes change no
  // code and no line: a decision applied with its comment is the candidate
  // compiled with the comment's mark, already measured.
  std::map<std::string, std::string> Headers =
      withRuntimeHeader(OriginalPath, Source, Given);
  for (auto &[Path, Text] : Headers)
    Text = withDecisionCommentsBlank(Text);
  const std::string Compiled = withDecisionCommentsBlank(Source);
  if (!Available) {
    Error = Missing;
    return std::nullopt;
  }
  std::vector<std::string> UseFlags;
  std::string HeadersRead;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = FileFlags.find(OriginalPath);
    UseFlags = It != FileFlags.end() ? It->second : Flags;
    auto Read = HeadersReadDigest.find(OriginalPath);
    if (Read != HeadersReadDigest.end())
      HeadersRead = Read->second;
  }
  llvm::SHA256 Hash;
  // The entry's format: entries written before stack and shared bytes or
  // the code were recorded must not answer for them.
  // v3: the compiled code (with line numbers) is kept beside the counts.
  // v4: one file holds both, with its format and key (readCacheEntry).
  // v5: decision comments and their marks are blanked before compiling
  // (withDecisionCommentsBlank).
  // v6: the main file's directory is written as MainDirMark, in the key
  // and in the listing.
  Hash.update(CacheFormat);
  Hash.update(Compiled);
  Hash.update(Arch);
  llvm::StringRef MainDir = llvm::sys::path::parent_path(OriginalPath);
  Hash.update(llvm::sys::path::filename(OriginalPath));
  Hash.update(Toolkit.Path);
  Hash.update(Toolkit.Version);
  Hash.update(Cuobjdump);
  for (const std::string &F : UseFlags)
    Hash.update(withMainDirMarked(F, MainDir));
  // The project headers as they are on disk (setHeadersRead); the edited
  // ones' candidate texts follow.
  Hash.update("headers-read:" + HeadersRead);
  for (const auto &[Path, Text] : Headers) {
    Hash.update(withMainDirMarked(Path, MainDir));
    Hash.update(Text);
  }
  // The unedited headers through which the main file includes an edited
  // one are mirrored too (below); entries from before they were compiled
  // measured the original header and must not answer.
  std::vector<std::string> Between;
  if (!Headers.empty()) {
    std::set<std::string> Edited;
    for (const auto &[Path, Text] : Headers)
      Edited.insert(Path);
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = FileIncluders.find(OriginalPath);
    if (It != FileIncluders.end())
      Between = headersIncludingEdited(It->second, OriginalPath, Edited);
  }
  for (const std::string &Path : Between)
    Hash.update("between:" + withMainDirMarked(Path, MainDir));
  std::string Key = llvm::toHex(Hash.final(), true);
  // In memory the directory counts: the stats' code names the files.
  std::string MemoryKey = Key + "\n" + MainDir.str();
  // One compile per key at a time: a request for a key already being
  // compiled (a candidate and its original measured side by side, files
  // processed in parallel) waits for that compile's answer. A compile
  // measured without its listing answers requests that read no code; one
  // that reads code lists it then (nvdisasm on the kept cubin).
  for (;;) {
    std::promise<Answer> Promise;
    std::shared_future<Answer> Pending;
    std::optional<Unlisted> Upgrade;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      auto Hit = Cache.find(MemoryKey);
      if (Hit != Cache.end()) {
        logMeasurement("memory " + Key.substr(0, 12) + " " + OriginalPath);
        return Hit->second;
      }
      auto No = Rejections.find(MemoryKey);
      if (No != Rejections.end()) {
        logMeasurement("memory " + Key.substr(0, 12) + " " + OriginalPath);
        Error = No->second;
        return std::nullopt;
      }
      auto Kept = UnlistedCompiles.find(MemoryKey);
      if (Kept != UnlistedCompiles.end() && !NeedCode) {
        logMeasurement("memory " + Key.substr(0, 12) + " " + OriginalPath);
        return Kept->second.Stats;
      }
      auto Running = InFlight.find(MemoryKey);
      if (Running != InFlight.end()) {
        Pending = Running->second;
      } else {
        InFlight[MemoryKey] = Promise.get_future().share();
        if (Kept != UnlistedCompiles.end())
          Upgrade = Kept->second;
      }
    }
    if (Pending.valid()) {
      const Answer &A = Pending.get();
      // Compiled without the code this request reads: list it.
      if (A.Stats && !A.Listed && NeedCode)
        continue;
      if (!A.Stats)
        Error = A.Error;
      return A.Stats;
    }
    Answer A;
    bool Rejected = false;
    std::optional<Unlisted> Kept;
    if (Upgrade && !Upgrade->Cubin.empty())
      A.Stats = listUnlisted(Key, OriginalPath, *Upgrade, A.Error);
    else
      A.Stats =
          measureUncached(Key, Compiled, OriginalPath, Arch, UseFlags, Headers,
                          Between, NeedCode, A.Error, Rejected, Kept);
    A.Listed = !Kept;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (A.Stats && A.Listed) {
        Cache[MemoryKey] = *A.Stats;
        UnlistedCompiles.erase(MemoryKey);
      } else if (A.Stats) {
        UnlistedCompiles[MemoryKey] = std::move(*Kept);
      } else if (Rejected) {
        Rejections[MemoryKey] = A.Error;
      }
      InFlight.erase(MemoryKey);
    }
    Promise.set_value(A);
    if (!A.Stats)
      Error = A.Error;
    return A.Stats;
  }
}

/// Each kernel's statistics from ptxas's report (\p PtxasOut) and the code
/// (\p Listing, nvdisasm's), its instantiations gathered under its name.
static std::map<std::string, KernelStats>
statsOfFunctions(const std::string &PtxasOut,
                 const std::map<std::string, SassFunction> &Code) {
  std::map<std::string, PtxasInfo> Regs = parsePtxasOutput(PtxasOut);
  std::map<std::string, KernelStats> Out;
  for (auto &[Mangled, Function] : Code) {
    KernelStats S = statsOfCode(Function);
    S.Mangled = Mangled;
    auto R = Regs.find(Mangled);
    if (R != Regs.end()) {
      S.Registers = R->second.Registers;
      S.SpillBytes = R->second.SpillStores + R->second.SpillLoads;
      S.StackBytes = R->second.StackBytes;
      S.SharedBytes = R->second.SharedBytes;
    }
    KernelStats &Total = Out[kernelBaseName(Mangled)];
    Total.Registers = std::max(Total.Registers, S.Registers);
    Total.SpillBytes = std::max(Total.SpillBytes, S.SpillBytes);
    Total.StackBytes = std::max(Total.StackBytes, S.StackBytes);
    Total.SharedBytes = std::max(Total.SharedBytes, S.SharedBytes);
    Total.Instructions += S.Instructions;
    Total.Branches += S.Branches;
    Total.Predicated += S.Predicated;
    Total.Instances.push_back(std::move(S));
  }
  return Out;
}

/// statsOfFunctions of nvdisasm's \p Listing, each instance with its code.
static std::map<std::string, KernelStats>
statsOfCompile(const std::string &PtxasOut, const std::string &Listing) {
  std::map<std::string, SassFunction> Code = parseNvdisasm(Listing);
  std::map<std::string, KernelStats> Out = statsOfFunctions(PtxasOut, Code);
  attachCode(Out, std::move(Code));
  return Out;
}

/// The functions \p Cubin has code for, without their code: its
/// `.text.<name>` sections, the functions nvdisasm lists (`.text.<name>:`,
/// parseNvdisasm). std::nullopt where the cubin cannot be read as ELF.
static std::optional<std::map<std::string, SassFunction>>
functionsOfCubin(llvm::StringRef Cubin) {
  auto Object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(Cubin, "candidate.cubin"));
  if (!Object) {
    llvm::consumeError(Object.takeError());
    return std::nullopt;
  }
  std::map<std::string, SassFunction> Out;
  for (const llvm::object::SectionRef &Section : (*Object)->sections()) {
    llvm::Expected<llvm::StringRef> Name = Section.getName();
    if (!Name) {
      llvm::consumeError(Name.takeError());
      return std::nullopt;
    }
    if (Name->starts_with(".text.") && Name->size() > 6)
      Out[Name->drop_front(6).str()].Name = Name->drop_front(6).str();
  }
  return Out;
}

/// The directories \p Flags name with -I, absolute, in their order.
static std::vector<std::string>
includeDirectories(const std::vector<std::string> &Flags) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef F = Flags[I];
    std::string IDir;
    if (F == "-I" && I + 1 < Flags.size())
      IDir = Flags[I + 1];
    else if (F.starts_with("-I") && F.size() > 2)
      IDir = F.drop_front(2).str();
    if (IDir.empty())
      continue;
    llvm::SmallString<256> Abs(IDir);
    llvm::sys::fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, true);
    Out.push_back(Abs.str().str());
  }
  return Out;
}

namespace {

/// A candidate's sources written into a private directory for nvcc: the
/// main file and the edited headers, each where its includers find it.
struct CandidateTree {
  std::string Dir;  ///< The private directory.
  std::string Root; ///< The original directory Dir stands for.
  std::string Src;  ///< The main file's copy.
  /// Each copy's path, with the original's path.
  std::map<std::string, std::string> Originals;
  /// The headers copied (edited, and those including them), by path.
  std::vector<std::string> Mirrored;

  /// Where the copy of \p Path (below Root) goes.
  std::string mirror(llvm::StringRef Path) const {
    llvm::SmallString<256> P(Dir);
    std::string Rel = pathBelow(Path, Root).value_or("");
    if (Rel != ".")
      llvm::sys::path::append(P, Rel);
    return P.str().str();
  }
};

/// \p Message (nvcc's first error) with the candidate's copies named by
/// their paths below the copied tree ("lib/k.cuh:17:2: error: ..." for
/// "/tmp/warpwise-x/candidate-y/lib/k.cuh:17:2: error: ..."): the message
/// then reads the same in every run (the private directory's name
/// changes), so that it can be cached. Its line numbers are the candidate
/// text's, which the callers say (nvccCheck: "the rewritten lib/k.cuh").
std::string withCopiesNamed(std::string Message, const CandidateTree &Tree) {
  std::string Prefix = Tree.Dir + "/";
  for (size_t At = Message.find(Prefix); At != std::string::npos;
       At = Message.find(Prefix, At))
    Message.erase(At, Prefix.size());
  return Message;
}

} // namespace

/// Writes \p Source and the edited \p Headers (and the unedited headers
/// \p Between that include them) into a private directory for nvcc.
/// An edited header must be what the main file's `#include "kernels.cuh"`
/// finds. Quote includes search the including file's directory first, so
/// the temporary directory mirrors the tree below the deepest directory
/// holding the main file and every edited header: the main file's copy
/// then sees the edited copies at the same relative paths. A header found
/// through -I gets the mirror of that directory ahead of the original.
/// An edited header included through unedited ones (main.cu includes
/// mid.cuh, which includes k.cuh) is found beside its includer: those
/// (Between) are mirrored too, unchanged, or the original tree's mid.cuh
/// would include the original k.cuh.
static std::optional<CandidateTree>
writeCandidateTree(const std::string &Source, const std::string &OriginalPath,
                   const std::map<std::string, std::string> &Headers,
                   const std::vector<std::string> &Between,
                   std::string &Error) {
  CandidateTree Tree;
  llvm::SmallString<128> Dir;
  if (createTemporaryDirectory("candidate", Dir)) {
    Error = "cannot create a temporary directory";
    return std::nullopt;
  }
  Tree.Dir = Dir.str().str();
  std::map<std::string, std::string> Mirrored(Headers.begin(), Headers.end());
  for (const std::string &Path : Between) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf) {
      llvm::sys::fs::remove_directories(Tree.Dir);
      Error = "cannot read " + Path +
              ", which includes an edited header: " + Buf.getError().message();
      return std::nullopt;
    }
    Mirrored[Path] = (*Buf)->getBuffer().str();
  }
  Tree.Root = llvm::sys::path::parent_path(OriginalPath).str();
  for (const auto &[Path, Text] : Mirrored)
    Tree.Root = commonDirectory({Tree.Root + "/.", Path});
  Tree.Src = Headers.empty() ? Tree.Dir + "/" +
                                   llvm::sys::path::filename(OriginalPath).str()
                             : Tree.mirror(OriginalPath);
  auto Write = [&](const std::string &Path, const std::string &Text) {
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Text;
    return !EC;
  };
  bool Written = Write(Tree.Src, Source);
  for (const auto &[Path, Text] : Mirrored) {
    Written &= !Tree.Root.empty() && Write(Tree.mirror(Path), Text);
    Tree.Mirrored.push_back(Path);
  }
  if (!Written) {
    llvm::sys::fs::remove_directories(Tree.Dir);
    Error = "cannot write the candidate into a temporary directory";
    return std::nullopt;
  }
  Tree.Originals[Tree.Src] = OriginalPath;
  for (const auto &[Path, Text] : Headers)
    Tree.Originals[Tree.mirror(Path)] = Path;
  return Tree;
}

/// nvcc's command line for the candidate in \p Tree.
static std::vector<std::string>
candidateCommand(const CudaToolkit &Toolkit, const CandidateTree &Tree,
                 const std::string &OriginalPath, const std::string &Arch,
                 const std::vector<std::string> &UseFlags,
                 const std::map<std::string, std::string> &Headers) {
  // -lineinfo changes no instruction (checked on every sample); it names
  // each one's source line, for the floating-point comparison (SassFp.h).
  std::vector<std::string> Args = {Toolkit.Path + "/bin/nvcc",
                                   "-arch=" + Arch,
                                   "-cubin",
                                   "-lineinfo",
                                   "-o",
                                   Tree.Dir + "/candidate.cubin",
                                   "-Xptxas",
                                   "-v"};
  if (!Headers.empty())
    for (const std::string &IDir : includeDirectories(UseFlags))
      if (pathBelow(IDir, Tree.Root))
        Args.push_back("-I" + Tree.mirror(IDir));
  Args.push_back("-I" + llvm::sys::path::parent_path(OriginalPath).str());
  // What the mirrored headers include beside themselves.
  for (const std::string &Path : Tree.Mirrored)
    Args.push_back("-I" + llvm::sys::path::parent_path(Path).str());
  Args.insert(Args.end(), UseFlags.begin(), UseFlags.end());
  // nvcc chooses the language by extension: a .cuh input is CUDA only when
  // told so.
  if (llvm::sys::path::extension(Tree.Src) != ".cu") {
    Args.push_back("-x");
    Args.push_back("cu");
  }
  Args.push_back(Tree.Src);
  return Args;
}

std::optional<std::map<std::string, KernelStats>>
CompileFeedback::measureUncached(
    const std::string &Key, const std::string &Source,
    const std::string &OriginalPath, const std::string &Arch,
    const std::vector<std::string> &UseFlags,
    const std::map<std::string, std::string> &Headers,
    const std::vector<std::string> &Between, bool NeedCode, std::string &Error,
    bool &Rejected, std::optional<Unlisted> &Kept) {
  Rejected = false;
  // The persistent cache: a second run over the same sources and flags
  // reads what nvcc and nvdisasm said, rather than running them again;
  // nvcc's rejection of a text as well.
  llvm::StringRef MainDir = llvm::sys::path::parent_path(OriginalPath);
  std::string CacheFile =
      CacheDir.empty() ? "" : CacheDir + "/sass-" + Key + ".json";
  // An entry without the listing answers only a request that reads no
  // code; one that does compiles again (and rewrites the entry).
  if (!CacheFile.empty())
    if (auto Entry = readCacheEntry(CacheFile, Key, MainDir);
        Entry && (Entry->Listed || !NeedCode)) {
      logMeasurement("disk " + Key.substr(0, 12) + " " + OriginalPath);
      Rejected = !Entry->Stats;
      Error = Entry->Error;
      if (Entry->Stats && !Entry->Listed)
        Kept = Unlisted{*Entry->Stats, "", "", {}};
      return Entry->Stats;
    }
  std::optional<CandidateTree> Tree =
      writeCandidateTree(Source, OriginalPath, Headers, Between, Error);
  if (!Tree)
    return std::nullopt;
  std::vector<std::string> Args =
      candidateCommand(Toolkit, *Tree, OriginalPath, Arch, UseFlags, Headers);
  std::string Cubin = Tree->Dir + "/candidate.cubin";
  std::string PtxasOut, SassOut;
  auto Started = std::chrono::steady_clock::now();
  bool OK = runTool(Args[0], Args, PtxasOut, Error, {}, &Rejected);
  double NvccSeconds = secondsSince(Started);
  // A request that reads no code: ptxas's numbers for the functions the
  // cubin has code for, and the cubin kept for a later request that reads
  // the code. Where the cubin cannot be read, nvdisasm lists it now.
  if (OK && !NeedCode) {
    auto Bytes = llvm::MemoryBuffer::getFile(Cubin, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    std::optional<std::map<std::string, SassFunction>> Functions;
    if (Bytes)
      Functions = functionsOfCubin((*Bytes)->getBuffer());
    if (Functions) {
      Kept = Unlisted{statsOfFunctions(PtxasOut, *Functions),
                      (*Bytes)->getBuffer().str(), PtxasOut, Tree->Originals};
      logMeasurement("run " + Key.substr(0, 12) + " " + OriginalPath +
                     " nvcc " + std::to_string(NvccSeconds) +
                     " nvdisasm 0 (not listed)");
      llvm::sys::fs::remove_directories(Tree->Dir);
      if (!CacheFile.empty())
        writeCacheEntry(CacheDir, CacheFile, Key, Kept->Stats, "", "",
                        /*Listed=*/false);
      return Kept->Stats;
    }
  }
  Started = std::chrono::steady_clock::now();
  // The code, each instruction with its source line. -ndf: nvdisasm's
  // dataflow pass only annotates an indirect branch's targets (BRX), which
  // the listing's reader takes as any label anyway, and it is about 30% of
  // nvdisasm's time (0.27 s -> 0.19 s a cubin; the same listing on 878
  // cubins of samples, tests and public code at sm_75 and sm_90).
  if (OK)
    OK = listCubin(Cubin, SassOut, Error);
  else
    Error = withCopiesNamed(Error, *Tree);
  logMeasurement("run " + Key.substr(0, 12) + " " + OriginalPath + " nvcc " +
                 std::to_string(NvccSeconds) + " nvdisasm " +
                 std::to_string(OK ? secondsSince(Started) : 0.0) +
                 (OK ? "" : " failed: " + Error));
  llvm::sys::fs::remove_directories(Tree->Dir);
  if (!OK) {
    if (Rejected && !CacheFile.empty())
      writeCacheEntry(CacheDir, CacheFile, Key, std::nullopt, "", Error);
    return std::nullopt;
  }
  return statsOfListing(Key, OriginalPath, PtxasOut, SassOut, Tree->Originals);
}

bool CompileFeedback::listCubin(const std::string &Cubin, std::string &SassOut,
                                std::string &Error) const {
  return runTool(Nvdisasm, {Nvdisasm, "-g", "-c", "-ndf", Cubin}, SassOut,
                 Error, {}, nullptr, /*StdoutOnly=*/true);
}

std::map<std::string, KernelStats> CompileFeedback::statsOfListing(
    const std::string &Key, const std::string &OriginalPath,
    const std::string &PtxasOut, const std::string &SassOut,
    const std::map<std::string, std::string> &Originals) const {
  // The listing names the copies compiled; the comparisons name originals.
  std::string Listing = originalFileNames(SassOut, Originals);
  std::map<std::string, KernelStats> Out = statsOfCompile(PtxasOut, Listing);
  if (!CacheDir.empty())
    writeCacheEntry(
        CacheDir, CacheDir + "/sass-" + Key + ".json", Key, Out,
        listingWithMainDir(compactNvdisasm(Listing),
                           llvm::sys::path::parent_path(OriginalPath),
                           /*Mark=*/true),
        "");
  return Out;
}

std::optional<std::map<std::string, KernelStats>>
CompileFeedback::listUnlisted(const std::string &Key,
                              const std::string &OriginalPath,
                              const Unlisted &U, std::string &Error) {
  llvm::SmallString<128> Dir;
  if (createTemporaryDirectory("listing", Dir)) {
    Error = "cannot create a temporary directory";
    return std::nullopt;
  }
  std::string Cubin = (Dir + "/candidate.cubin").str();
  if (llvm::Error E = writeFileAtomically(Cubin, U.Cubin)) {
    llvm::consumeError(std::move(E));
    llvm::sys::fs::remove_directories(Dir);
    Error = "cannot write the compiled cubin into a temporary directory";
    return std::nullopt;
  }
  // The same listing the compile would have made (the line information
  // names the candidate's copies, which U.Originals maps back).
  auto Started = std::chrono::steady_clock::now();
  std::string SassOut;
  bool OK = listCubin(Cubin, SassOut, Error);
  logMeasurement("listing " + Key.substr(0, 12) + " " + OriginalPath +
                 " nvdisasm " + std::to_string(secondsSince(Started)) +
                 (OK ? "" : " failed: " + Error));
  llvm::sys::fs::remove_directories(Dir);
  if (!OK)
    return std::nullopt;
  return statsOfListing(Key, OriginalPath, U.PtxasOut, SassOut, U.Originals);
}

} // namespace warpwise
