// Which unedited headers lie on an include path from the main file to an
// edited one: what nvcc's measurements mirror and --out-dir copies.
#include "warpwise/Feedback.h"

#include <catch2/catch.hpp>

using namespace warpwise;

TEST_CASE("headers through which the main file includes an edited one",
          "[feedback]") {
  // main.cu -> mid.cuh -> k.cuh; main.cu -> util.h; mid.cuh -> cfg.h
  IncludeGraph G = {{"/p/mid.cuh", {"/p/main.cu"}},
                    {"/p/k.cuh", {"/p/mid.cuh"}},
                    {"/p/util.h", {"/p/main.cu"}},
                    {"/p/cfg.h", {"/p/mid.cuh"}}};
  CHECK(headersIncludingEdited(G, "/p/main.cu", {"/p/k.cuh"}) ==
        std::vector<std::string>{"/p/mid.cuh"});
  // Included directly: nothing between.
  CHECK(headersIncludingEdited(G, "/p/main.cu", {"/p/mid.cuh"}).empty());
  // An edited header is mirrored as edited, not as an unedited includer.
  CHECK(headersIncludingEdited(G, "/p/main.cu", {"/p/k.cuh", "/p/mid.cuh"})
            .empty());
  CHECK(headersIncludingEdited(G, "/p/main.cu", {}).empty());
}

TEST_CASE("every include path counts, and cycles end", "[feedback]") {
  // main.cu -> a.h -> k.cuh and main.cu -> b.h -> c.h -> k.cuh; c.h and
  // b.h include each other (include guards make that legal).
  IncludeGraph G = {{"/p/a.h", {"/p/main.cu"}},
                    {"/p/b.h", {"/p/main.cu", "/p/c.h"}},
                    {"/p/c.h", {"/p/b.h"}},
                    {"/p/k.cuh", {"/p/a.h", "/p/c.h"}}};
  CHECK(headersIncludingEdited(G, "/p/main.cu", {"/p/k.cuh"}) ==
        std::vector<std::string>{"/p/a.h", "/p/b.h", "/p/c.h"});
}
