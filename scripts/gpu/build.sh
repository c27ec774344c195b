#!/usr/bin/env bash
# Builds Meridian against a Kokkos 4 install with the CUDA backend (Spack, a site module, or your own
# build), for the GPU architecture that install was configured for.
#   scripts/gpu/build.sh KOKKOS_PREFIX [BUILD_DIR]     (default BUILD_DIR: build/cuda)
# It configures with the install's nvcc_wrapper as the C++ compiler (MPI through MPI::MPI_CXX, never
# nvcc_wrapper behind mpicxx), builds everything (library, meridian, tests, benchmarks) and fails on a
# warning from the project's own files. Environment: CMAKE_ARGS adds configure options; JOBS the build jobs.
# The host code targets x86-64-v3 (AVX2), not this machine's CPU: the bundle runs on the GPU machine's
# host (CMAKE_ARGS=-DMERIDIAN_ARCH=... to change it).
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 KOKKOS_PREFIX [BUILD_DIR]   (a Kokkos 4 install with Kokkos_ENABLE_CUDA)" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${2:-$source_dir/build/cuda}
wrapper=$prefix/bin/nvcc_wrapper
config=$(find "$prefix" -name KokkosCore_config.h -print -quit)
if [ ! -x "$wrapper" ] || [ -z "$config" ] || ! grep -q '^#define KOKKOS_ENABLE_CUDA' "$config"; then
  echo "$0: $prefix is not a Kokkos install with the CUDA backend (no bin/nvcc_wrapper or KOKKOS_ENABLE_CUDA)" >&2
  exit 2
fi
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
# shellcheck disable=SC2086
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
      -DCMAKE_CXX_COMPILER="$wrapper" -DMERIDIAN_ARCH=x86-64-v3 ${CMAKE_ARGS:-}
log=$build_dir/build.log
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
# nvcc's device-side diagnostics (a host function called from a kernel, say) are warnings, not errors.
# GCC writes "FILE:LINE:COL: warning:", nvcc's front end "FILE(LINE): warning #N-D:", ptxas "ptxas warning :"
# and the kernel's name (local memory, spills, a stack it cannot size): only the project's sources go
# through ptxas here, Kokkos being an install.
own_warning="$source_dir/[^ ]* ?warning|^ptxas warning"
if grep -E "$own_warning" "$log" | grep -v "$build_dir" > /dev/null; then
  echo "$0: the build warned in the project's own files:" >&2
  grep -E "$own_warning" "$log" | grep -v "$build_dir" >&2
  exit 1
fi
echo "built $build_dir against $prefix"
