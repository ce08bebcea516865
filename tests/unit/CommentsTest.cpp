//===- CommentsTest.cpp - The user's comments in rewritten code -----------===//
#include "transform/Comments.h"
#include "warpwise/Format.h"

#include "clang/Tooling/Core/Replacement.h"
#include <catch2/catch.hpp>

using namespace warpwise;

namespace {

/// \p Code with \p Old (at its first place) replaced by \p New, formatted.
std::string formatted(const std::string &Code, const std::string &Old,
                      const std::string &New) {
  clang::tooling::Replacements Edits;
  llvm::cantFail(Edits.add(
      clang::tooling::Replacement("f.cu", Code.find(Old), Old.size(), New)));
  auto F = formatEdits(Edits, Code, "f.cu", "LLVM");
  REQUIRE(static_cast<bool>(F));
  auto Out = clang::tooling::applyAllReplacements(Code, *F);
  REQUIRE(static_cast<bool>(Out));
  return *Out;
}

} // namespace

TEST_CASE("comments are tokens, not text", "[comments]") {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.LineComment = true;
  std::string Code = "s = \"// no\"; /* a\n b */ x = 1; //c\n";
  std::vector<SourceComment> Cs = commentsIn(Code, 0, Code.size(), LO);
  REQUIRE(Cs.size() == 2);
  CHECK(Cs[0].Text == "/* a\n b */");
  CHECK(Cs[1].Text == "//c");
  CHECK(Code.substr(Cs[1].Begin, Cs[1].End - Cs[1].Begin) == "//c");
  CHECK(normalizedComment("/* a\n     b */") == "/* a b */");
  CHECK(missingFrom("y = 2; /* a\n   b */\n", Cs, LO).front().Text == "//c");
  CHECK(labelledComment("ww_cond_3", "//odd", "  ") ==
        "  // ww_cond_3: odd\n");
  CHECK(labelledComment("!ww_cond_3", "/* even */", "  ") ==
        "  // !ww_cond_3:\n  /* even */\n");
}

TEST_CASE("formatting leaves the user's comments as written", "[format]") {
  std::string Code = "void f(int x) {\n"
                     "  //w\n"
                     "  x = 1; // a user's comment that is much longer than "
                     "the eighty columns of the style\n"
                     "}\n";
  std::string Decision =
      "  // warpwise WW4001 fuse.f.1: fused the two sides of a divergent "
      "if-else; forced: profitability was not checked\n";
  // The decision's comment is broken at the column limit; its last words
  // are not joined to the user's comment below it, which keeps its bytes
  // (no space is added after its `//`, the long one is not broken).
  std::string Out =
      formatted(Code, "  //w\n", Decision + "  //w\n  x  =  2 ;\n");
  CHECK(Out == "void f(int x) {\n"
               "  // warpwise WW4001 fuse.f.1: fused the two sides of a "
               "divergent if-else;\n"
               "  // forced: profitability was not checked\n"
               "  //w\n"
               "  x = 2;\n"
               "  x = 1; // a user's comment that is much longer than the "
               "eighty columns of the style\n"
               "}\n");
  // Nor is the end of a paragraph of warpwise's joined to one that reads
  // like a sentence (clang-format reflows with two changes: the line break
  // and the next line's `//`; keeping one of them would corrupt the code).
  std::string Sentence = Code;
  Sentence.replace(Sentence.find("//w"), 3, "// lanes that sort up");
  Out = formatted(Sentence, "  // lanes", Decision + "  // lanes");
  CHECK(Out.find("  // forced: profitability was not checked\n"
                 "  // lanes that sort up\n") != std::string::npos);
  // A comment warpwise moved with the label of its side is the user's too.
  std::string Long = "  // ww_cond_2: a user's comment that is much longer "
                     "than the eighty columns of the style\n";
  Out = formatted(Code, "  //w\n", Long);
  CHECK(Out.find(Long) != std::string::npos);
  // Comments of warpwise's own are still formatted.
  Out = formatted(Code, "  //w\n", "  //not the user's\n");
  CHECK(Out.find("  // not the user's\n") != std::string::npos);
}
