# A run-time support that warpwise writes beside its outputs, as one
# self-contained header: IN (src/runtime/warpwise/runtime.cuh, or
# src/runtime/offload/offload.cuh) with each of its `#include "part.cuh"`
# lines replaced by that part (same directory).
#   cmake -DIN=.../runtime.cuh -DOUT=.../warpwise_runtime.cuh -P AmalgamateRuntime.cmake
get_filename_component(dir ${IN} DIRECTORY)
file(READ ${IN} text)
string(REGEX MATCHALL "\n#include \"[a-z_]+\\.cuh\"[^\n]*" includes "${text}")
foreach(line ${includes})
  string(REGEX MATCH "\"([a-z_]+\\.cuh)\"" unused "${line}")
  file(READ ${dir}/${CMAKE_MATCH_1} part)
  string(REGEX REPLACE "\n$" "" part "${part}")
  string(REPLACE "${line}" "\n${part}" text "${text}")
endforeach()
get_filename_component(name ${OUT} NAME)
get_filename_component(part ${dir} NAME)
set(banner "// ${name} - warpwise's run-time support, written by warpwise\n")
if(part STREQUAL "warpwise")
  set(files "files it rewrote")
else()
  set(files "files it wrote")
endif()
string(APPEND banner "// beside the ${files} (from src/runtime/${part} in its sources);\n")
string(APPEND banner "// warpwise replaces it when it would write a different one.\n")
file(WRITE ${OUT}.tmp "${banner}${text}")
file(RENAME ${OUT}.tmp ${OUT})
