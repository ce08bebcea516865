#!/bin/sh
# check_runtime.sh - warpwise's runtime (src/runtime/warpwise) on its own.
#
#   check_runtime.sh nvcc NVCC ARCH RUNTIME_DIR SOURCES_DIR WORKDIR
#     compile_test.cu compiled for ARCH with every warning an error: against
#     the one file warpwise writes beside outputs (RUNTIME_DIR/
#     warpwise_runtime.cuh), included only and used as rewritten code uses
#     it, and against the headers of the sources (SOURCES_DIR/warpwise/
#     runtime.cuh); with the measured dispatch's version pinned
#     (-DWARPWISE_DISPATCH=1); as C++03 too, where the adaptive part and the
#     measured dispatch are left out.
#   check_runtime.sh cpu PYTHON RUNTIME_DIR WORKDIR
#     dispatch_test.cu built for the CPU executor (tests/equiv/cpu_build.py)
#     and run: the dispatch decisions, then each path that
#     -DWARPWISE_SPLIT_PATH pins.
#   check_runtime.sh measured PYTHON RUNTIME_DIR WORKDIR
#     measured_test.cu built for the CPU executor and run: the measured
#     dispatch's decisions with kernel times the test sets, then each version
#     that -DWARPWISE_DISPATCH pins, and the decision -DWARPWISE_DISPATCH_LOG
#     prints.
#   check_runtime.sh offload-nvcc NVCC ARCH RUNTIME_DIR SOURCES_DIR WORKDIR
#     omp_support_test.cu (offload's run-time support as offload's outputs
#     use it: the one file warpwise writes beside them, RUNTIME_DIR/
#     warpwise_offload.cuh) compiled for ARCH with every warning an error,
#     with and without -DWARPWISE_OFFLOAD_TIMING, and against the headers of
#     the sources (SOURCES_DIR/offload/offload.cuh); its PTX must round
#     --fmad=false's products on their own (mul.rn, no fma).
#   check_runtime.sh offload-cpu PYTHON RUNTIME_DIR WORKDIR
#     omp_support_test.cu built for the CPU executor and run.
#   check_runtime.sh tune-shim NVCC SOURCES_DIR WORKDIR
#     --tune's timing shim (SOURCES_DIR/tune/tune_shim.cpp) built as warpwise
#     builds it, warnings as errors; it must define the launch entry points it
#     replaces.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=$1
shift
case $mode in
nvcc)
  nvcc=$1 arch=$2 runtime=$3 sources=$4 work=$5
  mkdir -p "$work"
  for variant in "" "-DWW_INCLUDE_ONLY" "-DWW_FROM_SOURCES -I$sources" \
                 "-DWARPWISE_DISPATCH=1" "-std=c++03 -DWW_INCLUDE_ONLY"; do
    echo "nvcc -arch=$arch $variant"
    # shellcheck disable=SC2086
    "$nvcc" -arch="$arch" -c -Werror all-warnings $variant -I"$runtime" \
      "$here/compile_test.cu" -o "$work/compile_test.o"
  done
  echo "runtime compiles for $arch"
  ;;
cpu)
  python=$1 runtime=$2 work=$3
  mkdir -p "$work"
  for path in "" 0 1 2; do
    define=${path:+-DWARPWISE_SPLIT_PATH=$path}
    echo "CPU executor ${define:-(the dispatch decisions)}"
    # shellcheck disable=SC2086
    "$python" "$here/../equiv/cpu_build.py" "$here/dispatch_test.cu" \
      "$work/dispatch$path" -I"$runtime" $define
    "$work/dispatch$path"
  done
  ;;
measured)
  python=$1 runtime=$2 work=$3
  mkdir -p "$work"
  for version in "" 0 1; do
    define=${version:+-DWARPWISE_DISPATCH=$version}
    echo "CPU executor ${define:-(the measured decisions)}"
    # shellcheck disable=SC2086
    "$python" "$here/../equiv/cpu_build.py" "$here/measured_test.cu" \
      "$work/measured$version" -I"$runtime" $define
    "$work/measured$version"
  done
  # -DWARPWISE_DISPATCH_LOG prints each decision with its medians ...
  echo "CPU executor -DWARPWISE_DISPATCH_LOG"
  "$python" "$here/../equiv/cpu_build.py" "$here/measured_test.cu" \
    "$work/measured_log" -I"$runtime" -DWARPWISE_DISPATCH_LOG
  "$work/measured_log" > /dev/null 2> "$work/measured_log.txt"
  grep -q '^warpwise: dispatch: shape .* grid 1x1x1 block 1x1x1 shared 0: original 1.0000 ms, rewrite 0.8000 ms (medians of 3 and 3): the rewrite$' \
    "$work/measured_log.txt"
  # ... and each drift that starts a fresh measurement.
  grep -q '^warpwise: dispatch: shape .*: the rewrite took 1.5000 ms against a median of 0.8000 ms: measuring both again$' \
    "$work/measured_log.txt"
  ;;
offload-nvcc)
  nvcc=$1 arch=$2 runtime=$3 sources=$4 work=$5
  mkdir -p "$work"
  for variant in "" "-DWARPWISE_OFFLOAD_TIMING" \
                 "-DWW_FROM_SOURCES -I$sources/offload"; do
    echo "nvcc -arch=$arch $variant"
    # shellcheck disable=SC2086
    "$nvcc" -arch="$arch" -c -Werror all-warnings $variant -I"$runtime" \
      "$here/omp_support_test.cu" -o "$work/omp_support_test.o"
  done
  # The rounded products as the device runs them: each a mul.rn, never
  # contracted into an fma with the add after it (the CPU executor cannot
  # tell, its products are the host's).
  "$nvcc" -arch="$arch" -ptx -I"$runtime" \
    "$here/omp_support_test.cu" -o "$work/omp_support_test.ptx"
  awk '/\.entry _Z7rounded/,/^}/' "$work/omp_support_test.ptx" \
    > "$work/rounded.ptx"
  if ! grep -q 'mul\.rn\.f32' "$work/rounded.ptx" ||
     ! grep -q 'mul\.rn\.f64' "$work/rounded.ptx" ||
     grep -q 'fma' "$work/rounded.ptx"; then
    echo "the PTX of 'rounded' lacks mul.rn.f32 or mul.rn.f64, or has" \
         "an fma:" >&2
    cat "$work/rounded.ptx" >&2
    exit 1
  fi
  echo "offload's support compiles for $arch; its products are rounded"
  ;;
offload-cpu)
  python=$1 runtime=$2 work=$3
  mkdir -p "$work"
  "$python" "$here/../equiv/cpu_build.py" "$here/omp_support_test.cu" \
    "$work/omp_support" -I"$runtime"
  "$work/omp_support"
  ;;
tune-shim)
  nvcc=$1 sources=$2 work=$3
  mkdir -p "$work"
  "$nvcc" -cudart shared -shared -Xcompiler -fPIC -Werror all-warnings \
    -Xcompiler -Wall,-Wextra,-Werror -o "$work/shim.so" \
    "$sources/tune/tune_shim.cpp" -ldl
  for symbol in cudaLaunchKernel cudaLaunchKernelExC __cudaLaunchKernel \
                __cudaLaunchKernel_ptsz; do
    nm -D --defined-only "$work/shim.so" | grep -q " T $symbol\$"
  done
  echo "the tune shim builds and replaces the launch entry points"
  ;;
*)
  echo "usage: check_runtime.sh nvcc|cpu|measured|offload-nvcc|offload-cpu|tune-shim ..." >&2
  exit 2
  ;;
esac
