# warpwise.mk - warpwise as a pre-build step in a Makefile (GNU Make).
#
#   WARPWISE_ARCH  := sm_90
#   WARPWISE_FLAGS := -Iinclude -DTILE=16      # what the compiler gets
#   include /path/to/warpwise/cmake/warpwise.mk    # or <prefix>/share/warpwise/warpwise.mk
#
#   app: $(WARPWISE_OUT)/main.cu $(WARPWISE_OUT)/kernels.cu
#   	nvcc -arch=sm_90 -Iinclude -I. -DTILE=16 -o $@ $^
#
# The pattern rule rewrites <path>.cu into $(WARPWISE_OUT)/<path>.cu. It
# reruns when the source, a header the rewrite read (from warpwise's
# --depfile, $(WARPWISE_OUT)/<path>.cu.d) or the warpwise binary changed.
# warpwise's remarks and errors go to the console; its JSON report to
# $(WARPWISE_OUT)/<path>.cu.json. The original's directory is passed to the
# parse as -I (`#include "x.h"` beside it still resolves); the compile of the
# rewritten file needs it as well (-I. above).
#
# Set the variables before the include (the rule's prerequisites are read
# then); any of them may also come from the command line.
#   WARPWISE          the binary (default: the warpwise beside this file's
#                     install prefix or source tree's build/, else PATH)
#   WARPWISE_ARCH     --arch (default sm_90)
#   WARPWISE_OPTIONS  more warpwise options, e.g. --transforms fuse,meld
#   WARPWISE_FLAGS    compiler flags for warpwise's parse (after --)
#   WARPWISE_OUT      where the rewritten files go (default warpwise-out)

WARPWISE_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
WARPWISE ?= $(firstword $(wildcard $(WARPWISE_MK_DIR)../../bin/warpwise \
                                   $(WARPWISE_MK_DIR)../build/bin/warpwise) warpwise)
WARPWISE_ARCH    ?= sm_90
WARPWISE_OPTIONS ?=
WARPWISE_FLAGS   ?=
WARPWISE_OUT     ?= warpwise-out

# The binary as a prerequisite (its path, also when it is found on PATH).
WARPWISE_BIN := $(firstword $(wildcard $(WARPWISE)) $(shell command -v $(WARPWISE) 2>/dev/null))

$(WARPWISE_OUT)/%.cu: %.cu $(WARPWISE_BIN)
	@mkdir -p $(@D)
	$(WARPWISE) rewrite $< --arch $(WARPWISE_ARCH) -o $@ --report $@.json \
	  --depfile $@.d $(WARPWISE_OPTIONS) -- -I$(<D) $(WARPWISE_FLAGS)

# Rewritten files are kept, not removed as intermediates of a chain of rules.
.PRECIOUS: $(WARPWISE_OUT)/%.cu

# The headers each rewrite read, from the depfiles of earlier runs. Their
# rules do not change the makefile's default goal.
WARPWISE_GOAL := $(.DEFAULT_GOAL)
-include $(shell find $(WARPWISE_OUT) -name '*.cu.d' 2>/dev/null)
.DEFAULT_GOAL := $(WARPWISE_GOAL)
