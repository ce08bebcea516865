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
#     [ARCH sm_XX]             measure for this architecture (default:
#                              ${WARPWISE_ARCH}, else warpwise chooses the
#                              most restrictive of the target's
#                              CUDA_ARCHITECTURES, passed to it as
#                              --generate-code flags)
#     [TRANSFORMS t1 t2 ...]   --transforms (meld fuse fission split, or none)
#     [REPORT_DIR dir]         where the JSON reports go (default: beside the
#                              rewritten files)
#     [IN_ROOT dir]            the tree the rewritten copies mirror (default:
#                              ${CMAKE_SOURCE_DIR}); a header the rewrite
#                              changes must lie below it
#     [EXTRA_ARGS ...]         more warpwise options (before `--`), e.g.
#                              --fmad=false or --split-form none
#     [COMPILER_FLAGS ...])    more compiler flags for warpwise's parse and
#                              nvcc runs (after `--`)
#
# Every .cu source of <target> is rewritten, when the source, a header it
# reads or warpwise changes, into a tree of its own below
#   ${CMAKE_CURRENT_BINARY_DIR}/warpwise/<target>/<source>.tree/
# that mirrors IN_ROOT: <tree>/<path of the source below IN_ROOT> is the
# copy the target compiles instead of the original, and a project header
# whose kernels the rewrite changes is written to <tree>/<its path below
# IN_ROOT> (warpwise --out-dir). Nothing is written into the source tree.
# The copy's own directory is searched first for `#include "x.h"`, so a
# rewritten neighbour is found before the original; for the headers found
# through the target's include directories, each directory's mirror in the
# tree is put before it (the source's INCLUDE_DIRECTORIES, which come before
# the target's). Each source has its own tree because a header's kernel may
# be rewritten differently for two translation units.
#
# The copies carry #line directives (warpwise --line-directives): nvcc's
# errors and warnings name the user's files and lines, also for the files
# warpwise left unchanged.
#
# warpwise parses and measures with the target's flags, evaluated by
# generator expressions: INCLUDE_DIRECTORIES, COMPILE_DEFINITIONS and
# COMPILE_OPTIONS (with those of the libraries it links; an option under
# $<COMPILE_LANGUAGE:...> evaluates to nothing outside a compile and is not
# passed), CMAKE_CUDA_FLAGS, CUDA_STANDARD and CUDA_ARCHITECTURES (as
# --generate-code=arch=compute_XX,code=sm_XX). Code generation options such
# as -maxrregcount=16 or --use_fast_math reach warpwise's nvcc runs; the
# report's compile_command.nvcc lists them. The headers the rewrite read
# come from warpwise's --depfile (DEPFILE), and warpwise's messages, errors
# included, go to the build's console: a missing or broken CUDA toolkit
# fails the build. Call the function in the directory that created the
# target, after its sources were added.
#
# Limitation: the include directories whose mirrors are put first are the
# target's own, as set without generator expressions; a rewritten header
# found only through a linked library's include directory is not seen by
# the compile (the original is), so keep such headers out of the rewrite
# with EXTRA_ARGS --header-filter.
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
  cmake_parse_arguments(PARSE_ARGV 1 WW "" "ARCH;REPORT_DIR;IN_ROOT"
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
  set(root "${CMAKE_SOURCE_DIR}")
  if(WW_IN_ROOT)
    get_filename_component(root "${WW_IN_ROOT}" ABSOLUTE BASE_DIR "${srcdir}")
  endif()

  # The architecture: ARCH or WARPWISE_ARCH; else warpwise reads the
  # target's CUDA_ARCHITECTURES from the flags below.
  set(arch "${WW_ARCH}")
  if(NOT arch AND WARPWISE_ARCH)
    set(arch "${WARPWISE_ARCH}")
  endif()
  set(options --line-directives)
  if(arch)
    list(APPEND options --arch ${arch})
  endif()
  if(WW_TRANSFORMS)
    string(REPLACE ";" "," transforms "${WW_TRANSFORMS}")
    list(APPEND options --transforms ${transforms})
  endif()
  list(APPEND options ${WW_EXTRA_ARGS})
  set(arch_flags)
  get_target_property(cuda_arches ${target} CUDA_ARCHITECTURES)
  foreach(a IN LISTS cuda_arches)
    if(a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
      list(APPEND arch_flags
        "--generate-code=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
    endif()
  endforeach()
  separate_arguments(cuda_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS}")

  # The target's own flags, evaluated at generate time (in the COMMAND below,
  # quoted: their `;` separate arguments only once COMMAND_EXPAND_LISTS
  # expands them). Entries that evaluate to nothing are dropped.
  set(incs "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,INCLUDE,.>")
  set(defs "$<FILTER:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,INCLUDE,.>")
  set(copts "$<FILTER:$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>,INCLUDE,.>")
  set(std "$<TARGET_PROPERTY:${target},CUDA_STANDARD>")

  # The target's own include directories, as written (no generator
  # expressions): each gets its mirror in a source's tree before it.
  get_target_property(target_incs ${target} INCLUDE_DIRECTORIES)
  set(static_incs)
  foreach(d IN LISTS target_incs)
    if(d AND NOT d MATCHES "\\$<")
      get_filename_component(d "${d}" ABSOLUTE BASE_DIR "${srcdir}")
      list(APPEND static_incs "${d}")
    endif()
  endforeach()

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
      # A source outside the target's directory: by its absolute path.
      string(REGEX REPLACE "^/" "" rel "${abs}")
      string(REPLACE ":" "" rel "${rel}")
      set(rel "__abs/${rel}")
    endif()
    # The source's tree mirrors the root; one outside it mirrors "/".
    set(src_root "${root}")
    file(RELATIVE_PATH below "${src_root}" "${abs}")
    if(below MATCHES "^\\.\\./" OR IS_ABSOLUTE "${below}")
      set(src_root "/")
      string(REGEX REPLACE "^/" "" below "${abs}")
    endif()
    set(tree "${CMAKE_CURRENT_BINARY_DIR}/warpwise/${target}/${rel}.tree")
    set(out "${tree}/${below}")
    if(WW_REPORT_DIR)
      get_filename_component(report "${WW_REPORT_DIR}/${rel}.json" ABSOLUTE
        BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    else()
      set(report "${out}.json")
    endif()
    get_filename_component(reportdir "${report}" DIRECTORY)
    add_custom_command(
      OUTPUT "${out}"
      BYPRODUCTS "${report}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${tree}" "${reportdir}"
      COMMAND Warpwise::warpwise rewrite "${abs}" ${options}
              --out-dir "${tree}" --in-root "${src_root}"
              --report "${report}" --depfile "${out}.d"
              -- "-I${absdir}"
              "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
              "$<$<BOOL:${std}>:-std=c++${std}>"
              ${arch_flags} ${cuda_flags} "${copts}"
              ${WW_COMPILER_FLAGS}
      DEPENDS "${abs}" ${exe_dep}
      DEPFILE "${out}.d"
      COMMENT "warpwise: rewriting ${rel} for ${target}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    # The compile of the copy: the original's neighbours, then each include
    # directory's mirror in the tree before the directory itself (these
    # come before the target's own include directories).
    set(src_incs "${absdir}")
    foreach(d IN LISTS static_incs)
      file(RELATIVE_PATH d_below "${src_root}" "${d}")
      if(NOT d_below MATCHES "^\\.\\./" AND NOT IS_ABSOLUTE "${d_below}")
        list(APPEND src_incs "${tree}/${d_below}")
      endif()
      list(APPEND src_incs "${d}")
    endforeach()
    set_property(SOURCE "${out}" APPEND PROPERTY INCLUDE_DIRECTORIES ${src_incs})
    list(APPEND new_sources "${out}")
    math(EXPR rewritten "${rewritten} + 1")
  endforeach()
  if(rewritten EQUAL 0)
    message(WARNING "warpwise_rewrite_target(${target}): the target has no .cu source")
  endif()
  set_property(TARGET ${target} PROPERTY SOURCES ${new_sources})
endfunction()

cmake_policy(POP)
