#!/usr/bin/env bash
# compile_output.sh WARPWISE NVCC ARCH SAMPLE OUTDIR [warpwise rewrite options]
# Rewrites SAMPLE for ARCH and compiles what warpwise wrote with nvcc, with
# every nvcc warning an error (warpwise must add none), and checks that no
# line warpwise wrote is over 100 columns (clang-format formats it).
# With EXPECT_TEXT set, the output must contain that text.
set -euo pipefail
warpwise=$1 nvcc=$2 arch=$3 sample=$4 outdir=$5
shift 5
mkdir -p "$outdir/$arch"
name=$(basename "$sample" .cu)
out="$outdir/$arch/$name.ww.cu"
"$warpwise" rewrite "$sample" --arch "$arch" -o "$out" "$@"
# EXPECT_TEXT: the rewrite must have happened (a forced form, for example).
if [ -n "${EXPECT_TEXT:-}" ] && ! grep -qF "$EXPECT_TEXT" "$out"; then
  echo "the rewritten $name lacks '$EXPECT_TEXT'"
  exit 1
fi
# Lines the input does not have are warpwise's.
awk 'NR == FNR { input[$0] = 1; next }
     !($0 in input) && length($0) > 100 {
       printf "%s:%d: %d columns: %s\n", FILENAME, FNR, length($0), $0; long = 1 }
     END { exit long }' "$sample" "$out"
# Relative includes of the sample must still resolve.
"$nvcc" -arch="$arch" -Werror all-warnings -I"$(dirname "$sample")" -c "$out" \
  -o "$outdir/$arch/$name.o"
echo "nvcc -arch=$arch OK: $name"
