#!/usr/bin/env bash
# issue25_losses.sh - two of the losses issue 25 reported for warpwise's
# default rewrite, rebuilt as programs of our own (tests/bench/issue25/),
# against warpwise's rewrites of them, on a GPU:
#
#   poly_table.cu    every thread computes a block-uniform table of 40
#                    polynomial coefficients (sinf per term) before using it
#                    on its own element; internal variable sharing (0.89x in
#                    issue 25)
#   tmpl_bitonic.cu  a block-bitonic sort of float keys, templated on the
#                    block size, launched at 256, 512 and 1024 threads;
#                    partner-guard reallocation plus fusion (1.62x at 256
#                    and 512, 0.60x at 1024 in issue 25)
#   two_callees.cu   a loop whose divergent arms call two different
#                    __device__ chains (`v = chain_a(x); x = NEXT(v);`);
#                    fusion through the calls (a gain issue 25 reported
#                    left untaken: 1.37-1.51x by hand); its case
#                    two_callees/hand runs the program's hand-fused kernel
#
#   issue25_losses.sh prepare DIR     here: copies the two programs into DIR
#                                     and writes warpwise's rewrites of each:
#                                       X.model.cu     the model's decisions
#                                                      alone (--transforms
#                                                      meld,fuse,realloc,
#                                                      fission,split,share)
#                                       X.dispatch.cu  --measured-dispatch
#                                     with their logs (X.model.log,
#                                     X.dispatch.log) and the runtime header
#                                     warpwise writes beside them; then
#                                     compiles every variant with nvcc for
#                                     each of $CHECK_ARCHS (default sm_90;
#                                     compile-<arch>.log, ptxas -v included).
#                                     warpwise is $WARPWISE (default
#                                     build/bin/warpwise of this repository)
#   issue25_losses.sh run DIR [ROUNDS]
#                                     on the GPU machine (needs nvcc and
#                                     nvidia-smi only): nvcc -O3 for the
#                                     GPU's arch ($ARCH overrides) builds
#                                     every variant, the dispatch variant
#                                     also pinned (-DWARPWISE_DISPATCH=0 and
#                                     =1), then runs ROUNDS (default 3)
#                                     interleaved rounds, one line per run:
#                                       round R VARIANT CASE time_ms MEDIAN
#                                         MIN MAX (N runs) checksum out HEX
#                                         checksum bench HEX check ok|FAIL
#                                     and a summary: per case and variant the
#                                     median of the rounds' medians, its
#                                     ratio to the original's (>1: faster)
#                                     and whether every checksum matched
#                                     the original's.
#
# Cases: poly_table at 2^25 elements; tmpl_bitonic at 2^24 keys with blocks
# of 256, 512 and 1024 (each block size a case of its own); two_callees at
# 2^22 elements, 64 steps, its kernel, (two_callees/hand) the hand-fused
# one and (two_callees/coherent) its kernel with one side per warp
# ($CASES, "PROG:ARG ...", picks some). $REPS (default
# 51) timed launches per run, after 10 untimed ones. The measured
# dispatch's probes mostly fall in those; its decision, read from events
# without waiting, can land a launch later, which shows in the max of a
# dispatch run, not its median. run writes DIR/build-ARCH.log (ptxas -v)
# and DIR/results-ARCH.txt (the round lines). On an H100 (2026-11-28) all
# of run with 3 rounds took 116 s, builds included.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
progs=(poly_table tmpl_bitonic two_callees)
# The variants, in the order each round runs them (rotated by one a round).
variants=(orig model dispatch dispatch.pin0 dispatch.pin1)

# The source a variant is built from and the extra nvcc flags it gets.
variant_src() { # PROG VARIANT
  case $2 in
  orig) echo "$1.cu" ;;
  model) echo "$1.model.cu" ;;
  dispatch*) echo "$1.dispatch.cu" ;;
  esac
}
variant_flags() { # VARIANT
  case $1 in
  dispatch.pin0) echo "-DWARPWISE_DISPATCH=0" ;;
  dispatch.pin1) echo "-DWARPWISE_DISPATCH=1" ;;
  *) echo "" ;;
  esac
}

# Builds every variant of every program into DIR/bin-ARCH (at most JOBS
# nvcc at a time); the log gets each build's output (ptxas -v) and status.
build_all() { # DIR ARCH JOBS LOG
  local dir=$1 arch=$2 jobs=$3 log=$4
  local nvcc=${NVCC:-}
  if [ -z "$nvcc" ]; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; else nvcc=nvcc; fi
  fi
  local out=$dir/bin-$arch
  mkdir -p "$out" "$out/logs"
  : > "$log"
  local p v running=0
  for p in "${progs[@]}"; do
    for v in "${variants[@]}"; do
      (
        src=$(variant_src "$p" "$v")
        # shellcheck disable=SC2046 # the flags are one word or none
        if timeout 300 "$nvcc" -O3 -arch="$arch" -Xptxas -v -I"$dir" \
          $(variant_flags "$v") -o "$out/$p.$v" "$dir/$src" \
          > "$out/logs/$p.$v.log" 2>&1; then
          echo "built $p.$v" >> "$out/logs/$p.$v.log"
        else
          echo "FAILED $p.$v (status $?)" >> "$out/logs/$p.$v.log"
        fi
      ) &
      running=$((running + 1))
      if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
      fi
    done
  done
  wait || true
  local failed=0
  for p in "${progs[@]}"; do
    for v in "${variants[@]}"; do
      {
        echo "== $p.$v ($nvcc -O3 -arch=$arch $(variant_flags "$v") $(variant_src "$p" "$v"))"
        grep -E 'Compiling entry|registers|stack frame|error|warning|^built|^FAILED' \
          "$out/logs/$p.$v.log" || true
      } >> "$log"
      grep -q '^built' "$out/logs/$p.$v.log" || failed=$((failed + 1))
    done
  done
  local total=$((${#progs[@]} * ${#variants[@]}))
  echo "nvcc $arch: $((total - failed)) of $total variants built ($log)"
  return "$failed"
}

mode=${1:-}
case $mode in
prepare)
  [ $# -eq 2 ] || { echo "usage: issue25_losses.sh prepare DIR" >&2; exit 2; }
  dir=$2
  ww=${WARPWISE:-$here/build/bin/warpwise}
  [ -x "$ww" ] || { echo "issue25_losses.sh: no warpwise at $ww (set WARPWISE)" >&2; exit 1; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  for p in "${progs[@]}"; do
    cp "$here/tests/bench/issue25/$p.cu" "$dir/$p.cu"
  done
  {
    echo "prepared $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "warpwise $ww: $("$ww" --version 2>&1 | head -1)"
    echo "repository: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
    (cd "$dir" && sha256sum "${progs[@]/%/.cu}")
  } > "$dir/prepared.txt"
  status=0
  for p in "${progs[@]}"; do
    # Run in DIR so that the logs name the files as DIR holds them, and the
    # runtime header goes beside the outputs.
    (cd "$dir" && timeout 900 "$ww" rewrite "$p.cu" --arch sm_90 \
      --transforms meld,fuse,realloc,fission,split,share \
      -o "$p.model.cu") > "$dir/$p.model.log" 2>&1 || status=1
    (cd "$dir" && timeout 900 "$ww" rewrite "$p.cu" --arch sm_90 \
      --measured-dispatch -o "$p.dispatch.cu") > "$dir/$p.dispatch.log" 2>&1 || status=1
    for v in model dispatch; do
      if [ ! -s "$dir/$p.$v.cu" ]; then
        echo "issue25_losses.sh: warpwise wrote no $p.$v.cu (see $dir/$p.$v.log)" >&2
        status=1
      fi
      echo "$p.$v: $(tail -n 1 "$dir/$p.$v.log")"
    done
  done
  # Every header a rewrite includes by a quoted name must be in DIR.
  for f in "$dir"/*.cu; do
    while read -r h; do
      if [ ! -f "$dir/$h" ]; then
        echo "issue25_losses.sh: $(basename "$f") includes \"$h\", which is not in $dir" >&2
        status=1
      fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
  done
  [ "$status" -eq 0 ] || exit "$status"
  # Prove that DIR compiles: every variant, for each architecture asked.
  for arch in ${CHECK_ARCHS:-sm_90}; do
    build_all "$dir" "$arch" "${JOBS:-2}" "$dir/compile-$arch.log" || status=1
    rm -rf "$dir/bin-$arch" # the binaries are made again on the GPU machine
  done
  exit "$status"
  ;;
run)
  [ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: issue25_losses.sh run DIR [ROUNDS]" >&2; exit 2; }
  dir=$(cd "$2" && pwd)
  rounds=${3:-3}
  reps=${REPS:-51}
  arch=${ARCH:-sm_$(timeout 60 nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')}
  echo "gpu: $(timeout 60 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); arch $arch; $rounds rounds of $reps timed launches"
  build_all "$dir" "$arch" "${JOBS:-$(nproc)}" "$dir/build-$arch.log" \
    || echo "issue25_losses.sh: some variants did not build; their runs are skipped"
  bin=$dir/bin-$arch
  cases=${CASES:-"poly_table:25 tmpl_bitonic:256 tmpl_bitonic:512 tmpl_bitonic:1024 two_callees:orig two_callees:hand two_callees:coherent"}
  results=$dir/results-$arch.txt
  : > "$results"
  nv=${#variants[@]}
  for r in $(seq 1 "$rounds"); do
    for c in $cases; do
      p=${c%%:*} arg=${c#*:}
      case $p in
      poly_table) args="$((1 << arg))" name="poly_table/n=2^$arg" ;;
      tmpl_bitonic) args="24 $arg" name="tmpl_bitonic/B=$arg" ;;
      two_callees)
        args="$((1 << 22))" name="two_callees/$arg"
        case $arg in hand | coherent) args="$args --$arg" ;; esac ;;
      esac
      for i in $(seq 0 $((nv - 1))); do
        v=${variants[$(((i + r - 1) % nv))]}
        if [ ! -x "$bin/$p.$v" ]; then
          line="round $r $v $name not built"
        else
          # shellcheck disable=SC2086
          out=$(timeout 120 "$bin/$p.$v" $args --bench "$reps" 2>&1) || true
          t=$(echo "$out" | grep -m1 '^time_ms' || echo "time_ms none")
          co=$(echo "$out" | grep -m1 '^checksum out' || echo "checksum out none")
          cb=$(echo "$out" | grep -m1 '^checksum bench' || echo "checksum bench none")
          ck=$(echo "$out" | grep -m1 -E '^check (ok|FAIL)' | cut -d' ' -f1-2 || true)
          [ -n "$ck" ] || ck="check none: $(echo "$out" | tail -n 1)"
          line="round $r $v $name $t $co $cb $ck"
        fi
        echo "$line"
        echo "$line" >> "$results"
      done
    done
  done
  # Per case and variant: the median of the rounds' median times, the
  # original's over it, and whether all its checksums are the original's.
  echo "summary (case variant median_of_medians_ms speedup_vs_orig checksums)"
  awk '
    $1 == "round" && $5 == "time_ms" && $6 != "none" {
      k = $4 SUBSEP $3; n[k]++; t[k, n[k]] = $6
      sums[k] = sums[k] " " $13 "/" $16
      if ($18 != "ok") bad[k]++
      if (!($4 in seen)) { seen[$4] = 1; corder[++nc] = $4 }
    }
    function med(k,   m, i, j, x, a) {
      m = n[k]
      for (i = 1; i <= m; i++) a[i] = t[k, i]
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1
        while (j >= 1 && a[j] + 0 > x + 0) { a[j + 1] = a[j]; j-- }
        a[j + 1] = x }
      return a[int((m + 1) / 2)]
    }
    END {
      split("orig model dispatch dispatch.pin0 dispatch.pin1", order, " ")
      for (ci = 1; ci <= nc; ci++) {
        c = corder[ci]; o = c SUBSEP "orig"
        split(sums[o], os, " "); ref = os[1]
        for (vi = 1; vi <= 5; vi++) {
          v = order[vi]; k = c SUBSEP v
          if (!(k in n)) { printf "summary %-22s %-14s not run\n", c, v; continue }
          mv = med(k); mo = (o in n) ? med(o) : 0
          same = "same"
          split(sums[k], ks, " ")
          for (i in ks) if (ks[i] != ref) same = "DIFFERENT"
          printf "summary %-22s %-14s %8.4f %6.3fx checksums %s, %d runs, check %s\n",
                 c, v, mv, (mv > 0 && mo > 0) ? mo / mv : 0, same, n[k],
                 (k in bad) ? "FAIL in " bad[k] : "ok"
        }
      }
    }' "$results"
  ;;
*)
  echo "usage: issue25_losses.sh prepare DIR | run DIR [ROUNDS]" >&2
  exit 2
  ;;
esac
