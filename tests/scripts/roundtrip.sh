#!/usr/bin/env bash
# roundtrip.sh WARPWISE SAMPLE OUTDIR
# With no transformation, rewrite must reproduce the input byte for byte, and
# must leave the input itself untouched.
set -euo pipefail
warpwise=$1 sample=$2 outdir=$3
mkdir -p "$outdir"
name=$(basename "$sample")
before=$(sha256sum "$sample" | cut -d' ' -f1)
"$warpwise" rewrite "$sample" --transforms none -o "$outdir/$name"
cmp "$sample" "$outdir/$name"
# Standard output is the other destination; it must be identical too.
"$warpwise" rewrite "$sample" --transforms none > "$outdir/$name.stdout"
cmp "$sample" "$outdir/$name.stdout"
after=$(sha256sum "$sample" | cut -d' ' -f1)
[ "$before" = "$after" ]
echo "roundtrip OK: $name"
