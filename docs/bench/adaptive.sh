#!/bin/bash
# The adaptive split (issue #13) next to the original kernel, the forced
# compact split and each split pair pinned on (-DWARPWISE_SPLIT_PATH=1: the
# in-place pair, =2: the light pair), on
# the decision-mask sample and two variants of it:
#   dm      the sample as it is (WIDTH 32, ROUNDS 4), 2^22 elements
#   r64     a compute-bound heavy side (ROUNDS 64), 2^21 elements
#   w96     a register-heavy side (WIDTH 96: 127 registers), 2^21 elements
# and the LBM sample (2-D launch of the collide-stream kernel).
#   docs/bench/adaptive.sh prepare      # here: variants and their rewrites
#   docs/bench/adaptive.sh run [ROUNDS] # on the GPU machine (carry bench-out-adaptive)
# `run` prints one line per program and case: checksum and time_ms (median,
# min, max of 30 runs), interleaved over ROUNDS rounds (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/bench-out-adaptive
ww=$root/build/bin/warpwise
case "${1:-}" in
prepare)
  rm -rf "$out" && mkdir -p "$out" && cp "$root/samples/sample_util.h" "$out/"
  cp "$root/samples/decision_mask.cu" "$out/dm.cu"
  sed "s/^#define ROUNDS 4/#define ROUNDS 64/" "$root/samples/decision_mask.cu" > "$out/r64.cu"
  sed "s/^#define WIDTH 32/#define WIDTH 96/" "$root/samples/decision_mask.cu" > "$out/w96.cu"
  cp "$root/samples/lbm_d2q9.cu" "$out/lbm.cu"
  for v in dm r64 w96 lbm; do
    "$ww" rewrite "$out/$v.cu" --transforms split -o "$out/${v}_adaptive.cu" 2> "$out/$v.remarks"
    grep -q "split launch, adaptive form" "$out/${v}_adaptive.cu" || { echo "no adaptive split in $v"; cat "$out/$v.remarks"; exit 1; }
    if [ "$v" != lbm ]; then
      "$ww" rewrite "$out/$v.cu" --transforms split --split-form compact -o "$out/${v}_compact.cu" 2>> "$out/$v.remarks"
    fi
  done ;;
run)
  rounds=${2:-2}
  cd "$out"
  nvcc=/usr/local/cuda/bin/nvcc
  for v in dm r64 w96 lbm; do
    $nvcc -O3 -arch=sm_90 -Xptxas -v -o $v.orig $v.cu 2> $v.orig.ptxas &
    $nvcc -O3 -arch=sm_90 -Xptxas -v -o $v.adaptive ${v}_adaptive.cu 2> $v.adaptive.ptxas &
    $nvcc -O3 -arch=sm_90 -DWARPWISE_SPLIT_PATH=1 -o $v.inplace ${v}_adaptive.cu &
    $nvcc -O3 -arch=sm_90 -DWARPWISE_SPLIT_PATH=2 -o $v.light ${v}_adaptive.cu &
    [ -f ${v}_compact.cu ] && $nvcc -O3 -arch=sm_90 -o $v.compact ${v}_compact.cu &
  done
  wait
  grep -h -E "Compiling entry|Used" ./*.ptxas | paste - - | sed -E "s/ptxas info *: //g" | cut -c1-160
  one() { # program args...
    local p=$1; shift
    echo "$p [$*] $(./$p "$@" --bench 30 2>&1 | grep -E 'checksum|time_ms|MISMATCH|error|kernel ' | tr '\n' ' ')"
  }
  for r in $(seq 1 "$rounds"); do
    echo "== round $r"
    for c in "0 0" "1 0" "2 0" "5 0" "10 0" "15 0" "25 0" "50 0" "75 0" "100 0" "0 1" "10 1" "25 1" "50 1" "75 1" "100 1"; do
      # shellcheck disable=SC2086
      for p in dm.orig dm.adaptive dm.compact dm.inplace dm.light; do one $p 22 $c; done
    done
    for c in "0 0" "1 0" "5 0" "10 0" "25 0" "50 0" "100 0" "10 1" "50 1" "100 1"; do
      # shellcheck disable=SC2086
      for p in w96.orig w96.adaptive w96.compact w96.inplace w96.light r64.orig r64.adaptive r64.compact r64.inplace r64.light; do one $p 21 $c; done
    done
    for n in 128 256; do
      for p in lbm.orig lbm.adaptive lbm.inplace lbm.light; do one $p $n 50; done
    done
  done ;;
*) echo "usage: $0 prepare|run [ROUNDS]"; exit 2 ;;
esac
