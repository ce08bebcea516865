#!/usr/bin/env bash
# gpu.sh GB RESULT - run_gpu.sh's comparison (tests/fuzz/run.py GPU_SCRIPT:
# nvcc -arch=sm_90 -fmad=F, the original must print ': OK', each rewrite's
# output must equal the original's byte for byte), for FMAD=true and false,
# with compiles and runs in parallel (RUNP runs at a time, default 8).
# Originals without a rewrite are skipped.
set -u
GB=$1; RES=$2; DEADLINE=${3:-0}   # epoch seconds by which compiling must stop (0: none)
RDEADLINE=${4:-0}                 # epoch seconds by which running must stop (0: none)
cd "$GB"
arch=${ARCH:-sm_90}
T0=$(date +%s)
origs=$(ls s*.cu | grep -v '\..*\.cu$' | sort -V)
list=""
for o in $origs; do
  base=${o%.cu}
  rws=$(ls $base.*.cu 2>/dev/null)
  [ -n "$rws" ] || continue
  list="$list $base"; for r in $rws; do list="$list ${r%.cu}"; done
done
for f in true false; do rm -rf bin-$f; mkdir bin-$f; done
ctime=100000; [ "$DEADLINE" -gt 0 ] && ctime=$((DEADLINE - $(date +%s)))
for x in $list; do for f in true false; do echo "$f $x"; done; done | \
  timeout $ctime xargs -r -P "$(nproc)" -L 1 sh -c 'timeout --foreground 300 nvcc -arch='$arch' -fmad=$0 -o bin-$0/$1 $1.cu > bin-$0/$1.log 2>&1 || touch bin-$0/$1.failed'
echo "compiled in $(( $(date +%s) - T0 ))s"
T1=$(date +%s)
rtime=100000; [ "$RDEADLINE" -gt 0 ] && rtime=$((RDEADLINE - $(date +%s)))
for x in $list; do for f in true false; do [ -e bin-$f/$x.failed ] || [ ! -e bin-$f/$x ] || echo "$f $x"; done; done | \
  timeout $rtime xargs -r -P "${RUNP:-8}" -L 1 sh -c 'timeout --foreground 120 bin-$0/$1 > bin-$0/$1.out 2>&1; echo $? > bin-$0/$1.rc'
echo "ran in $(( $(date +%s) - T1 ))s"
: > gpu-fail-files
{
for f in true false; do
  echo "== FMAD=$f ARCH=$arch (nvcc -arch=$arch -fmad=$f)"
  pass=0 fail=0 skipped=0
  for orig in $origs; do
    base=${orig%.cu}
    rws=$(ls $base.*.cu 2>/dev/null)
    [ -n "$rws" ] || continue
    if [ ! -e bin-$f/$base.failed ] && [ ! -e bin-$f/$base ]; then
      echo "$base: not compiled (time limit), skipped with its rewrites"; skipped=$((skipped + 1)); continue
    fi
    if [ ! -e bin-$f/$base.failed ] && [ ! -e bin-$f/$base.rc ]; then
      echo "$base: not run (time limit), skipped with its rewrites"; skipped=$((skipped + 1)); continue
    fi
    if [ -e bin-$f/$base.failed ]; then
      echo "$base: the original does not compile"; fail=$((fail + 1)); echo "bin-$f/$base.log" >> gpu-fail-files; continue
    fi
    if ! grep -q ': OK' bin-$f/$base.out; then
      echo "$base: the original fails its self-check"; fail=$((fail + 1)); echo "bin-$f/$base.out $base.cu" >> gpu-fail-files; continue
    fi
    for rw in $rws; do
      name=${rw%.cu}
      if [ ! -e bin-$f/$name.failed ] && [ ! -e bin-$f/$name ]; then
        echo "$name: not compiled (time limit), skipped"; skipped=$((skipped + 1)); continue
      fi
      if [ -e bin-$f/$name.failed ]; then
        echo "$name: FAIL (does not compile)"; fail=$((fail + 1)); echo "bin-$f/$name.log $name.cu" >> gpu-fail-files; continue
      fi
      if [ ! -e bin-$f/$name.rc ]; then
        echo "$name: not run (time limit), skipped"; skipped=$((skipped + 1)); continue
      fi
      if cmp -s bin-$f/$base.out bin-$f/$name.out; then
        echo "$name: pass"; pass=$((pass + 1))
      else
        echo "$name: FAIL (output differs: diff bin-$f/$base.out bin-$f/$name.out)"
        diff bin-$f/$base.out bin-$f/$name.out | sed 's/^/    /' | head -20
        fail=$((fail + 1)); echo "bin-$f/$base.out bin-$f/$name.out $base.cu $name.cu" >> gpu-fail-files
      fi
    done
  done
  echo "FMAD=$f: $pass passed, $fail failed ($skipped skipped: not compiled or not run in time)"
done
echo "originals with at least one rewrite: $(echo $list | tr ' ' '\n' | grep -c '^s[0-9]*$'); rewrites: $(echo $list | tr ' ' '\n' | grep -c '\.')"
echo "gpu phase wall: $(( $(date +%s) - T0 ))s"
} > "$RES" 2>&1
sort -u gpu-fail-files -o gpu-fail-files
tr ' ' '\n' < gpu-fail-files | sort -u > gpu-fail-files.2; mv gpu-fail-files.2 gpu-fail-files
grep -E 'FMAD=.*passed' "$RES"
