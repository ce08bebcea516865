#!/usr/bin/env bash
# build_integration.sh MODE CMAKE PREFIX NVCC WORKDIR - builds
# tests/integration/project against the warpwise installed in PREFIX, with
# MODE "Ninja" or "Unix Makefiles" (find_package(Warpwise) and
# warpwise_rewrite_target()) or "make-include" (its Makefile, with
# PREFIX/share/warpwise/warpwise.mk), and checks:
#   - the rewritten sources exist (with depfile and report) and were compiled;
#   - a second build has nothing to do;
#   - touching a header re-runs the rewrite of exactly the files that read it
#     (src/local.h: main.cu only; include/tile.h: both), and once only;
#   - a syntax error shows warpwise's own error on the build's console.
# The project's kernels #error without the forwarded include directory and
# definitions. Exit 77 (skipped) without nvcc, or without ninja for Ninja.
set -uo pipefail
mode=$1 cmake=$2 prefix=$3 nvcc=$4 work=$5
project=$(cd "$(dirname "$0")/../integration/project" && pwd)
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
if [ "$mode" = Ninja ] && ! command -v ninja > /dev/null; then
  echo "no ninja: skipped"; exit 77
fi

rm -rf "$work"
mkdir -p "$work"
cp -r "$project" "$work/src"
export XDG_CACHE_HOME="$work/cache"     # warpwise's ptxas cache, private
s=$work/src

if [ "$mode" = make-include ]; then
  out=$s/ww
  build() {   # build NAME: runs the build, output in $work/NAME.log
    make -C "$s" WARPWISE_MK="$prefix/share/warpwise/warpwise.mk" NVCC="$nvcc" \
      > "$work/$1.log" 2>&1
  }
  rewrote() { grep -q "warpwise rewrite $1" "$work/$2.log"; }
  objects=("$out/src/main.o" "$out/src/kernels/scale.o")
  program=$s/app
else
  b=$work/build
  "$cmake" -S "$s" -B "$b" -G "$mode" -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configure"; }
  out=$b/warpwise/app
  build() { "$cmake" --build "$b" -j 2 > "$work/$1.log" 2>&1; }
  rewrote() { grep -q "warpwise: rewriting $1 for app" "$work/$2.log"; }
  objects=("$b/CMakeFiles/app.dir/warpwise/app/src/main.cu.o"
           "$b/CMakeFiles/app.dir/warpwise/app/src/kernels/scale.cu.o")
  program=$b/app
fi

# A build: every source rewritten, with its depfile and report, and the
# rewritten source compiled.
build first || { cat "$work/first.log"; fail "the first build failed"; }
for f in src/main.cu src/kernels/scale.cu; do
  rewrote "$f" first || { cat "$work/first.log"; fail "$f was not rewritten"; }
  for g in "$out/$f" "$out/$f.d" "$out/$f.json"; do
    [ -s "$g" ] || fail "$g is missing"
  done
done
grep -q 'include/tile.h' "$out/src/kernels/scale.cu.d" || fail "the depfile misses tile.h"
for o in "${objects[@]}" "$program"; do
  [ -f "$o" ] || fail "$o was not built"
done

# Up to date.
build second || { cat "$work/second.log"; fail "the second build failed"; }
if grep -q 'rewrit' "$work/second.log"; then
  cat "$work/second.log"; fail "the second build rewrote again"
fi

# A header beside main.cu: main.cu only. A header of the include directory:
# both.
sleep 1
touch "$s/src/local.h"
build local || { cat "$work/local.log"; fail "the build after touching local.h failed"; }
rewrote src/main.cu local || { cat "$work/local.log"; fail "local.h changed, main.cu not rewritten"; }
if rewrote src/kernels/scale.cu local; then
  fail "local.h changed, scale.cu (which does not read it) rewritten"
fi
sleep 1
touch "$s/include/tile.h"
build tile || { cat "$work/tile.log"; fail "the build after touching tile.h failed"; }
for f in src/main.cu src/kernels/scale.cu; do
  rewrote "$f" tile || { cat "$work/tile.log"; fail "tile.h changed, $f not rewritten"; }
done

# Up to date again: every rewrite wrote its output (and depfile), even when
# it changed nothing.
build again || { cat "$work/again.log"; fail "the build after the header builds failed"; }
if grep -q 'rewrit' "$work/again.log"; then
  cat "$work/again.log"; fail "a rewrite reran with nothing changed"
fi

# warpwise's error, on the console of the build.
echo 'int broken = ;' >> "$s/src/kernels/scale.cu"
if build error; then
  cat "$work/error.log"; fail "a syntax error did not fail the build"
fi
grep -Eq 'scale\.cu:[0-9]+:[0-9]+: error: expected expression' "$work/error.log" &&
  grep -q '\[WW1004\]' "$work/error.log" ||
  { cat "$work/error.log"; fail "warpwise's error is not on the console"; }
echo "build integration ($mode) OK"
