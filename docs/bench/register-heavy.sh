#!/bin/bash
# Two hand-made decision-mask variants of docs/benchmarks.md, as warpwise
# rewrites them with a forced split form:
#   - the compute-bound heavy side (ROUNDS 64), compact form;
#   - the register-heavy check (WIDTH 96, ROUNDS 4 and 16), compact and
#     efficient forms.
#   docs/bench/register-heavy.sh prepare   # here: variants + forced rewrites
#   docs/bench/register-heavy.sh run       # on the GPU machine (carry bench-out-heavy)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/bench-out-heavy
case "${1:-}" in
prepare)
  rm -rf "$out" && mkdir -p "$out" && cp "$root/samples/sample_util.h" "$out/"
  for r in 4 16; do
    v=w96_r$r
    sed "s/^#define WIDTH 32/#define WIDTH 96/; s/^#define ROUNDS 4/#define ROUNDS $r/" \
      "$root/samples/decision_mask.cu" > "$out/dm_$v.cu"
    for f in compact efficient; do
      "$root/build/bin/warpwise" rewrite "$out/dm_$v.cu" --transforms split \
        --split-form $f -o "$out/dm_${v}_$f.cu"
    done
  done
  sed "s/^#define ROUNDS 4/#define ROUNDS 64/" "$root/samples/decision_mask.cu" > "$out/r64.cu"
  "$root/build/bin/warpwise" rewrite "$out/r64.cu" --transforms split \
    --split-form compact -o "$out/r64_compact.cu" ;;
run)
  cd "$out"
  for f in dm_*.cu r64*.cu; do /usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -o "${f%.cu}.bin" "$f" & done; wait
  for round in 1 2 3; do
    for p in 0 1 5 10 25 50; do
      for v in r64 r64_compact; do
        echo "R$round random $p% $v $(./$v.bin 22 $p 0 --bench 30 | grep -E 'checksum|time_ms|MISMATCH|error' | tr '\n' ' ')"
      done
    done
  done
  for round in 1 2; do
    for v in w96_r4 w96_r16; do
      for cfg in "0 0" "1 0" "5 0" "25 0" "50 0" "100 0" "10 1" "50 1" "100 1"; do
        for form in "" _compact _efficient; do
          # shellcheck disable=SC2086
          echo "R$round $v [$cfg] ${form:-_original} $(./dm_${v}${form}.bin 21 $cfg --bench 30 | grep -E 'checksum|time_ms|MISMATCH|error' | tr '\n' ' ')"
        done
      done
    done
  done ;;
*) echo "usage: $0 prepare|run"; exit 2 ;;
esac
