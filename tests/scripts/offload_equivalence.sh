#!/usr/bin/env bash
# offload_equivalence.sh WARPWISE SAMPLE.c|SAMPLE.cpp OUTDIR
# Translates the OpenMP program SAMPLE.c into CUDA with `warpwise offload`,
# builds the OpenMP program with gcc and the CUDA output for the CPU
# executor (tests/equiv), runs both with every `// ci-args:` line of the
# sample (the OpenMP one with OMP_NUM_THREADS=4) and compares their stdout
# (compare_offload_output.py): `checksum` lines must be identical,
# `reduction` lines within a relative 1e-12, and both must name the same
# results; a `// ci-offloaded: N` line: N loops must be offloaded; a
# `// ci-offload-flags: ...` line: options of the translation. With
# NVCC set, the CUDA output must also compile for sm_75 and
# sm_90 (and for sm_90 with -DWARPWISE_OFFLOAD_TIMING, as scripts/bench-offload
# builds it).
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 WARPWISE SAMPLE.c OUTDIR" >&2
  exit 2
fi
warpwise=$1 sample=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
name=$(basename "$sample"); name=${name%.*}
mkdir -p "$outdir"
cuda="$outdir/$name.cu"
rm -f "$cuda"
# `// ci-offload-flags: FLAGS`: options of the translation (--fmad=false).
mapfile -t flags < <(sed -n 's|^// ci-offload-flags: *||p' "$sample" | tr ' ' '\n' | sed '/^$/d')
if ! "$warpwise" offload "$sample" -o "$cuda" --report "$outdir/$name.report.json" ${flags[@]+"${flags[@]}"}; then
  echo "offload FAILED: $warpwise offload $sample"
  exit 1
fi
[ -s "$cuda" ] || { echo "offload wrote no $cuda"; exit 1; }
# `// ci-offloaded: N`: the loops the sample expects offloaded.
expected=$(sed -n 's|^// ci-offloaded: *||p' "$sample")
if [ -n "$expected" ]; then
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["offloaded"])' \
          "$outdir/$name.report.json")
  [ "$got" = "$expected" ] ||
    { echo "offloaded $got loops of $name, expected $expected (// ci-offloaded:)"; exit 1; }
fi
# -foffload=disable: the reference is the CPU build, target regions included,
# also where a GCC offload compiler is installed.
# A .cpp program is C++ (references, new[]).
if [[ $sample == *.cpp ]]; then
  g++ -std=c++17 -O2 -fopenmp -foffload=disable "$sample" -o "$outdir/$name.omp" -lm
else
  gcc -std=c99 -O2 -fopenmp -foffload=disable "$sample" -o "$outdir/$name.omp" -lm
fi
python3 "$here/equiv/cpu_build.py" "$cuda" "$outdir/$name.cpu"
mapfile -t runs < <(sed -n 's|^// ci-args: *||p' "$sample")
[ ${#runs[@]} -gt 0 ] || { echo "no '// ci-args:' line in $sample"; exit 1; }
for args in "${runs[@]}"; do
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=4 "$outdir/$name.omp" $args > "$outdir/omp.out" 2> "$outdir/omp.err" ||
    { echo "the OpenMP build of $name failed with '$args':"; cat "$outdir/omp.err"; exit 1; }
  # shellcheck disable=SC2086
  "$outdir/$name.cpu" $args > "$outdir/cuda.out" 2> "$outdir/cuda.err" ||
    { echo "the CUDA build of $name failed on the CPU executor with '$args':"; tail -20 "$outdir/cuda.err"; exit 1; }
  if ! summary=$(python3 "$here/scripts/compare_offload_output.py" --rtol 1e-12 --atol 1e-300 \
                   "$outdir/omp.out" "$outdir/cuda.out"); then
    echo "equivalence FAILED: $name $args"
    echo "$summary"
    exit 1
  fi
  echo "equivalent: $name $args ($summary)"
done
if [ -n "${NVCC:-}" ]; then
  "$NVCC" -O3 -arch=sm_75 -c "$cuda" -o "$outdir/$name.sm_75.o"
  "$NVCC" -O3 -arch=sm_90 -c "$cuda" -o "$outdir/$name.sm_90.o"
  "$NVCC" -O3 -arch=sm_90 -DWARPWISE_OFFLOAD_TIMING -c "$cuda" -o "$outdir/$name.timing.o"
  echo "nvcc: $name.cu compiles for sm_75 and sm_90"
fi
