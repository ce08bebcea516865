#include "warpwise/Emitter.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>
#include <sys/stat.h>

using namespace warpwise;

/// True when \p E holds an error; the error is consumed.
static bool failed(llvm::Error E) {
  bool Failed = static_cast<bool>(E);
  llvm::consumeError(std::move(E));
  return Failed;
}

namespace {
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() { llvm::sys::fs::createUniqueDirectory("warpwise-test", Path); }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string file(const char *Name) const {
    llvm::SmallString<128> P(Path);
    llvm::sys::path::append(P, Name);
    return P.str().str();
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> Out;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator I(Path, EC), E; I != E && !EC;
         I.increment(EC))
      Out.push_back(llvm::sys::path::filename(I->path()).str());
    return Out;
  }
};
std::string readAll(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : "<unreadable>";
}
} // namespace

TEST_CASE("atomic write replaces the file and keeps its mode", "[emit]") {
  TempDir D;
  std::string F = D.file("k.cu");
  REQUIRE_FALSE(failed(writeFileAtomically(F, "old")));
  ::chmod(F.c_str(), 0751);
  REQUIRE_FALSE(failed(writeFileAtomically(F, "new contents")));
  CHECK(readAll(F) == "new contents");
  struct stat St;
  REQUIRE(::stat(F.c_str(), &St) == 0);
  CHECK((St.st_mode & 0777) == 0751);
  // No temporary file is left behind.
  CHECK(D.entries() == std::vector<std::string>{"k.cu"});
}

TEST_CASE("atomic write to a missing directory fails cleanly", "[emit]") {
  TempDir D;
  llvm::Error E = writeFileAtomically(D.file("no/such/dir.cu"), "x");
  REQUIRE(static_cast<bool>(E));
  CHECK(llvm::toString(std::move(E)).find("does not exist") !=
        std::string::npos);
  CHECK(D.entries().empty());
}

TEST_CASE("atomic write onto a directory fails and leaves it", "[emit]") {
  TempDir D;
  std::string Sub = D.file("sub");
  llvm::sys::fs::create_directory(Sub);
  llvm::Error E = writeFileAtomically(Sub, "x");
  REQUIRE(static_cast<bool>(E));
  llvm::consumeError(std::move(E));
  CHECK(llvm::sys::fs::is_directory(Sub));
  CHECK(D.entries() == std::vector<std::string>{"sub"});
}

TEST_CASE("atomic write through a symlink replaces the target", "[emit]") {
  TempDir D;
  std::string Target = D.file("target.cu"), Link = D.file("link.cu");
  REQUIRE_FALSE(failed(writeFileAtomically(Target, "old")));
  REQUIRE_FALSE(llvm::sys::fs::create_link(Target, Link));
  REQUIRE_FALSE(failed(writeFileAtomically(Link, "new")));
  CHECK(readAll(Target) == "new");
  CHECK(llvm::sys::fs::is_symlink_file(Link));
}

TEST_CASE("unified diff of equal texts is empty", "[emit][diff]") {
  CHECK(unifiedDiff("a", "b", "x\ny\n", "x\ny\n").empty());
}

TEST_CASE("unified diff with context and hunk headers", "[emit][diff]") {
  // Seven unchanged lines between the changes: more than twice the context,
  // so two hunks (six would make one, as in diff -u).
  std::string Old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n";
  std::string New =
      "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\nthirteen\nfourteen\n";
  std::string Expected = "--- a/k.cu\n+++ b/k.cu\n"
                         "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
                         "@@ -10,4 +10,5 @@\n 10\n 11\n 12\n-13\n+thirteen\n"
                         "+fourteen\n";
  CHECK(unifiedDiff("a/k.cu", "b/k.cu", Old, New) == Expected);
}

TEST_CASE("changes within six lines share a hunk", "[emit][diff]") {
  std::string Old = "a\nb\nc\nd\ne\nf\ng\nh\n";
  std::string New = "A\nb\nc\nd\ne\nf\ng\nH\n";
  std::string Expected = "--- x\n+++ y\n@@ -1,8 +1,8 @@\n-a\n+A\n b\n c\n d\n"
                         " e\n f\n g\n-h\n+H\n";
  CHECK(unifiedDiff("x", "y", Old, New) == Expected);
}

TEST_CASE("unified diff marks a missing final newline", "[emit][diff]") {
  std::string Expected = "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n"
                         "\\ No newline at end of file\n+b\n";
  CHECK(unifiedDiff("x", "y", "a\nb", "a\nb\n") == Expected);
}

TEST_CASE("pure insertion into an empty file", "[emit][diff]") {
  CHECK(unifiedDiff("x", "y", "", "new\n") == "--- x\n+++ y\n@@ -0,0 +1 @@\n+new\n");
}

TEST_CASE("fixes YAML in clang-apply-replacements format", "[emit][yaml]") {
  clang::tooling::Replacements R;
  llvm::consumeError(R.add(clang::tooling::Replacement(
      "/src/k.cu", 10, 4, "if (c) {\n  x = \"q\";\n}")));
  std::string Y = exportFixesYaml({{"/src/k.cu", &R}});
  std::string Expected = "---\n"
                         "MainSourceFile:  '/src/k.cu'\n"
                         "Replacements:\n"
                         "  - FilePath:        '/src/k.cu'\n"
                         "    Offset:          10\n"
                         "    Length:          4\n"
                         "    ReplacementText: \"if (c) {\\n  x = \\\"q\\\";\\n}\"\n"
                         "...\n";
  CHECK(Y == Expected);
}
