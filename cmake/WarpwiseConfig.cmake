# WarpwiseConfig.cmake - find_package(Warpwise CONFIG) for an installed
# warpwise: <prefix>/lib/cmake/Warpwise/WarpwiseConfig.cmake. (warpwise's
# build tree has a generated one of its own in <build>/cmake.)
#
# Defines Warpwise::warpwise, WARPWISE_EXECUTABLE, WARPWISE_MAKE_INCLUDE (the
# Make include) and warpwise_rewrite_target(); see Warpwise.cmake.
get_filename_component(_Warpwise_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_Warpwise_EXECUTABLE "${_Warpwise_PREFIX}/bin/warpwise")
if(NOT WARPWISE_EXECUTABLE AND NOT EXISTS "${_Warpwise_EXECUTABLE}")
  set(Warpwise_FOUND FALSE)
  set(Warpwise_NOT_FOUND_MESSAGE "${_Warpwise_EXECUTABLE} does not exist")
  return()
endif()
set(WARPWISE_MAKE_INCLUDE "${_Warpwise_PREFIX}/share/warpwise/warpwise.mk")
include("${CMAKE_CURRENT_LIST_DIR}/Warpwise.cmake")
unset(_Warpwise_EXECUTABLE)
unset(_Warpwise_PREFIX)
