#!/usr/bin/env bash
# install_check.sh CMAKE BUILD PREFIX - `cmake --install BUILD --prefix PREFIX`,
# then: the installed tree has the binary (which runs), the rules, the stub
# header, the CMake package, the Make include and, when scripts/setup fetched
# them into BUILD/tools/bin, cuobjdump and nvdisasm (which the installed
# binary then finds); find_package(Warpwise) works from the prefix, from a
# copy of it elsewhere and from the build tree, and refuses an incompatible
# version.
set -euo pipefail
cmake=$1 build=$2 prefix=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$prefix" "$prefix.copy" "$prefix.work"
"$cmake" --install "$build" --prefix "$prefix" > /dev/null

for f in bin/warpwise \
         lib/cmake/Warpwise/WarpwiseConfig.cmake \
         lib/cmake/Warpwise/WarpwiseConfigVersion.cmake \
         lib/cmake/Warpwise/Warpwise.cmake \
         share/warpwise/warpwise.mk \
         share/warpwise/include/warpwise_cuda_stub.h; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
for r in "$src"/rules/*.json; do
  cmp "$r" "$prefix/share/warpwise/rules/$(basename "$r")" || fail "rules/$(basename "$r")"
done
cmp "$src/src/frontend/warpwise_cuda_stub.h" "$prefix/share/warpwise/include/warpwise_cuda_stub.h"
for t in cuobjdump nvdisasm; do
  if [ -x "$build/tools/bin/$t" ]; then
    [ -x "$prefix/libexec/warpwise/$t" ] || fail "libexec/warpwise/$t is not installed"
  else
    [ ! -e "$prefix/libexec/warpwise/$t" ] || fail "libexec/warpwise/$t installed from nowhere"
  fi
done

# The installed binary runs (its libraries are found) and rewrites a file.
"$prefix/bin/warpwise" --version > /dev/null || fail "the installed warpwise does not run"
mkdir -p "$prefix.work"
cat > "$prefix.work/k.cu" <<'EOF'
__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }
EOF
"$prefix/bin/warpwise" rewrite "$prefix.work/k.cu" --stub-cuda --transforms none \
  -o "$prefix.work/k.out.cu" 2> /dev/null || fail "the installed warpwise cannot rewrite"
cmp "$prefix.work/k.cu" "$prefix.work/k.out.cu"

# The installed binary finds the SASS tools installed beside it (when the
# toolkit has none; then they were fetched and installed).
if [ -x "$prefix/libexec/warpwise/cuobjdump" ]; then
  env PATH=/usr/bin:/bin "$prefix/bin/warpwise" rewrite "$prefix.work/k.cu" -v \
    -o "$prefix.work/k.v.cu" > /dev/null 2> "$prefix.work/v.err" ||
    { cat "$prefix.work/v.err"; fail "the installed warpwise failed with -v"; }
  grep -q '^warpwise: tools: ' "$prefix.work/v.err" || fail "-v names no tools"
  if grep -q 'WW1014\|cuobjdump (not found)\|nvdisasm (not found)' "$prefix.work/v.err"; then
    cat "$prefix.work/v.err"; fail "the installed warpwise misses the installed tools"
  fi
fi

# find_package(Warpwise) in a project without languages (a fast configure).
mkdir -p "$prefix.work/p"
cat > "$prefix.work/p/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(find_warpwise LANGUAGES NONE)
find_package(Warpwise ${WANT} CONFIG REQUIRED)
get_target_property(loc Warpwise::warpwise IMPORTED_LOCATION)
if(NOT COMMAND warpwise_rewrite_target OR NOT loc STREQUAL WARPWISE_EXECUTABLE
   OR NOT EXISTS "${WARPWISE_MAKE_INCLUDE}")
  message(FATAL_ERROR "incomplete package")
endif()
message(STATUS "warpwise=${WARPWISE_EXECUTABLE}")
EOF
find_in() {  # find_in VERSION -D...: prints the executable the package names
  rm -rf "$prefix.work/b"
  "$cmake" -S "$prefix.work/p" -B "$prefix.work/b" -DWANT="$1" "${@:2}" > "$prefix.work/log" 2>&1 ||
    return 1
  sed -n 's/^-- warpwise=//p' "$prefix.work/log"
}
[ "$(find_in 0.1 -DCMAKE_PREFIX_PATH="$prefix")" = "$prefix/bin/warpwise" ] ||
  { cat "$prefix.work/log"; fail "find_package from the prefix"; }
cp -r "$prefix" "$prefix.copy"
[ "$(find_in 0.1 -DCMAKE_PREFIX_PATH="$prefix.copy")" = "$prefix.copy/bin/warpwise" ] ||
  { cat "$prefix.work/log"; fail "find_package from a moved prefix"; }
[ "$(find_in 0.1 -DWarpwise_DIR="$build/cmake")" = "$build/bin/warpwise" ] ||
  { cat "$prefix.work/log"; fail "find_package from the build tree"; }
if find_in 99.0 -DCMAKE_PREFIX_PATH="$prefix" > /dev/null; then
  fail "find_package accepted version 99.0"
fi
rm -rf "$prefix.copy" "$prefix.work"
echo "installed tree and package OK"
