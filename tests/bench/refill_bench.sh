#!/usr/bin/env bash
# refill_bench.sh [ARCH [ROUNDS]] - the work refill's benchmark (issue #30),
# on the GPU present: refill_kernels.cu as written and as warpwise rewrote
# it (refill/refill_kernels_rewritten.cu with its warpwise_runtime.cuh, both
# written by warpwise and committed, so that only nvcc is needed here),
# built with nvcc -O3 and timed by refill_bench.cu: one line per case with
# the median times, the speedup and whether the outputs are identical.
#
# With WARPWISE=<path to the warpwise binary> the rewrite is made afresh
# (forced, refill only) instead of taken from refill/.
#   tests/bench/refill_bench.sh sm_90
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
arch=${1:-sm_90}
rounds=${2:-21}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gen=$here/refill
if [ -n "${WARPWISE:-}" ]; then
  gen=$out/gen
  mkdir -p "$gen"
  "$WARPWISE" rewrite "$here/refill_kernels.cu" -o "$gen/refill_kernels_rewritten.cu" \
    --force-transforms --transforms refill --arch "$arch"
fi
nvcc=${NVCC:-nvcc}
"$nvcc" -O3 -arch="$arch" -DBENCH_NS=orig -c "$here/refill_kernels.cu" -o "$out/orig.o"
"$nvcc" -O3 -arch="$arch" -DBENCH_NS=refill -I"$gen" -c "$gen/refill_kernels_rewritten.cu" -o "$out/refill.o"
"$nvcc" -O3 -arch="$arch" "$here/refill_bench.cu" "$out/orig.o" "$out/refill.o" -o "$out/refill_bench"
"$out/refill_bench" "$rounds"
