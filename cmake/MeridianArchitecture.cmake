# Optimised builds are vectorised for a target CPU. Without it a plain -DCMAKE_BUILD_TYPE=Release
# configure (Spack's, and most hand builds) ran the 2048^2 advection at 2.1e7 cell-updates/s against
# 8.1e7 with -march=native. MERIDIAN_ARCH goes to -march= for every build type but Debug: `native`
# (the default) is the machine that builds; a binary carried to other machines (the GPU bundle, a
# cluster image) wants a baseline such as x86-64-v3, and an empty value leaves the compiler's default.
set(MERIDIAN_ARCH "native" CACHE STRING "CPU for -march= in optimised builds (empty: the compiler's default)")
set(MERIDIAN_ARCH_FLAGS "")
if(MERIDIAN_ARCH)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag("-march=${MERIDIAN_ARCH}" MERIDIAN_ARCH_WORKS_${MERIDIAN_ARCH})
  if(NOT MERIDIAN_ARCH_WORKS_${MERIDIAN_ARCH})
    message(FATAL_ERROR "MERIDIAN_ARCH=${MERIDIAN_ARCH}: ${CMAKE_CXX_COMPILER} does not accept -march=${MERIDIAN_ARCH}; "
                        "name a CPU it knows, or set MERIDIAN_ARCH to empty for its default")
  endif()
  add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:-march=${MERIDIAN_ARCH}>")
  if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(MERIDIAN_ARCH_FLAGS "-march=${MERIDIAN_ARCH}")
  endif()
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type_upper)
string(STRIP "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${build_type_upper}} ${MERIDIAN_ARCH_FLAGS}" MERIDIAN_BUILD_FLAGS)

# No contraction of a*b+c into a fused multiply-add: with -march=native GCC contracts wherever it
# can, and the same formula then rounds differently in a loop whose arguments are constants than in
# one where they are not, or in vector code and its scalar remainder. The advection stage runs cells
# through such loops by their place in the grid, and results must not depend on the decomposition
# (bitwise rank invariance; measured cost on the 2048^2 rotation: about 3%).
add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU,Clang>>:-ffp-contract=off>")
# The same on a GPU: nvcc contracts device code by default (--fmad=true), and -ffp-contract=off reaches only
# its host compiler. Without this the 3-D atmosphere kernel (5 components) and the 2-D one (4) round the same
# formula differently, and a y-independent 3-D state would no longer step as the 2-D slice bitwise; the
# stencils are bound by memory bandwidth on a GPU, which separate multiplies and adds leave untouched.
if(Kokkos_ENABLE_CUDA)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:--fmad=false>")
endif()

# A GPU thread's array indexed by a value known only at run time (a component, an axis) lives in local
# memory, off-chip, not in registers; ptxas reported 192-288 bytes of it in the atmosphere's face-flux kernel
# (gpu-review.md C7). The CUDA build has no warnings from the project's files, so ptxas warning of every
# kernel with local memory or register spills in a target's sources keeps it out. EXCEPT names sources whose
# local memory is known, stated where they are listed.
function(meridian_kernels_in_registers target)
  cmake_parse_arguments(arg "" "" "EXCEPT" ${ARGN})
  if(NOT Kokkos_ENABLE_CUDA)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.cpp$")
  if(arg_EXCEPT)
    list(REMOVE_ITEM sources ${arg_EXCEPT})
  endif()
  set_property(SOURCE ${sources} APPEND PROPERTY COMPILE_OPTIONS
               -Xptxas=--warn-on-local-memory-usage -Xptxas=--warn-on-spills)
endfunction()
