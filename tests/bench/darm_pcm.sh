#!/usr/bin/env bash
# darm_pcm.sh - the DARM pcm kernel (github.com/charitha22/cgo22ae-darm-code,
# cfm_benchmarks/pcm/pcm.cu; public code, fetched, never committed): the
# original against warpwise's default rewrite and against the rewrite with
# --measured-dispatch, on a GPU. Issue 25 measured the default rewrite at
# 0.863x there.
#
#   darm_pcm.sh prepare PCM_CU DIR   here: the timing harness made from the
#                                    program (a loop of launches, a fixed
#                                    seed, a checksum), then warpwise's two
#                                    rewrites of it, into DIR
#   darm_pcm.sh run DIR [ROUNDS]     on the GPU machine: nvcc -O3 builds the
#                                    three, and runs them in interleaved
#                                    rounds; each prints its launches'
#                                    median, min and max (ms) and a checksum
#                                    of the sorted array
set -euo pipefail
mode=$1
case $mode in
prepare)
  src=$2 dir=$3
  here=$(cd "$(dirname "$0")/../.." && pwd)
  mkdir -p "$dir"
  # The harness: the program's own launch, repeated on fresh input, each
  # launch timed with events; the input from a fixed seed.
  sed -e 's/srand(time(NULL));/srand(1);/' \
      -e 's|^\tpcm<<<B, N>>>(dc);|\tcudaEvent_t ww_t0, ww_t1; cudaEventCreate(\&ww_t0); cudaEventCreate(\&ww_t1);\n\tfloat ww_ms[REPS];\n\tfor (int rep = 0; rep < REPS; ++rep) {\n\t\tcudaMemcpy(dc, a, sizeof(int)*B*N*S, cudaMemcpyHostToDevice);\n\t\tcudaEventRecord(ww_t0, 0);\n\t\tpcm<<<B, N>>>(dc);\n\t\tcudaEventRecord(ww_t1, 0);\n\t\tcudaEventSynchronize(ww_t1);\n\t\tcudaEventElapsedTime(\&ww_ms[rep], ww_t0, ww_t1);\n\t}\n\tstd::sort(ww_ms, ww_ms + REPS);\n\tprintf("time_ms %.4f %.4f %.4f (%d runs)\\n", ww_ms[REPS / 2], ww_ms[0], ww_ms[REPS - 1], REPS);|' \
      -e 's|^    cudaFree(dc);|\tunsigned long long ww_sum = 0; for (int i = 0; i < B*N*S; ++i) ww_sum = ww_sum * 31u + (unsigned)b[i];\n\tprintf("checksum sorted %llx\\n", ww_sum);\n    cudaFree(dc);|' \
      -e 's|^#include <stdio.h>|#include <stdio.h>\n#include <algorithm>\n#ifndef REPS\n#define REPS 41\n#endif|' \
      "$src" > "$dir/pcm.cu"
  grep -q 'ww_ms' "$dir/pcm.cu" || { echo "darm_pcm.sh: the launch was not found in $src"; exit 1; }
  "$here/build/bin/warpwise" rewrite "$dir/pcm.cu" --arch sm_90 -o "$dir/pcm.default.cu" 2> "$dir/default.log"
  "$here/build/bin/warpwise" rewrite "$dir/pcm.cu" --arch sm_90 --measured-dispatch -o "$dir/pcm.dispatch.cu" 2> "$dir/dispatch.log"
  tail -n 1 "$dir/default.log" "$dir/dispatch.log"
  ;;
run)
  dir=$2 rounds=${3:-3}
  nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
  arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  for v in pcm pcm.default pcm.dispatch; do
    timeout 300 "$nvcc" -O3 -arch="$arch" -I"$dir" -o "$dir/$v.bin" "$dir/$v.cu"
  done
  for v in pcm.dispatch; do
    for pin in 0 1; do
      timeout 300 "$nvcc" -O3 -arch="$arch" -I"$dir" -DWARPWISE_DISPATCH=$pin \
        -o "$dir/$v.pin$pin.bin" "$dir/$v.cu"
    done
  done
  for r in $(seq 1 "$rounds"); do
    for v in pcm pcm.default pcm.dispatch pcm.dispatch.pin0 pcm.dispatch.pin1; do
      printf 'round %s %-18s ' "$r" "$v"
      timeout 120 "$dir/$v.bin" | tr '\n' ' '
      echo
    done
  done
  ;;
*)
  echo "usage: darm_pcm.sh prepare PCM_CU DIR | run DIR [ROUNDS]" >&2
  exit 2
  ;;
esac
