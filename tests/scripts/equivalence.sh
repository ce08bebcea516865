#!/usr/bin/env bash
# equivalence.sh WARPWISE SAMPLE OUTDIR [warpwise rewrite options]
# Rewrites SAMPLE, builds the original and the rewritten program for the CPU
# executor (tests/equiv), runs both with every `// ci-args:` line of the
# sample, and requires each run to pass its self-check and both programs to
# print the same checksums. EQUIV_REWRITTEN_FLAGS (e.g.
# -DWARPWISE_SPLIT_PATH=1) goes to the rewritten program's build only.
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
python3 "$here/equiv/cpu_build.py" "$sample" "$outdir/$name.orig"
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
"$warpwise" rewrite "$rewritten" -o "$outdir/$name.again.cu" "$@" 2>/dev/null
if ! cmp -s "$rewritten" "$outdir/$name.again.cu"; then
  echo "not idempotent: rewriting $rewritten again changed it:"
  diff -u "$rewritten" "$outdir/$name.again.cu" | head -40
  exit 1
fi
if ! cmp -s "$sample" "$rewritten"; then
  echo "(the rewritten $name differs from the original: $(diff "$sample" "$rewritten" | grep -c '^[<>]') changed lines)"
fi
