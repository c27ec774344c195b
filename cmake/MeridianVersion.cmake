# The git hash and build description go into every output file, so a result can be traced to its code.
find_package(Git QUIET)
set(MERIDIAN_GIT_HASH "unknown")
if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE MERIDIAN_GIT_HASH
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
set(MERIDIAN_BUILD_DESCRIPTION "${CMAKE_BUILD_TYPE} ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/build_info.hpp.in ${CMAKE_BINARY_DIR}/generated/build_info.hpp @ONLY)
