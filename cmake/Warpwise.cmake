# Warpwise.cmake - warpwise as a pre-build step of a CMake target.
#
# Use it through the package (installed to <prefix>/lib/cmake/Warpwise, or
# generated in warpwise's build tree at <build>/cmake):
#
#   find_package(Warpwise 0.1 CONFIG REQUIRED)   # -DWarpwise_DIR=... or CMAKE_PREFIX_PATH
#   add_executable(app main.cu kernels.cu)
#   target_include_directories(app PRIVATE include)
#   target_compile_definitions(app PRIVATE TILE=16)
#   warpwise_rewrite_target(app ARCH sm_90)
#
# or by including this file from a warpwise source tree:
#
#   include(/path/to/warpwise/cmake/Warpwise.cmake)
#
# It defines the imported executable target Warpwise::warpwise, the variable
# WARPWISE_EXECUTABLE (its path) and the function
#
#   warpwise_rewrite_target(<target>
#     [ARCH sm_XX]             target architecture (default: ${WARPWISE_ARCH},
#                              else the first of the target's
#                              CUDA_ARCHITECTURES, else warpwise's default)
#     [TRANSFORMS t1 t2 ...]   --transforms (meld fuse fission split, or none)
#     [REPORT_DIR dir]         where the JSON reports go (default: beside the
#                              rewritten files)
#     [EXTRA_ARGS ...]         more warpwise options (before `--`), e.g.
#                              --fmad=false or --split-form none
#     [COMPILER_FLAGS ...])    more compiler flags for warpwise's parse
#                              (after `--`)
#
# Every .cu source of <target> is rewritten, when the source, a header it
# reads or warpwise changes, into
#   ${CMAKE_CURRENT_BINARY_DIR}/warpwise/<target>/<path relative to the
#   target's source directory>
# and the target compiles that file instead of the original. warpwise parses
# it with the target's include directories and compile definitions (with
# those of the libraries it links) and its CUDA_STANDARD, passed through
# generator expressions, and with the original file's directory first, so
# that `#include "x.h"` beside the original still resolves; nvcc gets that
# directory too. The headers the rewrite read come from warpwise's
# --depfile (DEPFILE), and warpwise's messages, errors included, go to the
# build's console. Call the function in the directory that created the
# target, after its sources were added.
#
# WARPWISE_EXECUTABLE, set before find_package() or include(), chooses
# another warpwise binary.

if(CMAKE_VERSION VERSION_LESS 3.20)   # DEPFILE with Makefile generators
  message(FATAL_ERROR "Warpwise.cmake needs CMake 3.20 or newer")
endif()
# The policies below are recorded with the function and hold when it runs,
# whatever the calling project's cmake_minimum_required says: CMP0116 makes
# Ninja read the absolute paths in warpwise's depfile.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.28)

if(NOT TARGET Warpwise::warpwise)
  if(WARPWISE_EXECUTABLE)
    # Chosen by the user.
  elseif(DEFINED _Warpwise_EXECUTABLE)
    # Set by WarpwiseConfig.cmake: the installed or the build-tree binary.
    set(WARPWISE_EXECUTABLE "${_Warpwise_EXECUTABLE}")
  elseif(TARGET warpwise)
    # Included from warpwise's own project.
    set(WARPWISE_EXECUTABLE "$<TARGET_FILE:warpwise>")
  else()
    # Included from a source tree (cmake/ beside build/) or an installed
    # prefix (lib/cmake/Warpwise/).
    find_program(WARPWISE_EXECUTABLE warpwise
      HINTS "${CMAKE_CURRENT_LIST_DIR}/../build/bin" "${CMAKE_CURRENT_LIST_DIR}/../../../bin"
      DOC "the warpwise binary")
    if(NOT WARPWISE_EXECUTABLE)
      message(FATAL_ERROR "Warpwise.cmake: no warpwise binary found; build it "
        "(scripts/setup) or set WARPWISE_EXECUTABLE")
    endif()
  endif()
  if(TARGET warpwise AND WARPWISE_EXECUTABLE STREQUAL "$<TARGET_FILE:warpwise>")
    add_executable(Warpwise::warpwise ALIAS warpwise)
  else()
    get_filename_component(WARPWISE_EXECUTABLE "${WARPWISE_EXECUTABLE}" ABSOLUTE)
    add_executable(Warpwise::warpwise IMPORTED)
    set_target_properties(Warpwise::warpwise PROPERTIES IMPORTED_LOCATION "${WARPWISE_EXECUTABLE}")
  endif()
endif()

function(warpwise_rewrite_target target)
  cmake_parse_arguments(PARSE_ARGV 1 WW "" "ARCH;REPORT_DIR"
    "TRANSFORMS;EXTRA_ARGS;COMPILER_FLAGS")
  if(WW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "warpwise_rewrite_target(${target}): unknown arguments ${WW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "warpwise_rewrite_target: no target named ${target}")
  endif()
  get_target_property(srcdir ${target} SOURCE_DIR)
  get_target_property(bindir ${target} BINARY_DIR)
  if(NOT bindir STREQUAL CMAKE_CURRENT_BINARY_DIR)
    message(FATAL_ERROR "warpwise_rewrite_target(${target}): call it in the directory "
      "that created the target (${srcdir})")
  endif()

  # The architecture: ARCH, WARPWISE_ARCH, or the target's first real one.
  set(arch "${WW_ARCH}")
  if(NOT arch AND WARPWISE_ARCH)
    set(arch "${WARPWISE_ARCH}")
  endif()
  if(NOT arch)
    get_target_property(cuda_arches ${target} CUDA_ARCHITECTURES)
    foreach(a IN LISTS cuda_arches)
      if(a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
        set(arch "sm_${CMAKE_MATCH_1}")
        break()
      endif()
    endforeach()
  endif()
  set(options)
  if(arch)
    list(APPEND options --arch ${arch})
  endif()
  if(WW_TRANSFORMS)
    string(REPLACE ";" "," transforms "${WW_TRANSFORMS}")
    list(APPEND options --transforms ${transforms})
  endif()
  list(APPEND options ${WW_EXTRA_ARGS})

  # The target's own flags, evaluated at generate time (in the COMMAND below,
  # quoted: their `;` separate arguments only once COMMAND_EXPAND_LISTS
  # expands them). Entries that evaluate to nothing are dropped.
  set(incs "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,INCLUDE,.>")
  set(defs "$<FILTER:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,INCLUDE,.>")
  set(std "$<TARGET_PROPERTY:${target},CUDA_STANDARD>")

  # The rewrite reruns when warpwise changes (and, in warpwise's own project,
  # waits for it to be built).
  get_target_property(exe_dep Warpwise::warpwise ALIASED_TARGET)
  if(NOT exe_dep)
    set(exe_dep "$<TARGET_FILE:Warpwise::warpwise>")
  endif()

  get_target_property(sources ${target} SOURCES)
  set(new_sources)
  set(rewritten 0)
  foreach(src IN LISTS sources)
    if(src MATCHES "\\$<" OR NOT src MATCHES "\\.cu$")
      list(APPEND new_sources "${src}")
      continue()
    endif()
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${srcdir}")
    get_filename_component(absdir "${abs}" DIRECTORY)
    file(RELATIVE_PATH rel "${srcdir}" "${abs}")
    if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
      # A source outside the target's directory: below __abs/, by its
      # absolute path.
      string(REGEX REPLACE "^/" "" rel "${abs}")
      string(REPLACE ":" "" rel "${rel}")
      set(rel "__abs/${rel}")
    endif()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/warpwise/${target}/${rel}")
    if(WW_REPORT_DIR)
      get_filename_component(report "${WW_REPORT_DIR}/${rel}.json" ABSOLUTE
        BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    else()
      set(report "${out}.json")
    endif()
    get_filename_component(outdir "${out}" DIRECTORY)
    get_filename_component(reportdir "${report}" DIRECTORY)
    add_custom_command(
      OUTPUT "${out}"
      BYPRODUCTS "${report}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${outdir}" "${reportdir}"
      COMMAND Warpwise::warpwise rewrite "${abs}" ${options} -o "${out}"
              --report "${report}" --depfile "${out}.d"
              -- "-I${absdir}"
              "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
              "$<$<BOOL:${std}>:-std=c++${std}>"
              ${WW_COMPILER_FLAGS}
      DEPENDS "${abs}" ${exe_dep}
      DEPFILE "${out}.d"
      COMMENT "warpwise: rewriting ${rel} for ${target}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    # nvcc finds the original's neighbours too.
    set_property(SOURCE "${out}" APPEND PROPERTY INCLUDE_DIRECTORIES "${absdir}")
    list(APPEND new_sources "${out}")
    math(EXPR rewritten "${rewritten} + 1")
  endforeach()
  if(rewritten EQUAL 0)
    message(WARNING "warpwise_rewrite_target(${target}): the target has no .cu source")
  endif()
  set_property(TARGET ${target} PROPERTY SOURCES ${new_sources})
endfunction()

cmake_policy(POP)
