# Every dependency comes from the system (Debian packages) or from a prefix the user names;
# nothing is downloaded at configure or build time.
find_package(MPI REQUIRED COMPONENTS C CXX)

set(HDF5_PREFER_PARALLEL ON)
if(NOT HDF5_ROOT AND EXISTS /usr/lib/x86_64-linux-gnu/hdf5/mpich)
  # Debian installs several HDF5 flavours side by side; Meridian needs the MPICH one.
  set(HDF5_ROOT /usr/lib/x86_64-linux-gnu/hdf5/mpich)
  set(HDF5_C_COMPILER_EXECUTABLE /usr/bin/h5pcc.mpich)
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Meridian needs a parallel (MPI) build of HDF5; found a serial one at ${HDF5_INCLUDE_DIRS}. "
                      "On Debian install libhdf5-mpich-dev.")
endif()

find_package(Kokkos REQUIRED)
# Debian's Kokkos 3.4 config points its include directory at a path that does not exist.
if(TARGET Kokkos::kokkos AND Kokkos_VERSION VERSION_LESS 4.0 AND EXISTS /usr/include/trilinos/Kokkos_Core.hpp)
  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES /usr/include/trilinos)
endif()

find_package(toml11 REQUIRED)

add_library(meridian_hdf5 INTERFACE)
target_include_directories(meridian_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(meridian_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(meridian_hdf5 INTERFACE ${HDF5_DEFINITIONS})

# Warnings for the project's own code only.
add_library(meridian_warnings INTERFACE)
target_compile_options(meridian_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)
