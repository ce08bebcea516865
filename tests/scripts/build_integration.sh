#!/usr/bin/env bash
# build_integration.sh MODE CMAKE PREFIX NVCC WORKDIR - builds
# tests/integration/project against the warpwise installed in PREFIX, with
# MODE "Ninja" or "Unix Makefiles" (find_package(Warpwise) and
# warpwise_rewrite_target()) or "make-include" (its Makefile, with
# PREFIX/share/warpwise/warpwise.mk), and checks:
#   - the rewritten sources exist (with depfile and report) and were compiled;
#   - the kernel of include/lanes.cuh is split: the rewritten header is in
#     the build's tree (never over the original), and the compile sees it;
#   - nvcc's warning on a file warpwise left unchanged, and nvcc's error on
#     a rewritten file (below a rewritten launch), name the user's file and
#     line (the copies' #line directives);
#   - the target's -maxrregcount reaches warpwise (the report's nvcc flags);
#   - a second build has nothing to do;
#   - touching a header re-runs the rewrite of exactly the files that read it
#     (src/local.h: main.cu only; include/tile.h: both), and once only;
#   - deleting a header the depfiles name is no error;
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
  copy() { echo "$out/$1"; }    # copy FILE: the rewritten copy of FILE
  header=$out/include/lanes.cuh
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
  copy() { echo "$out/$1.tree/$1"; }   # each source has a tree of its own
  header=$out/src/main.cu.tree/include/lanes.cuh
  objects=("$b/CMakeFiles/app.dir/warpwise/app/src/main.cu.tree/src/main.cu.o"
           "$b/CMakeFiles/app.dir/warpwise/app/src/kernels/scale.cu.tree/src/kernels/scale.cu.o")
  program=$b/app
fi

# A build: every source rewritten, with its depfile and report, and the
# rewritten source compiled.
build first || { cat "$work/first.log"; fail "the first build failed"; }
for f in src/main.cu src/kernels/scale.cu; do
  rewrote "$f" first || { cat "$work/first.log"; fail "$f was not rewritten"; }
  c=$(copy "$f")
  for g in "$c" "$c.d" "$c.json"; do
    [ -s "$g" ] || fail "$g is missing"
  done
  head -1 "$c" | grep -qF "#line 1 \"$s/$f\"" || fail "$c does not start with #line 1 naming $s/$f"
  grep -q -- '-maxrregcount=32' "$c.json" || fail "the report of $f does not show -maxrregcount=32"
done
grep -q 'include/tile.h' "$(copy src/kernels/scale.cu).d" || fail "the depfile misses tile.h"
for o in "${objects[@]}" "$program"; do
  [ -f "$o" ] || fail "$o was not built"
done

# The header's kernel split: the rewritten header in the build's tree, the
# original untouched, and the copy of main.cu launching the new kernels
# compiled against it (the build would fail with the original header).
grep -q 'ww_lanes_ww_then' "$header" || { cat "$work/first.log"; fail "$header is not the split header"; }
cmp -s "$s/include/lanes.cuh" "$project/include/lanes.cuh" || fail "include/lanes.cuh was changed"
grep -q 'ww_lanes_ww_then<<<' "$(copy src/main.cu)" || fail "the launch in main.cu was not split"
diff -r -x ww -x app -x '*.o' "$project" "$s" > /dev/null || fail "the source tree was changed"

# nvcc's warning on the file warpwise left unchanged names the user's file
# and line.
line=$(grep -n 'int ww_unused_here;' "$s/src/kernels/scale.cu" | cut -d: -f1)
grep -qE "^$s/src/kernels/scale\.cu\($line\): warning #177-D" "$work/first.log" ||
  { cat "$work/first.log"; fail "nvcc's warning does not name src/kernels/scale.cu($line)"; }
if grep -q "\.tree/.*warning\|ww/src/kernels/scale\.cu(" "$work/first.log"; then
  cat "$work/first.log"; fail "a diagnostic names the rewritten copy"
fi

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

# A header deleted (its text moved into main.cu) is no error.
sleep 1
body=$(grep '^__device__' "$s/src/local.h")
awk -v b="$body" '{ print ($0 == "#include \"local.h\"") ? b : $0 }' "$s/src/main.cu" > "$work/main.cu"
mv "$work/main.cu" "$s/src/main.cu"
rm "$s/src/local.h"
build deleted || { cat "$work/deleted.log"; fail "the build after deleting local.h failed"; }
rewrote src/main.cu deleted || { cat "$work/deleted.log"; fail "main.cu changed, not rewritten"; }

# nvcc's error in main.cu, below the launch the rewrite split: the user's
# file and line (clang's parse does not see it: __NVCC__ is nvcc's).
sleep 1
cp "$s/src/main.cu" "$work/main.cu.saved"
printf '#ifdef __NVCC__\nstatic_assert(WW_TILE == 0, "ww_nvcc_only_error");\n#endif\n' >> "$s/src/main.cu"
line=$(grep -n 'ww_nvcc_only_error' "$s/src/main.cu" | cut -d: -f1)
if build nvccerror; then
  cat "$work/nvccerror.log"; fail "nvcc's error did not fail the build"
fi
grep -qE "^$s/src/main\.cu[(:]$line[):].*error.*ww_nvcc_only_error" "$work/nvccerror.log" ||
  { cat "$work/nvccerror.log"; fail "nvcc's error does not name src/main.cu at line $line"; }
cp "$work/main.cu.saved" "$s/src/main.cu"

# warpwise's error, on the console of the build.
echo 'int broken = ;' >> "$s/src/kernels/scale.cu"
if build error; then
  cat "$work/error.log"; fail "a syntax error did not fail the build"
fi
grep -Eq 'scale\.cu:[0-9]+:[0-9]+: error: expected expression' "$work/error.log" &&
  grep -q '\[WW1004\]' "$work/error.log" ||
  { cat "$work/error.log"; fail "warpwise's error is not on the console"; }
echo "build integration ($mode) OK"
