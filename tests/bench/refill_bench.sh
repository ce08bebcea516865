#!/usr/bin/env bash
# refill_bench.sh [ARCH [ROUNDS]] - the work refill's benchmark (issue #30),
# on the GPU present: refill_kernels.cu as written and as warpwise rewrote
# it (refill/refill_kernels_rewritten.cu with its warpwise_runtime.cuh, both
# written by warpwise and committed, so that only nvcc is needed here),
# built with nvcc -O3 and timed by refill_bench.cu: one line per case with
# the median times, the speedup and whether the outputs are identical.
#
# With WARPWISE=<path to the warpwise binary> the rewrite is made afresh
# instead of taken from refill/: forced, refill only, or with the warpwise
# flags in REWRITE_FLAGS (e.g. "" for the default set, whose measured
# dispatch times the refill against the original at each launch).
# REWRITTEN_NVCC_FLAGS is added to the rewritten file's compile (e.g.
# -DWARPWISE_DISPATCH_LOG). With SEPARATE=1 each case runs in its own
# process (a measured dispatch then starts each case afresh).
#   tests/bench/refill_bench.sh sm_90
#   WARPWISE=build/bin/warpwise REWRITE_FLAGS= SEPARATE=1 tests/bench/refill_bench.sh sm_90
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
arch=${1:-sm_90}
rounds=${2:-21}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gen=${GEN:-$here/refill} # GEN: a directory holding another rewrite
if [ -n "${WARPWISE:-}" ]; then
  gen=$out/gen
  mkdir -p "$gen"
  # shellcheck disable=SC2086 # REWRITE_FLAGS is a list of flags.
  "$WARPWISE" rewrite "$here/refill_kernels.cu" -o "$gen/refill_kernels_rewritten.cu" \
    ${REWRITE_FLAGS---force-transforms --transforms refill} --arch "$arch"
fi
nvcc=${NVCC:-nvcc}
"$nvcc" -O3 -arch="$arch" -DBENCH_NS=orig -c "$here/refill_kernels.cu" -o "$out/orig.o"
# shellcheck disable=SC2086 # REWRITTEN_NVCC_FLAGS is a list of flags.
"$nvcc" -O3 -arch="$arch" -DBENCH_NS=refill -I"$gen" ${REWRITTEN_NVCC_FLAGS:-} \
  -c "$gen/refill_kernels_rewritten.cu" -o "$out/refill.o"
"$nvcc" -O3 -arch="$arch" "$here/refill_bench.cu" "$out/orig.o" "$out/refill.o" -o "$out/refill_bench"
if [ "${SEPARATE:-0}" = 1 ]; then
  status=0
  for c in "dec2zero random" "dec2zero uniform" "escape-time boundary" \
           "escape-time seahorse zoom" "escape-time uniform" \
           "ray-march random" "ray-march uniform"; do
    "$out/refill_bench" "$rounds" "$c" || status=1
  done
  exit $status
fi
"$out/refill_bench" "$rounds"
