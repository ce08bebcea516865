# warpwise.mk - warpwise as a pre-build step in a Makefile (GNU Make).
#
#   NVCCFLAGS := -arch=sm_80 -Iinclude -DTILE=16 -maxrregcount=32
#   include /path/to/warpwise/cmake/warpwise.mk    # or <prefix>/share/warpwise/warpwise.mk
#
#   app: $(WARPWISE_OUT)/main.o $(WARPWISE_OUT)/kernels.o
#   	nvcc -arch=sm_80 -o $@ $^
#   $(WARPWISE_OUT)/%.o: $(WARPWISE_OUT)/%.cu
#   	nvcc $(WARPWISE_INCLUDES) $(NVCCFLAGS) -I$(dir $*) -c -o $@ $<
#
# The pattern rule rewrites <path>.cu into $(WARPWISE_OUT)/<path>.cu, with
# warpwise --out-dir $(WARPWISE_OUT) --in-root . : the tree below the
# current directory is mirrored there, and a project header whose kernels
# the rewrite changes is written to $(WARPWISE_OUT)/<its path> (nothing is
# ever written into the source tree). The compile of a rewritten file finds
# a rewritten neighbour first (its own directory); for the headers found
# through -I, WARPWISE_INCLUDES puts each relative -I directory's mirror
# before it (-I$(WARPWISE_OUT)/include -Iinclude); -I$(dir $*) above finds
# the original's unchanged neighbours. The copies carry #line directives
# (--line-directives), so nvcc's errors and warnings name your files and
# lines.
#
# The rule reruns when the source, a header the rewrite read (from
# warpwise's --depfile, $(WARPWISE_OUT)/<path>.cu.d) or the warpwise binary
# changed. warpwise's remarks and errors go to the console (a missing or
# broken CUDA toolkit is an error, which stops the build); its JSON report to
# $(WARPWISE_OUT)/<path>.cu.json. The original's directory is passed to the
# parse as -I (`#include "x.h"` beside it still resolves).
#
# Set the variables before the include (the rule's prerequisites are read
# then); any of them may also come from the command line.
#   WARPWISE          the binary (default: the warpwise beside this file's
#                     install prefix or source tree's build/, else PATH)
#   WARPWISE_ARCH     --arch (default: none, and warpwise measures for the
#                     most restrictive architecture the flags name with
#                     -arch, -gencode or --generate-code, else sm_90)
#   WARPWISE_OPTIONS  more warpwise options, e.g. --transforms fuse,meld
#   WARPWISE_FLAGS    the compiler flags for warpwise's parse and nvcc runs
#                     (after --; default: $(CPPFLAGS) $(NVCCFLAGS)), so that
#                     -maxrregcount, --use_fast_math and the architectures
#                     reach warpwise's measurements
#   WARPWISE_OUT      where the rewritten files go (default warpwise-out)
# All sources share $(WARPWISE_OUT): a header that two sources' rewrites
# change is written by each of them, so rewrite such sources in one
# warpwise run (or give each its own WARPWISE_OUT) if they may disagree.

WARPWISE_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
WARPWISE ?= $(firstword $(wildcard $(WARPWISE_MK_DIR)../../bin/warpwise \
                                   $(WARPWISE_MK_DIR)../build/bin/warpwise) warpwise)
WARPWISE_ARCH    ?=
WARPWISE_OPTIONS ?=
WARPWISE_FLAGS   ?= $(CPPFLAGS) $(NVCCFLAGS)
WARPWISE_OUT     ?= warpwise-out

# For the compile of the rewritten files: each relative -I directory of
# WARPWISE_FLAGS, its mirror in $(WARPWISE_OUT) first.
WARPWISE_INCLUDES = $(foreach d,$(patsubst -I%,%,$(filter -I%,$(WARPWISE_FLAGS))),\
  $(if $(filter /% ../%,$(d)),,-I$(WARPWISE_OUT)/$(d:./%=%)) -I$(d))

# The binary as a prerequisite (its path, also when it is found on PATH).
WARPWISE_BIN := $(firstword $(wildcard $(WARPWISE)) $(shell command -v $(WARPWISE) 2>/dev/null))

$(WARPWISE_OUT)/%.cu: %.cu $(WARPWISE_BIN)
	@mkdir -p $(@D)
	$(WARPWISE) rewrite $< $(if $(WARPWISE_ARCH),--arch $(WARPWISE_ARCH)) \
	  --out-dir $(WARPWISE_OUT) --in-root . --line-directives --report $@.json \
	  --depfile $@.d $(WARPWISE_OPTIONS) -- -I$(<D) $(WARPWISE_FLAGS)
	@sed -n -e 's/ \\$$//' -e 's/^  \(.*\)/\1:/p' $@.d > $@.d.tmp && cat $@.d.tmp >> $@.d && rm -f $@.d.tmp

# Rewritten files are kept, not removed as intermediates of a chain of rules.
.PRECIOUS: $(WARPWISE_OUT)/%.cu

# The headers each rewrite read, from the depfiles of earlier runs (each
# with an empty rule, as gcc -MP writes, so that a header deleted since is no
# error). Their rules do not change the makefile's default goal.
WARPWISE_GOAL := $(.DEFAULT_GOAL)
-include $(shell find $(WARPWISE_OUT) -name '*.cu.d' 2>/dev/null)
.DEFAULT_GOAL := $(WARPWISE_GOAL)
