#!/usr/bin/env bash
# camp.sh - issue 26's campaign driver for a GPU machine without LLVM (the
# workplace's device tool): warpwise runs there from a bundle,
# bench-out-camp/ww.tar.xz (git-ignored; WW_BUNDLE): bin/warpwise,
# tools/bin/{cuobjdump,nvdisasm} and lib/ (libLLVM, libclang-cpp and their
# dependencies, from `ldd`) under ww/, and clang's resource include/ under
# clang22/, both extracted to /opt (docs/fuzzing.md, batch D). Results go to
# $OUT. Not part of the suite: run on purpose.
# Env: TAG START CHUNK STREAMS JOBS MODES FAM RUN_END HARD_END GPU_END
#   RUN_END:  seconds after start by which run.py chunks should be done
#             (a new chunk starts only if the last one's duration fits)
#   HARD_END: run.py chunks are killed at this time
#   GPU_COMPILE_END: the GPU phase's compiles stop at this time
#   GPU_END:  the GPU phase is cut at this time (its runs stop 15 s before)
set -u
WW=${WWROOT:-/opt/ww}
T0=$(date +%s)
B=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$B/../../.." && pwd)
BUNDLE=${WW_BUNDLE:-$REPO/bench-out-camp/ww.tar.xz}
cd "$REPO"
OUT=${OUT:-/tmp/out-local}
mkdir -p "$OUT"
TAG=${TAG:-c1}
START=${START:-8001}; CHUNK=${CHUNK:-16}; STREAMS=${STREAMS:-2}; JOBS=${JOBS:-9}
MODES=${MODES:-default,forced}; FAM=${FAM:-}
RUN_END=${RUN_END:-300}; HARD_END=${HARD_END:-360}; GPU_COMPILE_END=${GPU_COMPILE_END:-530}; GPU_END=${GPU_END:-565}
export PYTHONUNBUFFERED=1
TL=$OUT/$TAG-timeline.txt
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*" | tee -a "$TL"; }

# ---------------------------------------------------------------- setup
if [ ! -x $WW/bin/warpwise ]; then
  log "setup: extracting bundle"
  mkdir -p /opt
  if command -v xz >/dev/null; then
    timeout 120 sh -c "xz -dc '$BUNDLE' | tar -C /opt -xf -"
  else
    timeout 120 sh -c "python3 -c 'import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' '$BUNDLE' | tar -C /opt -xf -"
  fi
  mkdir -p /usr/lib/llvm-22/lib/clang
  [ -d /usr/lib/llvm-22/lib/clang/22 ] || mv /opt/clang22 /usr/lib/llvm-22/lib/clang/22
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/ww/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec /opt/ww/bin/warpwise "$@"\n' > /opt/ww/wrapper
  chmod +x $WW/wrapper
  log "setup done"
fi
# WW_OVERLAY: a newer bin/warpwise (tar.xz of ww/bin/warpwise) over the
# bundle's, so that a new binary travels without the libraries again; applied
# on every call (a warm machine may hold another), replaced by a rename.
if [ -n "${WW_OVERLAY:-}" ]; then
  rm -rf /tmp/ov-$TAG; mkdir -p /tmp/ov-$TAG
  timeout 60 sh -c "xz -dc '$WW_OVERLAY' | tar -C /tmp/ov-$TAG -xf -"
  cmp -s /tmp/ov-$TAG/ww/bin/warpwise $WW/bin/warpwise || \
    { cp /tmp/ov-$TAG/ww/bin/warpwise $WW/bin/warpwise.new && mv -f $WW/bin/warpwise.new $WW/bin/warpwise; }
  log "overlay: $(sha256sum $WW/bin/warpwise)"
fi
{
  echo "== machine ($TAG)"
  nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version; g++ --version | head -1; python3 --version
  nproc; grep -m1 'model name' /proc/cpuinfo; uname -a; head -2 /etc/os-release
  echo "xz: $(command -v xz) zstd: $(command -v zstd)"
  sha256sum $WW/bin/warpwise
  echo "== ldd"; LD_LIBRARY_PATH=$WW/lib ldd $WW/bin/warpwise
  echo "== smoke"; (cd /tmp && timeout 120 $WW/wrapper rewrite "$REPO/samples/decision_mask.cu" -o /tmp/smoke.ww.cu; echo "smoke rc=$?"; wc -l /tmp/smoke.ww.cu)
} > "$OUT/$TAG-machine.txt" 2>&1
log "machine info written; smoke: $(grep 'smoke rc' "$OUT/$TAG-machine.txt")"

# ---------------------------------------------------------------- run.py chunks
stream() {
  local s=$1 i=0 last=0 a b t1 now rc
  while :; do
    now=$(el)
    if [ $((now + last)) -gt "$RUN_END" ]; then break; fi
    if command -v flock >/dev/null; then   # the next chunk of seeds, shared by the streams: no gaps
      a=$(flock /tmp/next-$TAG.lock sh -c 'n=$(cat "$0"); echo $((n + $1)) > "$0"; echo $n' /tmp/next-$TAG $CHUNK)
    else a=$((START + (i * STREAMS + s) * CHUNK)); fi
    b=$((a + CHUNK - 1))
    t1=$(el)
    log "stream $s: chunk $a-$b start"
    timeout $((HARD_END - t1)) python3 tests/fuzz/run.py --warpwise $WW/wrapper \
      --seeds $a-$b --modes "$MODES" $FAM -j "$JOBS" --gpu-batch /tmp/gb-$TAG-$a \
      --checks --out /tmp/fz-$TAG-$a > "$LOGS/$a.txt" 2>&1
    rc=$?
    last=$(( $(el) - t1 ))
    log "stream $s: chunk $a-$b rc=$rc in ${last}s"
    echo "$a" >> /tmp/chunks-$TAG
    i=$((i + 1))
    if [ $rc -ge 124 ]; then break; fi
  done
}
rm -f /tmp/chunks-$TAG; echo "$START" > /tmp/next-$TAG
LOGS=$OUT/$TAG-chunks; mkdir -p "$LOGS"   # each chunk's run.py output, in $OUT as it is written
for s in $(seq 0 $((STREAMS - 1))); do stream $s & done
wait
log "run.py phase done"
{
  for a in $(sort -n /tmp/chunks-$TAG); do
    echo "######## chunk seeds $a-$((a + CHUNK - 1)): python3 tests/fuzz/run.py --warpwise $WW/wrapper --seeds $a-$((a + CHUNK - 1)) --modes $MODES $FAM -j $JOBS --gpu-batch /tmp/gb-$TAG-$a --checks --out /tmp/fz-$TAG-$a"
    cat "$LOGS/$a.txt"
  done
} > "$OUT/$TAG-runpy.log"

# ---------------------------------------------------------------- GPU phase
GB=/tmp/gball-$TAG; rm -rf $GB; mkdir -p $GB
for a in $(sort -n /tmp/chunks-$TAG); do
  [ -f /tmp/gb-$TAG-$a/run_gpu.sh ] && cp /tmp/gb-$TAG-$a/*.cu /tmp/gb-$TAG-$a/*.cuh $GB/ 2>/dev/null
  [ -f /tmp/gb-$TAG-$a/run_gpu.sh ] && cp /tmp/gb-$TAG-$a/run_gpu.sh $GB/
done
log "gpu batch: $(ls $GB | grep -c '^s[0-9]*\.cu$') originals, $(ls $GB | grep -c '^s[0-9]*\..*\.cu$') rewrites"
timeout $((GPU_END - $(el))) bash "$B/gpu.sh" "$GB" "$OUT/$TAG-gpu.txt" $((T0 + GPU_COMPILE_END)) $((T0 + GPU_END - 15)) 2>&1 | tee -a "$TL"
log "gpu phase done"

# ---------------------------------------------------------------- failures
fl=""
for a in $(sort -n /tmp/chunks-$TAG); do
  [ -d /tmp/fz-$TAG-$a ] && [ -n "$(ls -A /tmp/fz-$TAG-$a)" ] && fl="$fl fz-$TAG-$a"
done
touch $GB/gpu-fail-files
tar cf - -C /tmp $fl -C $GB gpu-fail-files $(cat $GB/gpu-fail-files) 2>/dev/null | xz -6 > "$OUT/$TAG-fails.tar.xz"
ls -la "$OUT" | tee -a "$TL"
log "end"
