// What CompileFeedback compiles and keys its caches by: the comments
// warpwise writes reduced to `// warpwise`, so that a decision applied with
// its comment is answered by its candidate's measurement (the mark in the
// comment's place), and nothing else of the text changes.
#include "warpwise/Feedback.h"

#include <catch2/catch.hpp>

using namespace warpwise;

TEST_CASE("a decision's comment and its mark compile as the same text",
          "[feedback]") {
  std::string Candidate = "__global__ void k(int *a) {\n"
                          "  {\n"
                          "    // warpwise: @decision@\n"
                          "    a[0] = 1;\n"
                          "  }\n"
                          "}\n";
  std::string Applied = "__global__ void k(int *a) {\n"
                        "  {\n"
                        "    // warpwise WW4001 meld.k.1: melded the two "
                        "sides; registers 32 -> 30\n"
                        "    a[0] = 1;\n"
                        "  }\n"
                        "}\n";
  std::string Blank = withDecisionCommentsBlank(Candidate);
  CHECK(Blank == withDecisionCommentsBlank(Applied));
  CHECK(Blank == "__global__ void k(int *a) {\n"
                 "  {\n"
                 "    // warpwise\n"
                 "    a[0] = 1;\n"
                 "  }\n"
                 "}\n");
  // The first line, and a file without a final newline.
  CHECK(withDecisionCommentsBlank("// warpwise WW4003 split.k.2: x") ==
        "// warpwise");
}

TEST_CASE("text that only looks like a decision's comment is kept",
          "[feedback]") {
  // Inside a string literal, a block comment, after code on its line, with
  // a backslash that joins the next line to it (the line would stop being
  // a comment), a user's own comment.
  for (const char *Text :
       {"const char *s = \"\\\n// warpwise WW4001 a.k.1: x\";\n",
        "/*\n// warpwise WW4001 a.k.1: x\n*/\n",
        "int x; // warpwise WW4001 a.k.1: x\n",
        "// warpwise WW4001 a.k.1: x \\\nint y;\n",
        "// warpwise WW4001 a.k.1: x ??/\nint y;\n",
        "// warpwise: keep this kernel\n", "// warpwise WW40 a.k.1: x\n",
        "const char *r = R\"(\n// warpwise WW4001 a.k.1: x\n)\";\n"})
    CHECK(withDecisionCommentsBlank(Text) == Text);
}
