//===- SteeringTest.cpp - Directives, formatting and tool messages --------===//
#include "warpwise/Steering.h"
#include "warpwise/Format.h"
#include "warpwise/TempFiles.h"

#include "clang/Tooling/Core/Replacement.h"
#include <catch2/catch.hpp>

using namespace warpwise;

static const std::vector<std::string> All = {"meld", "fuse", "realloc",
                                             "fission", "split"};

TEST_CASE("directives cover the next line, the kernel, or a region",
          "[steering]") {
  const char *Text = "// warpwise-disable-next-line\n"         // 1
                     "__global__ void k() {\n"                 // 2
                     "  // warpwise-force(meld=branch-free)\n" // 3
                     "  if (a) {} else {}\n"                   // 4
                     "  // warpwise-disable(split)\n"          // 5
                     "  if (b) {} else {}\n"                   // 6
                     "  // warpwise-enable(split)\n"           // 7
                     "  if (c) {} else {}\n";                  // 8
  std::vector<DirectiveProblem> Problems;
  DirectiveIndex I = DirectiveIndex::parse(Text, All, All, Problems);
  CHECK(Problems.empty());
  // The kernel's directive covers every candidate in it, below the
  // candidate's own line.
  Steer Line4 = I.lookup("meld", 2, 2, 4);
  CHECK(Line4.forced());
  CHECK(Line4.Form == "branch-free");
  CHECK(Line4.Source == "`// warpwise-force(meld=branch-free)` at line 3");
  CHECK(I.lookup("fuse", 2, 2, 4).disabled()); // The kernel's disable.
  CHECK(I.lookup("fission", 2, 2, 8).disabled());
  // Without the kernel's directive: the region covers split only, and only
  // between its two lines.
  const char *NoKernel = "__global__ void k() {\n"
                         "  // warpwise-disable(split)\n"
                         "  if (b) {} else {}\n"
                         "  // warpwise-enable(split)\n"
                         "  if (c) {} else {}\n";
  DirectiveIndex J = DirectiveIndex::parse(NoKernel, All, All, Problems);
  CHECK(J.lookup("split", 1, 1, 3).disabled());
  CHECK_FALSE(J.lookup("fuse", 1, 1, 3).disabled());
  CHECK_FALSE(J.lookup("split", 1, 1, 5).disabled());
}

TEST_CASE("malformed directives are reported and ignored", "[steering]") {
  std::vector<DirectiveProblem> Problems;
  DirectiveIndex I = DirectiveIndex::parse(
      "// warpwise-force\n// warpwise-force(fuse=merged)\n"
      "// warpwise-disable-next-line(bogus)\n/* warpwise-enable */\n"
      "// warpwise-force(split)\n",
      All, {"fuse", "meld"}, Problems);
  REQUIRE(Problems.size() == 5);
  CHECK(Problems[0].Line == 1);
  CHECK(Problems[0].Message.find("name the transformation to force") !=
        std::string::npos);
  CHECK(Problems[1].Message.find("fuse has one form only") !=
        std::string::npos);
  CHECK(Problems[2].Message.find("unknown transformation 'bogus'") !=
        std::string::npos);
  CHECK(Problems[3].Line == 4);
  CHECK(Problems[3].Message.find("no warpwise-disable before it") !=
        std::string::npos);
  // Forcing a transformation the run leaves out has no effect: said.
  CHECK(Problems[4].Message.find("this run leaves split out") !=
        std::string::npos);
  CHECK_FALSE(I.lookup("fuse", 2, 2, 3).forced());
}

TEST_CASE("the configuration's kernel settings come after the directives",
          "[steering]") {
  std::map<std::string, KernelSettings> Kernels;
  Kernels["k"].Disable = {"split"};
  Kernels["k"].Force = {{"meld", "merged"}};
  SteeringRules Rules(&Kernels, "/p/.warpwise.yaml", All, All);
  const char *Text = "__global__ void k() {\n"
                     "  // warpwise-disable-next-line(meld)\n"
                     "  if (a) {} else {}\n";
  Steer Split = Rules.lookup("split", "k", "/p/a.cu", Text, 1, 1, 3);
  CHECK(Split.disabled());
  CHECK(Split.Source == "`.warpwise.yaml` (Kernels: k: Disable)");
  Steer Meld = Rules.lookup("meld", "k", "/p/a.cu", Text, 1, 1, 3);
  CHECK(Meld.disabled()); // The directive wins over the file's Force.
  Steer Other = Rules.lookup("meld", "other", "/p/a.cu", Text, 1, 1, 3);
  CHECK(Other.disabled()); // Still the directive on line 2.
  CHECK(Rules.lookup("fuse", "k", "/p/a.cu", Text, 1, 1, 3).K == Steer::Free);
}

TEST_CASE("a tool's error line is the error, not its context", "[support]") {
  CHECK(firstErrorLine("In function 'void f()':\n"
                       "x.cu:3:1: error: 'y' was not declared\n") ==
        "x.cu:3:1: error: 'y' was not declared");
  CHECK(firstErrorLine("In file included from a.h:1:\nptxas fatal   : bad\n") ==
        "ptxas fatal   : bad");
  CHECK(firstErrorLine("In function 'g':\nsomething odd\n") == "something odd");
  CHECK(firstErrorLine("") == "");
}

TEST_CASE("formatting touches the inserted code only", "[format]") {
  std::string Code = "int  keep ;\nvoid f() {\n  int x = 1;\n}\n";
  clang::tooling::Replacements Edits;
  llvm::cantFail(Edits.add(clang::tooling::Replacement(
      "f.cu", Code.find("int x"), 10, "int   x=1 ;int y =2;")));
  auto Formatted = formatEdits(Edits, Code, "f.cu", "LLVM");
  REQUIRE(static_cast<bool>(Formatted));
  auto Out = clang::tooling::applyAllReplacements(Code, *Formatted);
  REQUIRE(static_cast<bool>(Out));
  CHECK(*Out == "int  keep ;\nvoid f() {\n  int x = 1;\n  int y = 2;\n}\n");
  // Text inserted before a user's line, and a replacement followed by a
  // user's directive: their lines keep their bytes, long or oddly indented.
  std::string User =
      "void g(int aaaaaaaaaaaaaaaaaaaaaa, int bbbbbbbbbbbbbbbbbbbbbbbb, "
      "int cccccccccccccccccccc);\n"
      "void f() {\n  launch();\n  #ifdef X\n  y();\n  #endif\n}\n";
  clang::tooling::Replacements Around;
  llvm::cantFail(Around.add(
      clang::tooling::Replacement("f.cu", 0, 0, "int   inserted ;\n\n")));
  llvm::cantFail(Around.add(clang::tooling::Replacement(
      "f.cu", User.find("launch();"), 9, "{ a(); b(); }")));
  auto F2 = formatEdits(Around, User, "f.cu", "LLVM");
  REQUIRE(static_cast<bool>(F2));
  CHECK(*clang::tooling::applyAllReplacements(User, *F2) ==
        "int inserted;\n\n" + User.substr(0, User.find("launch();")) +
            "{\n    a();\n    b();\n  }" +
            User.substr(User.find("launch();") + 9));
  // "none" leaves it as generated; a bad style is an error.
  auto Raw = formatEdits(Edits, Code, "f.cu", "none");
  REQUIRE(static_cast<bool>(Raw));
  CHECK(*clang::tooling::applyAllReplacements(Code, *Raw) ==
        "int  keep ;\nvoid f() {\n  int   x=1 ;int y =2;\n}\n");
  CHECK(static_cast<bool>(checkStyle("{BasedOnStyle: Google}")) == false);
  llvm::Error Bad = checkStyle("{NoSuchKey: 1}");
  CHECK(static_cast<bool>(Bad));
  llvm::consumeError(std::move(Bad));
}
