#!/usr/bin/env bash
# equivalence.sh WARPWISE SAMPLE OUTDIR [warpwise rewrite options]
# Rewrites SAMPLE, builds the original and the rewritten program for the CPU
# executor (tests/equiv), runs both with every `// ci-args:` line of the
# sample, and requires each run to pass its self-check and both programs to
# print the same checksums. EQUIV_REWRITTEN_FLAGS (e.g.
# -DWARPWISE_SPLIT_PATH=1) goes to the rewritten program's build only.
# EQUIV_EXPECT (a grep pattern) must occur in the rewritten file, so that an
# entry meant for one transformation fails when it no longer applies.
# EQUIV_SHARED_DIR (CTest sets it: one directory per suite run) lets entries
# share what does not depend on them: the original program's build, and the
# path of the rewritten file that is rewritten again (warpwise's measurement
# cache is keyed by the file's path, so entries whose rewrites are the same
# text, such as the adaptive split's three pinned paths, then measure it
# once).
set -euo pipefail
warpwise=$1 sample=$2 outdir=$3
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
name=$(basename "$sample" .cu)
mkdir -p "$outdir"
rewritten="$outdir/$name.ww.cu"
# The rewritten file lives next to the sample so that its includes resolve.
"$warpwise" rewrite "$sample" -o "$rewritten" --report "$outdir/$name.report.json" "$@"
cp "$(dirname "$sample")"/*.h "$outdir"/ 2>/dev/null || true
if [ -n "${EQUIV_EXPECT:-}" ] && ! grep -q -- "$EQUIV_EXPECT" "$rewritten"; then
  echo "equivalence.sh: $rewritten has no '$EQUIV_EXPECT'" >&2
  exit 1
fi
# share_dir KIND TAG FILES...: a directory under EQUIV_SHARED_DIR named by
# TAG and the contents of FILES, filled by the first entry that asks: FILES
# copied into it (for KIND orig, the original program built there), then the
# directory renamed into place, so that a concurrent entry never sees it half
# written. Prints its path.
share_dir() {
  local kind=$1 tag=$2
  shift 2
  local key dir tmp
  key=$( (printf '%s\n' "$tag"; cat "$@") | sha256sum | cut -c1-24)
  dir="$EQUIV_SHARED_DIR/$kind/$key"
  if [ ! -d "$dir" ]; then
    mkdir -p "$EQUIV_SHARED_DIR/$kind"
    tmp=$(mktemp -d "$EQUIV_SHARED_DIR/$kind/tmp.XXXXXX")
    cp "$@" "$tmp"/
    if [ "$kind" = orig ]; then
      python3 "$here/equiv/cpu_build.py" "$tmp/$(basename "$sample")" "$tmp/$name.orig"
    fi
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  echo "$dir"
}
headers=()
for h in "$outdir"/*.h "$outdir"/*.cuh; do
  if [ -f "$h" ]; then headers+=("$h"); fi
done
if [ -n "${EQUIV_SHARED_DIR:-}" ]; then
  # The original's build depends on the sample and its headers only.
  orig_dir=$(share_dir orig "$(basename "$sample")" "$sample" ${headers[@]+"${headers[@]}"})
  cp "$orig_dir/$name.orig" "$outdir/$name.orig"
else
  python3 "$here/equiv/cpu_build.py" "$sample" "$outdir/$name.orig"
fi
# shellcheck disable=SC2086
python3 "$here/equiv/cpu_build.py" "$rewritten" "$outdir/$name.rewritten" ${EQUIV_REWRITTEN_FLAGS:-}
mapfile -t runs < <(sed -n 's|^// ci-args: *||p' "$sample")
[ ${#runs[@]} -gt 0 ] || { echo "no '// ci-args:' line in $sample"; exit 1; }
for args in "${runs[@]}"; do
  # shellcheck disable=SC2086
  "$outdir/$name.orig" $args > "$outdir/orig.out"
  # shellcheck disable=SC2086
  "$outdir/$name.rewritten" $args > "$outdir/rewritten.out"
  grep -q ": OK" "$outdir/orig.out" || { cat "$outdir/orig.out"; exit 1; }
  if ! diff -u "$outdir/orig.out" "$outdir/rewritten.out"; then
    echo "equivalence FAILED: $name $args"
    exit 1
  fi
  echo "equivalent: $name $args ($(grep -c '^checksum' "$outdir/orig.out") checksums)"
done
# Idempotence: rewriting the rewritten file changes nothing more.
again_input=$rewritten
if [ -n "${EQUIV_SHARED_DIR:-}" ]; then
  again_input="$(share_dir rewritten "$*" "$rewritten" ${headers[@]+"${headers[@]}"})/$name.ww.cu"
fi
"$warpwise" rewrite "$again_input" -o "$outdir/$name.again.cu" "$@" 2>/dev/null
if ! cmp -s "$rewritten" "$outdir/$name.again.cu"; then
  echo "not idempotent: rewriting $rewritten again changed it:"
  diff -u "$rewritten" "$outdir/$name.again.cu" | head -40
  exit 1
fi
if ! cmp -s "$sample" "$rewritten"; then
  echo "(the rewritten $name differs from the original: $(diff "$sample" "$rewritten" | grep -c '^[<>]') changed lines)"
fi
