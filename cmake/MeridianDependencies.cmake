# Every dependency comes from the system (Debian packages) or from a prefix the user names;
# nothing is downloaded at configure or build time.
find_package(MPI REQUIRED COMPONENTS C CXX)

set(HDF5_PREFER_PARALLEL ON)
if(NOT HDF5_ROOT AND EXISTS /usr/lib/x86_64-linux-gnu/hdf5/mpich)
  # Debian installs several HDF5 flavours side by side; Meridian needs the MPICH one.
  set(HDF5_ROOT /usr/lib/x86_64-linux-gnu/hdf5/mpich)
  set(HDF5_C_COMPILER_EXECUTABLE /usr/bin/h5pcc.mpich)
endif()
find_package(HDF5 REQUIRED COMPONENTS C HL)  # HL: the dimension scales (H5DS) netCDF-4 reads
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
target_link_libraries(meridian_hdf5 INTERFACE ${HDF5_C_HL_LIBRARIES} ${HDF5_C_LIBRARIES})
target_compile_definitions(meridian_hdf5 INTERFACE ${HDF5_DEFINITIONS})

# Warnings for the project's own code only.
add_library(meridian_warnings INTERFACE)
target_compile_options(meridian_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)

# FFTW (double precision) for the host FFT backend.
find_path(FFTW3_INCLUDE_DIR fftw3.h REQUIRED)
find_library(FFTW3_LIBRARY fftw3 REQUIRED)
add_library(meridian_fftw INTERFACE)
target_include_directories(meridian_fftw SYSTEM INTERFACE ${FFTW3_INCLUDE_DIR})
target_link_libraries(meridian_fftw INTERFACE ${FFTW3_LIBRARY})
# With Kokkos' OpenMP backend a rank's threads share its FFTs: FFTW's OpenMP threads (libfftw3_omp, in Debian's
# libfftw3-dev), which run from outside Kokkos' parallel regions on the same OpenMP runtime.
if(Kokkos_ENABLE_OPENMP)
  find_library(FFTW3_OMP_LIBRARY fftw3_omp REQUIRED)
  find_package(OpenMP REQUIRED COMPONENTS CXX)
  target_link_libraries(meridian_fftw INTERFACE ${FFTW3_OMP_LIBRARY} OpenMP::OpenMP_CXX)
  set(MERIDIAN_FFTW_OPENMP ON)
endif()

# The CUDA toolkit, when present, builds the Kokkos-free cuFFT unit even if Kokkos has no CUDA
# backend, so that it is compiled and linked on every build here; without it the build goes on.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)  # Hopper (H100/H200); CUDA 13 dropped sm_70
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(MERIDIAN_HAVE_CUFFT ON)
else()
  set(MERIDIAN_HAVE_CUFFT OFF)
  if(Kokkos_ENABLE_CUDA)
    message(FATAL_ERROR "Kokkos has its CUDA backend but no CUDA compiler was found for the cuFFT unit")
  endif()
endif()
