#!/bin/bash
# The adaptive split when the heavy share at one launch site changes between
# launches (issue 25, item 3): tests/bench/adaptive_shift.cu walks the share
# 0% -> 100% -> 0% (random, then coherent heavy elements), LAUNCHES launches
# per point from one site, and prints each point's time per launch (all
# launches, and the second half, after the dispatch had time to adapt) and
# its output's checksum.
#   docs/bench/adaptive-shift.sh prepare        # here: the rewrites
#   docs/bench/adaptive-shift.sh run [ROUNDS]   # on the GPU machine
#     (LAUNCHES=96: that many launches per point, into shift-96.txt)
#   docs/bench/adaptive-shift.py OUT/shift.txt  # the table
# `run` builds the original, the adaptive split alone (`--transforms split`),
# its pairs pinned (-DWARPWISE_SPLIT_PATH=1: in place, =2: light), the forced
# compact split and the adaptive split under the measured dispatch, as the
# default set writes it (`--transforms split,dispatch`: `measured`), and runs each at 2^21 and 2^16 elements, ROUNDS rounds
# (default 4) interleaved; results go to $OUT/shift.txt (or /tmp).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/bench-out-shift
ww=$root/build/bin/warpwise
case "${1:-}" in
prepare)
  rm -rf "$out" && mkdir -p "$out/t/b" "$out/samples"
  cp "$root/samples/sample_util.h" "$out/samples/"
  cp "$root/tests/bench/adaptive_shift.cu" "$out/t/b/"
  cd "$out/t/b"
  "$ww" rewrite adaptive_shift.cu --transforms split -o shift_adaptive.cu 2> adaptive.remarks
  grep -q "split launch, adaptive form" shift_adaptive.cu || { echo "no adaptive split"; cat adaptive.remarks; exit 1; }
  "$ww" rewrite adaptive_shift.cu --transforms split --split-form compact -o shift_compact.cu 2> compact.remarks
  "$ww" rewrite adaptive_shift.cu --transforms split,dispatch -o shift_measured.cu 2> measured.remarks
  grep -q "split launch, adaptive form, measured" shift_measured.cu || { echo "no measured adaptive split"; cat measured.remarks; exit 1; } ;;
run)
  rounds=${2:-4}
  # LAUNCHES per point (default 24) and where the results go.
  launches=${LAUNCHES:-24}
  file=shift.txt
  [ "$launches" = 24 ] || file=shift-$launches.txt
  o=${OUT:-/tmp}
  cd "$out/t/b"
  nvcc=/usr/local/cuda/bin/nvcc
  build() { timeout 300 $nvcc -O3 -arch=sm_90 "$@"; }
  # A second run (another LAUNCHES) reuses the builds: SKIP_BUILD=1.
  [ -n "${SKIP_BUILD:-}" ] || {
    build -o orig adaptive_shift.cu &
    build -o adaptive shift_adaptive.cu &
    build -DWARPWISE_SPLIT_PATH=1 -o inplace shift_adaptive.cu &
    build -DWARPWISE_SPLIT_PATH=2 -o light shift_adaptive.cu &
    build -o compact shift_compact.cu &
    build -o measured shift_measured.cu &
    wait
  }
  for r in $(seq 1 "$rounds"); do
    for n in 21 16; do
      for p in orig adaptive inplace light compact measured; do
        echo "== round $r n $n $p" >> "$o/$file"
        timeout 120 "./$p" "$n" "$launches" >> "$o/$file" 2>&1
        echo "exit $?" >> "$o/$file"
      done
    done
  done ;;
*) echo "usage: $0 prepare | run [ROUNDS]"; exit 2 ;;
esac
